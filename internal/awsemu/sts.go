package awsemu

import (
	"bytes"
	"encoding/xml"
	"net/http"
	"net/url"
)

const stsNamespace = "https://sts.amazonaws.com/doc/2011-06-15/"

// isSTSRequest tells an unsigned STS query request from an EC2 one: both
// are form-encoded Action=... posts, only their API versions differ.
func isSTSRequest(form url.Values) bool {
	return form.Get("Version") == "2011-06-15" || form.Get("Action") == "GetCallerIdentity"
}

// parseSTS binds an awsQuery request. Only GetCallerIdentity is emulated; it
// answers with the emulator's account.
func (s *Server) parseSTS(action string) call {
	requestID := s.requestID()
	return call{
		service: "sts",
		action:  action,
		throttled: func(w http.ResponseWriter) {
			writeAWSQueryError(w, http.StatusBadRequest, "Throttling", "Rate exceeded", requestID)
		},
		serve: func(w http.ResponseWriter) {
			if action != "GetCallerIdentity" {
				writeAWSQueryError(w, http.StatusBadRequest, "InvalidAction",
					"Could not find operation "+action+" for version 2011-06-15", requestID)
				return
			}
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
		},
	}
}

// CallerUserID is the UserId GetCallerIdentity reports (an IAM user's
// unique id; the ARN is arn:aws:iam::<AccountID>:user/awsemu).
const CallerUserID = "AIDAAWSEMULATOR00001"
