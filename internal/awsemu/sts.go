package awsemu

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

const stsNamespace = "https://sts.amazonaws.com/doc/2011-06-15/"

// isSTSRequest tells an unsigned STS query request from an EC2 one: both
// are form-encoded Action=... posts, only their API versions differ.
func isSTSRequest(form url.Values) bool {
	return form.Get("Version") == "2011-06-15" || form.Get("Action") == "GetCallerIdentity"
}

// parseSTS binds an awsQuery request: GetCallerIdentity answers with the
// emulator's account; AssumeRole hands out throwaway credentials for a role
// of the fixtures (roles.json) in the emulator's account.
func (s *Server) parseSTS(form url.Values, action string) call {
	requestID := s.requestID()
	return call{
		service: "sts",
		action:  action,
		throttled: func(w http.ResponseWriter) {
			writeAWSQueryError(w, http.StatusBadRequest, "Throttling", "Rate exceeded", requestID)
		},
		fail: func(w http.ResponseWriter, e *apiError) {
			writeAWSQueryError(w, e.status, e.code, e.message, requestID)
		},
		serve: func(w http.ResponseWriter) {
			switch action {
			case "GetCallerIdentity":
				var b bytes.Buffer
				b.WriteString(xml.Header)
				b.WriteString(`<GetCallerIdentityResponse xmlns="` + stsNamespace + `"><GetCallerIdentityResult>`)
				xmlElem(&b, "Arn", "arn:aws:iam::"+s.opts.AccountID+":user/awsemu")
				xmlElem(&b, "UserId", CallerUserID)
				xmlElem(&b, "Account", s.opts.AccountID)
				b.WriteString("</GetCallerIdentityResult><ResponseMetadata>")
				xmlElem(&b, "RequestId", requestID)
				b.WriteString("</ResponseMetadata></GetCallerIdentityResponse>")
				writeBody(w, http.StatusOK, "text/xml", requestID, b.Bytes())
			case "AssumeRole":
				body, err := s.assumeRole(form, requestID)
				if err != nil {
					writeAWSQueryError(w, err.status, err.code, err.message, requestID)
					return
				}
				writeBody(w, http.StatusOK, "text/xml", requestID, body)
			default:
				writeAWSQueryError(w, http.StatusBadRequest, "InvalidAction",
					"Could not find operation "+action+" for version 2011-06-15", requestID)
			}
		},
	}
}

// CallerUserID is the UserId GetCallerIdentity reports (an IAM user's
// unique id; the ARN is arn:aws:iam::<AccountID>:user/awsemu).
const CallerUserID = "AIDAAWSEMULATOR00001"

var (
	roleARNPattern     = regexp.MustCompile(`^arn:aws[a-z-]*:iam::([0-9]{12}):role/(?:[\x21-\x7e]*/)?([\w+=,.@-]{1,64})$`)
	sessionNamePattern = regexp.MustCompile(`^[\w+=,.@-]{2,64}$`)
)

// assumeRole validates RoleArn, RoleSessionName and DurationSeconds as STS
// does, and answers AccessDenied for a role that is not in the fixtures (STS
// does not tell a missing role from a trust policy that refuses the caller).
func (s *Server) assumeRole(form url.Values, requestID string) ([]byte, *apiError) {
	arn, session := form.Get("RoleArn"), form.Get("RoleSessionName")
	m := roleARNPattern.FindStringSubmatch(arn)
	if m == nil {
		return nil, badRequest("ValidationError", fmt.Sprintf("%s is invalid", arn))
	}
	if !sessionNamePattern.MatchString(session) {
		return nil, badRequest("ValidationError",
			"1 validation error detected: Value '"+session+"' at 'roleSessionName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]*")
	}
	duration := 3600
	if v := form.Get("DurationSeconds"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 900 || n > 43200 {
			return nil, badRequest("ValidationError",
				"1 validation error detected: Value '"+v+"' at 'durationSeconds' failed to satisfy constraint: Member must have value between 900 and 43200")
		}
		duration = n
	}
	var roleID string
	for _, r := range s.roles {
		if deref(r.RoleName) == m[2] && m[1] == s.opts.AccountID {
			roleID = deref(r.RoleId)
		}
	}
	if roleID == "" {
		return nil, &apiError{status: http.StatusForbidden, code: "AccessDenied", message: "User: arn:aws:iam::" + s.opts.AccountID +
			":user/awsemu is not authorized to perform: sts:AssumeRole on resource: " + arn}
	}
	seq := strings.ReplaceAll(requestID[len(requestID)-12:], "-", "")
	var b bytes.Buffer
	b.WriteString(xml.Header)
	b.WriteString(`<AssumeRoleResponse xmlns="` + stsNamespace + `"><AssumeRoleResult><Credentials>`)
	xmlElem(&b, "AccessKeyId", "ASIAAWSEMU"+strings.ToUpper(seq[2:]))
	xmlElem(&b, "SecretAccessKey", "awsemu-secret-"+seq)
	xmlElem(&b, "SessionToken", "awsemu-session-"+seq)
	xmlElem(&b, "Expiration", s.now().Add(time.Duration(duration)*time.Second).UTC().Format("2006-01-02T15:04:05Z"))
	b.WriteString("</Credentials><AssumedRoleUser>")
	xmlElem(&b, "AssumedRoleId", roleID+":"+session)
	xmlElem(&b, "Arn", "arn:aws:sts::"+s.opts.AccountID+":assumed-role/"+m[2]+"/"+session)
	b.WriteString("</AssumedRoleUser><PackedPolicySize>0</PackedPolicySize></AssumeRoleResult><ResponseMetadata>")
	xmlElem(&b, "RequestId", requestID)
	b.WriteString("</ResponseMetadata></AssumeRoleResponse>")
	return b.Bytes(), nil
}
