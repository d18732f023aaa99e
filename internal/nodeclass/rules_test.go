package nodeclass

import (
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules/rulestest"
)

// The rules guide is generated from the catalogue: the examples are HCL a
// reader copies, in block syntax and `terraform fmt` layout.
func TestRuleExamplesAreFormattedBlocks(t *testing.T) {
	if n := rulestest.CheckExamples(t, category); n < 20 {
		t.Fatalf("only %d rules checked", n)
	}
}
