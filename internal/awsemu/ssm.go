package awsemu

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/internal/shape"
)

const ssmContentType = "application/x-amz-json-1.1"

// parseSSM binds an awsJson1_1 request (X-Amz-Target: AmazonSSM.<Action>).
func (s *Server) parseSSM(w http.ResponseWriter, r *http.Request) (call, bool) {
	requestID := s.requestID()
	action := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "AmazonSSM.")
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		writeJSONError(w, http.StatusBadRequest, "SerializationException", err.Error(), requestID, ssmContentType, nil)
		return call{}, false
	}
	fail := func(w http.ResponseWriter, e *apiError) {
		writeJSONError(w, e.status, e.code, e.message, requestID, ssmContentType, nil)
	}
	c := call{
		service: "ssm",
		action:  action,
		throttled: func(w http.ResponseWriter) {
			fail(w, badRequest("ThrottlingException", "Rate exceeded"))
		},
		fail: fail,
	}
	c.serve = func(w http.ResponseWriter) {
		var out any
		var e *apiError
		switch action {
		case "GetParameter":
			out, e = s.getParameter(body)
		case "GetParameters":
			out, e = s.getParameters(body)
		default:
			e = badRequest("UnknownOperationException", "Operation "+action+" is not supported by awsemu")
		}
		if e != nil {
			fail(w, e)
			return
		}
		writeBody(w, http.StatusOK, ssmContentType, requestID, shape.MarshalJSON(out, shape.SSMWire))
	}
	return c, true
}

func (s *Server) getParameter(body []byte) (any, *apiError) {
	var in struct{ Name *string }
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, badRequest("SerializationException", err.Error())
	}
	if in.Name == nil || *in.Name == "" {
		return nil, badRequest("ValidationException",
			"1 validation error detected: Value null at 'name' failed to satisfy constraint: Member must not be null")
	}
	p, e := s.lookupParameter(*in.Name)
	if e != nil {
		return nil, e
	}
	return struct{ Parameter ssmtypes.Parameter }{p}, nil
}

func (s *Server) getParameters(body []byte) (any, *apiError) {
	var in struct{ Names []string }
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, badRequest("SerializationException", err.Error())
	}
	switch {
	case len(in.Names) == 0:
		return nil, badRequest("ValidationException",
			"1 validation error detected: Value '[]' at 'names' failed to satisfy constraint: Member must have length greater than or equal to 1")
	case len(in.Names) > 10:
		return nil, badRequest("ValidationException", fmt.Sprintf(
			"1 validation error detected: Value '[%s]' at 'names' failed to satisfy constraint: Member must have length less than or equal to 10",
			strings.Join(in.Names, ", ")))
	}
	out := struct {
		Parameters        []ssmtypes.Parameter
		InvalidParameters []string
	}{Parameters: []ssmtypes.Parameter{}, InvalidParameters: []string{}}
	seen := map[string]bool{}
	for _, n := range in.Names {
		if seen[n] {
			continue // AWS answers each distinct name once
		}
		seen[n] = true
		// An unknown name, version or label alike is an invalid parameter
		// here (GetParameter tells them apart).
		if p, e := s.lookupParameter(n); e == nil {
			out.Parameters = append(out.Parameters, p)
		} else {
			out.InvalidParameters = append(out.InvalidParameters, n)
		}
	}
	return out, nil
}

// ssmParameter is one parameter: its versions and the labels on them.
type ssmParameter struct {
	versions map[int64]ssmtypes.Parameter
	labels   map[string]int64 // label -> version
	latest   int64
}

// addParameterVersion records p (completed) as a version of its parameter,
// replacing an earlier one of the same version, and labels attaches to it.
func (s *Server) addParameterVersion(p ssmtypes.Parameter, labels []string) {
	p = s.completeParameter(p)
	name := deref(p.Name)
	sp := s.params[name]
	if sp == nil {
		sp = &ssmParameter{versions: map[int64]ssmtypes.Parameter{}, labels: map[string]int64{}}
		s.params[name] = sp
	}
	sp.versions[p.Version] = p
	sp.latest = max(sp.latest, p.Version)
	for _, l := range labels {
		sp.labels[l] = p.Version // AWS keeps a label on one version only
	}
}

// historyParameter is a history entry as GetParameter answers that version.
func historyParameter(h ssmtypes.ParameterHistory) ssmtypes.Parameter {
	return ssmtypes.Parameter{
		DataType:         h.DataType,
		LastModifiedDate: h.LastModifiedDate,
		Name:             h.Name,
		Type:             h.Type,
		Value:            h.Value,
		Version:          h.Version,
	}
}

// lookupParameter resolves what GetParameter(s) was asked: a name or an ARN
// (Karpenter's ssmParameter may be either), optionally with a version or
// label selector, "name:3" or "name:prod" (parameter names cannot contain a
// colon; labels cannot start with a digit). The answer carries the plain Name
// and, with a selector, Selector ":3" and that version's Version and Value,
// as AWS answers. An unknown name or label is ParameterNotFound; an unknown
// version of a known parameter is ParameterVersionNotFound.
func (s *Server) lookupParameter(asked string) (ssmtypes.Parameter, *apiError) {
	notFound := badRequest("ParameterNotFound", "Parameter "+asked+" not found.")
	name := asked
	isARN := strings.HasPrefix(name, "arn:")
	if isARN {
		_, rest, ok := strings.Cut(name, ":parameter")
		if !ok {
			return ssmtypes.Parameter{}, notFound
		}
		name = rest
	}
	name, selector, hasSelector := strings.Cut(name, ":")
	sp := s.params[name]
	if sp == nil && isARN {
		// "parameter/x" is the ARN of a name without a leading slash.
		sp = s.params[strings.TrimPrefix(name, "/")]
	}
	if sp == nil {
		return ssmtypes.Parameter{}, notFound
	}
	if !hasSelector {
		return sp.versions[sp.latest], nil
	}
	version, isVersion := int64(0), selector != "" && strings.Trim(selector, "0123456789") == ""
	if isVersion {
		v, err := strconv.ParseInt(selector, 10, 64)
		if _, ok := sp.versions[v]; err != nil || !ok {
			return ssmtypes.Parameter{}, badRequest("ParameterVersionNotFound", fmt.Sprintf(
				"Systems Manager could not find version %s of %s. Verify the version and try again.", selector, name))
		}
		version = v
	} else {
		v, ok := sp.labels[selector]
		if !ok {
			return ssmtypes.Parameter{}, notFound
		}
		version = v
	}
	p := sp.versions[version]
	p.Selector = aws.String(":" + selector)
	return p, nil
}

// completeParameter fills the fields AWS always returns but a fixture may
// leave out.
func (s *Server) completeParameter(p ssmtypes.Parameter) ssmtypes.Parameter {
	name := deref(p.Name)
	if p.Type == "" {
		p.Type = ssmtypes.ParameterTypeString
	}
	if p.Version == 0 {
		p.Version = 1
	}
	if p.DataType == nil {
		p.DataType = aws.String("text")
	}
	if p.ARN == nil {
		// Public parameters (/aws/service/...) have no account in their ARN.
		account := s.opts.AccountID
		if strings.HasPrefix(name, "/aws/") {
			account = ""
		}
		p.ARN = aws.String("arn:aws:ssm:" + s.opts.Region + ":" + account + ":parameter/" + strings.TrimPrefix(name, "/"))
	}
	return p
}
