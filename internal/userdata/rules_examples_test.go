package userdata

import (
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules/rulestest"
)

// The rules guide is generated from the catalogue: the examples are HCL a
// reader copies, in block syntax and `terraform fmt` layout, with the
// userData in heredocs.
func TestRuleExamplesAreFormattedBlocks(t *testing.T) {
	if n := rulestest.CheckExamples(t, category); n < 30 {
		t.Fatalf("only %d rules checked", n)
	}
}
