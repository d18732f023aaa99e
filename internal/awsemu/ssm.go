package awsemu

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
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
	p, ok := s.lookupParameter(*in.Name)
	if !ok {
		return nil, badRequest("ParameterNotFound", "Parameter "+*in.Name+" not found.")
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
		if p, ok := s.lookupParameter(n); ok {
			out.Parameters = append(out.Parameters, p)
		} else {
			out.InvalidParameters = append(out.InvalidParameters, n)
		}
	}
	return out, nil
}

// lookupParameter accepts a name or an ARN (Karpenter's ssmParameter may be
// either). Version and label selectors ("name:3") are not modelled.
func (s *Server) lookupParameter(name string) (ssmtypes.Parameter, bool) {
	if strings.HasPrefix(name, "arn:") {
		_, rest, ok := strings.Cut(name, ":parameter")
		if !ok {
			return ssmtypes.Parameter{}, false
		}
		if p, ok := s.params[rest]; ok {
			return p, true
		}
		name = strings.TrimPrefix(rest, "/")
	}
	p, ok := s.params[name]
	return p, ok
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
