package awsemu

import (
	"bytes"
	"encoding/xml"
	"net/http"
	"net/url"
)

const ec2Namespace = "http://ec2.amazonaws.com/doc/2016-11-15/"

// parseEC2 binds an EC2 query-protocol request to its handler. Unknown
// actions are answered with InvalidAction when served (after throttling and
// latency, as AWS would).
func (s *Server) parseEC2(form url.Values, action string) call {
	requestID := s.requestID()
	c := call{
		service: "ec2",
		action:  action,
		throttled: func(w http.ResponseWriter) {
			writeQueryError(w, http.StatusServiceUnavailable, "RequestLimitExceeded", "Request limit exceeded.", requestID)
		},
		fail: func(w http.ResponseWriter, e *apiError) { writeQueryError(w, e.status, e.code, e.message, requestID) },
	}
	var handler func(url.Values) (func(*bytes.Buffer), *apiError)
	switch action {
	case "DescribeImages":
		handler = s.describeImages
	case "DescribeInstanceTypes":
		handler = s.describeInstanceTypes
	case "DescribeSubnets":
		handler = s.describeSubnets
	case "DescribeSecurityGroups":
		handler = s.describeSecurityGroups
	case "DescribeInstanceTypeOfferings":
		handler = s.describeInstanceTypeOfferings
	case "DescribeCapacityReservations":
		handler = s.describeCapacityReservations
	case "DescribeSpotPriceHistory":
		handler = s.describeSpotPriceHistory
	}
	c.serve = func(w http.ResponseWriter) {
		if handler == nil {
			writeQueryError(w, http.StatusBadRequest, "InvalidAction",
				"The action "+action+" is not valid for this web service.", requestID)
			return
		}
		if dry, _ := formBool(form, "DryRun"); dry {
			writeQueryError(w, http.StatusPreconditionFailed, "DryRunOperation",
				"Request would have succeeded, but DryRun flag is set.", requestID)
			return
		}
		body, err := handler(form)
		if err != nil {
			writeQueryError(w, err.status, err.code, err.message, requestID)
			return
		}
		writeEC2Response(w, action, requestID, body)
	}
	return c
}

// writeEC2Response wraps a result in <ActionResponse xmlns=...><requestId/>...;
// EC2 puts result members directly under the root, without a Result wrapper.
func writeEC2Response(w http.ResponseWriter, action, requestID string, body func(*bytes.Buffer)) {
	var b bytes.Buffer
	b.WriteString(xml.Header)
	b.WriteString("<" + action + `Response xmlns="` + ec2Namespace + `">`)
	xmlElem(&b, "requestId", requestID)
	body(&b)
	b.WriteString("</" + action + "Response>")
	writeBody(w, http.StatusOK, "text/xml;charset=UTF-8", requestID, b.Bytes())
}
