package node

import (
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules/rulestest"
)

// The examples' form; the provider's acceptance test plans them.
func TestRuleExamples(t *testing.T) {
	if n := rulestest.CheckExamples(t, Category); n != 7 {
		t.Errorf("%d rules", n)
	}
}
