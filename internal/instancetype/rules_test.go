package instancetype

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/requirements"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// docs/guides/rules.md is generated from the catalogue: every example of
// this category must be HCL, and Bad must differ from Good.
func TestRuleExamplesAreHCL(t *testing.T) {
	n := 0
	for _, r := range rules.All() {
		if r.Category != requirements.Category {
			continue
		}
		n++
		for name, src := range map[string]string{"bad": r.Bad, "good": r.Good} {
			if _, diags := hclsyntax.ParseConfig([]byte(src), r.ID+"."+name+".tf", hcl.InitialPos); diags.HasErrors() {
				t.Errorf("%s %s example: %s\n%s", r.ID, name, diags.Error(), src)
			}
		}
		if strings.TrimSpace(r.Bad) == strings.TrimSpace(r.Good) {
			t.Errorf("%s: bad and good examples are the same", r.ID)
		}
	}
	if n < 24 {
		t.Errorf("only %d rules in %q", n, requirements.Category)
	}
	t.Logf("%d rule examples parsed", n)
}
