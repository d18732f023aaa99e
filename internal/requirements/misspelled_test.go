package requirements

import (
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

func TestMisspelledWellKnownKeys(t *testing.T) {
	v := versions.DefaultKarpenter
	for _, c := range []struct{ key, want string }{
		{"kubernetes.io/archh", "kubernetes.io/arch"},
		{"topology.kubernetes.io/zon", "topology.kubernetes.io/zone"},
		{"node.kubernetes.io/instance-typ", "node.kubernetes.io/instance-type"},
		{"karpenter.sh/capacity-typ", ""}, // a karpenter.sh key is an error, not this warning
		{"kubernetes.io/arch", ""},
		{"example.com/team", ""},
	} {
		fs := Validate([]Spec{{Key: c.key, Operator: "In", Values: []string{"a"}}}, v).ByRule(ruleKeyMisspelled.ID)
		switch {
		case c.want == "" && len(fs) > 0:
			t.Errorf("%s: unexpected %v", c.key, fs)
		case c.want != "" && (len(fs) != 1 || !strings.Contains(fs[0].Detail, `Did you mean "`+c.want+`"?`) || fs[0].Path.String() != "requirements[0].key"):
			t.Errorf("%s: want a did-you-mean %q at requirements[0].key, got %v", c.key, c.want, fs)
		}
	}
}

func TestRestrictedKeysSuggestTheWellKnownOne(t *testing.T) {
	fs := Validate([]Spec{{Key: "karpenter.sh/capacity-typ", Operator: "In", Values: []string{"spot"}}}, versions.DefaultKarpenter)
	if len(fs) != 1 || !strings.Contains(fs[0].Detail, `did you mean "karpenter.sh/capacity-type"?`) {
		t.Errorf("karpenter.sh typo: %v", fs)
	}
	fs = Validate([]Spec{{Key: "kubernetes.io/archh", Operator: "In", Values: []string{"arm64"}}}, versions.Karpenter{Minor: 8})
	if len(fs) != 1 || !strings.Contains(fs[0].Detail, `did you mean "kubernetes.io/arch"?`) {
		t.Errorf("kubernetes.io typo before 1.9: %v", fs)
	}
}
