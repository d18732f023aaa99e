package awsemu

import (
	"bytes"
	"encoding/xml"
	"net/http"
	"net/url"
	"regexp"

	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/internal/shape"
)

const (
	iamNamespace = "https://iam.amazonaws.com/doc/2010-05-08/"
	iamVersion   = "2010-05-08"
)

// isIAMRequest tells an unsigned IAM query request from EC2 and STS ones by
// its API version.
func isIAMRequest(form url.Values) bool { return form.Get("Version") == iamVersion }

// parseIAM binds an IAM (awsQuery) request: GetRole and GetInstanceProfile,
// read-only, as the provider's readiness checks call them. IAM is global;
// the SDK signs for us-east-1 whatever the client's region, and the
// emulator does not care either.
func (s *Server) parseIAM(form url.Values, action string) call {
	requestID := s.requestID()
	c := call{
		service: "iam",
		action:  action,
		throttled: func(w http.ResponseWriter) {
			writeQueryErrorNS(w, iamNamespace, http.StatusBadRequest, "Throttling", "Rate exceeded", requestID)
		},
		fail: func(w http.ResponseWriter, e *apiError) {
			writeQueryErrorNS(w, iamNamespace, e.status, e.code, e.message, requestID)
		},
	}
	var handler func(url.Values) (any, *apiError)
	switch action {
	case "GetRole":
		handler = s.getRole
	case "GetInstanceProfile":
		handler = s.getInstanceProfile
	}
	c.serve = func(w http.ResponseWriter) {
		if handler == nil {
			writeQueryErrorNS(w, iamNamespace, http.StatusBadRequest, "InvalidAction",
				"Could not find operation "+action+" for version "+iamVersion, requestID)
			return
		}
		result, err := handler(form)
		if err != nil {
			writeQueryErrorNS(w, iamNamespace, err.status, err.code, err.message, requestID)
			return
		}
		writeQueryResponse(w, iamNamespace, action, requestID, result)
	}
	return c
}

// iamNamePattern is IAM's pattern for role and instance profile names.
var iamNamePattern = regexp.MustCompile(`^[\w+=,.@-]{1,128}$`)

func iamName(form url.Values, param string) (string, *apiError) {
	name := form.Get(param)
	if !iamNamePattern.MatchString(name) {
		return "", badRequest("ValidationError",
			"1 validation error detected: Value '"+name+"' at '"+lowerFirstASCII(param)+"' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]+")
	}
	return name, nil
}

func noSuchEntity(message string) *apiError {
	return &apiError{status: http.StatusNotFound, code: "NoSuchEntity", message: message}
}

// getRole answers {Role}; the policy document is URL-encoded, as IAM sends
// it (the SDK hands it to callers still encoded).
func (s *Server) getRole(form url.Values) (any, *apiError) {
	name, err := iamName(form, "RoleName")
	if err != nil {
		return nil, err
	}
	for _, r := range s.roles {
		if deref(r.RoleName) == name {
			return struct{ Role iamtypes.Role }{wireRole(r)}, nil
		}
	}
	return nil, noSuchEntity("The role with name " + name + " cannot be found.")
}

func (s *Server) getInstanceProfile(form url.Values) (any, *apiError) {
	name, err := iamName(form, "InstanceProfileName")
	if err != nil {
		return nil, err
	}
	for _, p := range s.instanceProfiles {
		if deref(p.InstanceProfileName) == name {
			p.Roles = append([]iamtypes.Role{}, p.Roles...)
			for i := range p.Roles {
				p.Roles[i] = wireRole(p.Roles[i])
			}
			return struct{ InstanceProfile iamtypes.InstanceProfile }{p}, nil
		}
	}
	return nil, noSuchEntity("Instance Profile " + name + " cannot be found.")
}

func wireRole(r iamtypes.Role) iamtypes.Role {
	if r.AssumeRolePolicyDocument != nil {
		enc := url.QueryEscape(*r.AssumeRolePolicyDocument)
		r.AssumeRolePolicyDocument = &enc
	}
	return r
}

// writeQueryResponse writes an awsQuery answer:
// <ActionResponse><ActionResult>...</ActionResult><ResponseMetadata/>.
func writeQueryResponse(w http.ResponseWriter, namespace, action, requestID string, result any) {
	var b bytes.Buffer
	b.WriteString(xml.Header)
	b.WriteString("<" + action + `Response xmlns="` + namespace + `">`)
	shape.WriteQueryXML(&b, action+"Result", result)
	b.WriteString("<ResponseMetadata>")
	xmlElem(&b, "RequestId", requestID)
	b.WriteString("</ResponseMetadata></" + action + "Response>")
	writeBody(w, http.StatusOK, "text/xml", requestID, b.Bytes())
}
