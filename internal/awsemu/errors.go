package awsemu

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"net/http"
	"strconv"
)

// apiError is an error answer in protocol-neutral form; each service writes
// it in its own envelope.
type apiError struct {
	status  int
	code    string
	message string
}

func badRequest(code, message string) *apiError {
	return &apiError{status: http.StatusBadRequest, code: code, message: message}
}

func (e *apiError) Error() string { return e.code + ": " + e.message }

// writeQueryError writes the EC2 query-protocol error envelope:
// <Response><Errors><Error><Code/><Message/></Error></Errors><RequestID/></Response>.
func writeQueryError(w http.ResponseWriter, status int, code, message, requestID string) {
	var b bytes.Buffer
	b.WriteString(xml.Header)
	b.WriteString("<Response><Errors><Error>")
	xmlElem(&b, "Code", code)
	xmlElem(&b, "Message", message)
	b.WriteString("</Error></Errors>")
	xmlElem(&b, "RequestID", requestID)
	b.WriteString("</Response>")
	writeBody(w, status, "text/xml;charset=UTF-8", requestID, b.Bytes())
}

// writeAWSQueryError writes the awsQuery (STS) error envelope:
// <ErrorResponse><Error><Type/><Code/><Message/></Error><RequestId/></ErrorResponse>.
func writeAWSQueryError(w http.ResponseWriter, status int, code, message, requestID string) {
	writeQueryErrorNS(w, stsNamespace, status, code, message, requestID)
}

// writeQueryErrorNS is the awsQuery error envelope of any service (STS, IAM).
func writeQueryErrorNS(w http.ResponseWriter, namespace string, status int, code, message, requestID string) {
	var b bytes.Buffer
	b.WriteString(xml.Header)
	b.WriteString(`<ErrorResponse xmlns="` + namespace + `"><Error>`)
	kind := "Sender"
	if status >= 500 {
		kind = "Receiver"
	}
	xmlElem(&b, "Type", kind)
	xmlElem(&b, "Code", code)
	xmlElem(&b, "Message", message)
	b.WriteString("</Error>")
	xmlElem(&b, "RequestId", requestID)
	b.WriteString("</ErrorResponse>")
	writeBody(w, status, "text/xml", requestID, b.Bytes())
}

// writeJSONError writes an awsJson1_1 / restJson1 error. The code goes in
// both the X-Amzn-ErrorType header (restJson1 reads it first) and the body's
// __type (what awsJson services such as SSM send).
func writeJSONError(w http.ResponseWriter, status int, code, message, requestID, contentType string, extra map[string]string) {
	body := map[string]string{"__type": code, "message": message}
	for k, v := range extra {
		body[k] = v
	}
	data, _ := json.Marshal(body) // map[string]string always marshals
	w.Header().Set("X-Amzn-ErrorType", code)
	writeBody(w, status, contentType, requestID, data)
}

func writeBody(w http.ResponseWriter, status int, contentType, requestID string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("X-Amzn-RequestId", requestID)
	w.WriteHeader(status)
	_, _ = w.Write(body) // the client may have gone; nothing to do about it
}

func xmlElem(b *bytes.Buffer, name, text string) {
	b.WriteString("<" + name + ">")
	_ = xml.EscapeText(b, []byte(text)) // bytes.Buffer writes cannot fail
	b.WriteString("</" + name + ">")
}
