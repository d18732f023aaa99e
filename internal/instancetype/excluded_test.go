package instancetype

import (
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/requirements"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// Karpenter intersects a pool's requirements: the listed families of
// generation 5 (and a1, generation 1) are never launched under
// instance-generation Gt 5. Values the rest admits, values no type has
// (another rule) and pools that admit nothing (another rule) are not
// reported.
func TestValueExcludedByOtherRequirement(t *testing.T) {
	spec := func(key, op string, vs ...string) requirements.Spec {
		return requirements.Spec{Key: key, Operator: op, Values: vs}
	}
	cat := Embedded()
	fs := Admit([]requirements.Spec{
		spec("karpenter.k8s.aws/instance-family", "In", "m5", "m5d", "r5", "a1", "m6i", "m7g"),
		spec("karpenter.k8s.aws/instance-generation", "Gt", "5"),
	}, cat).Findings().ByRule(ruleValueExcluded.ID)
	if len(fs) != 1 || fs[0].Severity != rules.Warning || fs[0].Path.String() != "requirements[0].values" ||
		!strings.Contains(fs[0].Detail, `"m5", "m5d", "r5", "a1"`) || strings.Contains(fs[0].Detail, `"m6i"`) ||
		!strings.Contains(fs[0].Detail, "requirements[1] (karpenter.k8s.aws/instance-generation Gt [5])") {
		t.Fatalf("got %v", fs)
	}
	// Architecture: only amd64 families listed, arm64 named too.
	fs = Admit([]requirements.Spec{
		spec("kubernetes.io/arch", "In", "amd64", "arm64"),
		spec("karpenter.k8s.aws/instance-family", "In", "m6i", "c6i"),
	}, cat).Findings().ByRule(ruleValueExcluded.ID)
	if len(fs) != 1 || fs[0].Path.String() != "requirements[0].values" || !strings.Contains(fs[0].Detail, `"arm64"`) {
		t.Fatalf("arch: got %v", fs)
	}
	for name, specs := range map[string][]requirements.Spec{
		"all admitted":      {spec("karpenter.k8s.aws/instance-category", "In", "c", "m", "r"), spec("karpenter.k8s.aws/instance-generation", "Gt", "2")},
		"nothing admitted":  {spec("karpenter.k8s.aws/instance-family", "In", "m5"), spec("karpenter.k8s.aws/instance-generation", "Gt", "5")},
		"unknown value":     {spec("karpenter.k8s.aws/instance-family", "In", "m6i", "zz9")},
		"per-type offline":  {spec("karpenter.k8s.aws/instance-family", "In", "m6i", "c6i"), spec("karpenter.k8s.aws/instance-cpu", "Gt", "4")},
		"NotIn not checked": {spec("karpenter.k8s.aws/instance-family", "NotIn", "m5"), spec("karpenter.k8s.aws/instance-generation", "Gt", "5")},
	} {
		if fs := Admit(specs, cat).Findings().ByRule(ruleValueExcluded.ID); len(fs) > 0 {
			t.Errorf("%s: %v", name, fs)
		}
	}
}
