package requirements

import (
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// FuzzValidateAndBuild feeds arbitrary requirements to the validator and the
// builder. Neither may panic; a requirement Validate accepts must build into
// one whose Has agrees with the operator's meaning on its own values; and
// intersecting it with itself changes nothing.
//
//	go test ./internal/requirements -run '^$' -fuzz FuzzValidateAndBuild -fuzztime 60s
func FuzzValidateAndBuild(f *testing.F) {
	f.Add("karpenter.k8s.aws/instance-family", "In", "m5,c5", 2, 14)
	f.Add("karpenter.k8s.aws/instance-cpu", "Gt", "4", 0, 14)
	f.Add("karpenter.k8s.aws/instance-cpu", "Gte", "4", 0, 8)
	f.Add("node-role.kubernetes.io/worker", "Exists", "", 0, 8)
	f.Add("karpenter.sh/capacity-type", "In", "spot,ondemand", 2, 14)
	f.Add("karpenter.k8s.aws/instance-size", "Lt", "9223372036854775807", 1, 14)
	f.Add("", "", ",", -1, 0)
	f.Fuzz(func(t *testing.T, key, op, values string, minValues, minor int) {
		var vs []string
		if values != "" {
			vs = strings.Split(values, ",")
		}
		s := Spec{Key: key, Operator: op, Values: vs}
		if minValues != 0 {
			s.MinValues = &minValues
		}
		v := versions.Karpenter{Minor: ((minor % 15) + 15) % 15, Patch: -1}
		fs := Validate([]Spec{s}, v)
		for _, f := range fs {
			if f.Rule == nil || f.Detail == "" || f.Path.IsEmpty() {
				t.Fatalf("malformed finding %+v", f)
			}
		}
		r, ok := s.Requirement()
		if !ok {
			t.Fatal("a fully known spec must build")
		}
		if fs.HasErrors() {
			return
		}
		switch Operator(op) {
		case In:
			for _, val := range vs {
				if !r.Has(val) {
					t.Fatalf("%s must admit its value %q", r, val)
				}
			}
		case NotIn:
			for _, val := range vs {
				if r.Has(val) {
					t.Fatalf("%s must exclude its value %q", r, val)
				}
			}
		case DoesNotExist:
			if r.Operator() != DoesNotExist {
				t.Fatalf("DoesNotExist built %s", r)
			}
		}
		self := r.Intersection(r)
		if self.String() != r.String() {
			t.Fatalf("r ∩ r = %s, want %s", self, r)
		}
	})
}
