package instancetype

import (
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/requirements"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules/rulestest"
)

// docs/guides/rules.md is generated from the catalogue: every example of
// this category (this package's rules and requirements') must be
// `terraform fmt`-clean HCL in block syntax, and Bad must differ from Good.
func TestRuleExamplesAreHCL(t *testing.T) {
	n := rulestest.CheckExamples(t, requirements.Category)
	if n < 24 {
		t.Errorf("only %d rules in %q", n, requirements.Category)
	}
	t.Logf("%d rule examples checked", n)
}
