package objectmeta

import (
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		name              string
		labels, annots    map[string]string
		rule, path, parts string
	}{
		{"ok", map[string]string{"team": "data"}, map[string]string{"kubernetes.io/description": "General purpose", "meta.helm.sh/release-name": "karpenter", "argocd.argoproj.io/sync-wave": "1"}, "", "", ""},
		{"label value", map[string]string{"team": "data science"}, nil, ruleInvalid.ID, `metadata.labels["team"]`, "data science"},
		{"label key", map[string]string{"bad key": "x"}, nil, ruleInvalid.ID, `metadata.labels["bad key"]`, "name part must consist"},
		{"annotation key", nil, map[string]string{"/x": "y"}, ruleInvalid.ID, `metadata.annotations["/x"]`, "prefix part"},
		{"annotations too large", nil, map[string]string{"example.com/a": strings.Repeat("x", 256*1024+1)}, ruleInvalid.ID, "metadata.annotations", "Too long"},
		{"hash annotation", nil, map[string]string{"karpenter.k8s.aws/ec2nodeclass-hash": "1"}, ruleKarpenterOwned.ID, `metadata.annotations["karpenter.k8s.aws/ec2nodeclass-hash"]`, "Karpenter owns"},
		{"karpenter.sh label", map[string]string{"karpenter.sh/nodepool": "x"}, nil, ruleKarpenterOwned.ID, `metadata.labels["karpenter.sh/nodepool"]`, "example.com/nodepool"},
		{"subdomain", nil, map[string]string{"x.karpenter.sh/y": "1"}, ruleKarpenterOwned.ID, `metadata.annotations["x.karpenter.sh/y"]`, "karpenter.sh domain"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := Validate(c.labels, c.annots)
			if c.rule == "" {
				if len(fs) > 0 {
					t.Fatalf("unexpected %v", fs)
				}
				return
			}
			if len(fs) != 1 || fs[0].Rule.ID != c.rule || fs[0].Path.String() != c.path || !strings.Contains(fs[0].Detail, c.parts) {
				t.Fatalf("got %v, want one %s at %s containing %q", fs, c.rule, c.path, c.parts)
			}
		})
	}
}
