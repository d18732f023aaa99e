package awsemu

import (
	"net/http"
	"strings"

	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/internal/shape"
)

const eksContentType = "application/json"

// parseEKS binds a restJson1 request. Only DescribeCluster
// (GET /clusters/{name}) is emulated.
func (s *Server) parseEKS(r *http.Request) call {
	requestID := s.requestID()
	name, isDescribe := strings.CutPrefix(r.URL.Path, "/clusters/")
	isDescribe = isDescribe && r.Method == http.MethodGet && name != "" && !strings.Contains(name, "/")
	action := "DescribeCluster"
	if !isDescribe {
		action = r.Method + " " + r.URL.Path
	}
	fail := func(w http.ResponseWriter, status int, code, msg string, extra map[string]string) {
		writeJSONError(w, status, code, msg, requestID, eksContentType, extra)
	}
	c := call{
		service: "eks",
		action:  action,
		throttled: func(w http.ResponseWriter) {
			fail(w, http.StatusTooManyRequests, "ThrottlingException", "Rate exceeded", nil)
		},
		fail: func(w http.ResponseWriter, e *apiError) { fail(w, e.status, e.code, e.message, nil) },
	}
	c.serve = func(w http.ResponseWriter) {
		if !isDescribe {
			fail(w, http.StatusNotFound, "UnknownOperationException", "awsemu does not emulate "+action, nil)
			return
		}
		cluster, ok := s.clusters[name]
		if !ok {
			fail(w, http.StatusNotFound, "ResourceNotFoundException",
				"No cluster found for name: "+name+".", map[string]string{"clusterName": name})
			return
		}
		out := struct{ Cluster ekstypes.Cluster }{cluster}
		writeBody(w, http.StatusOK, eksContentType, requestID, shape.MarshalJSON(out, shape.EKSWire))
	}
	return c
}
