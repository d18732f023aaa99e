package provider

import (
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// ValidateConfig reports errors only (Terraform calls it in both walks of
// terraform plan); the plan reports every finding of the configured
// release, warnings included, from one validation: each warning once.
func TestPlanFindings(t *testing.T) {
	rule := &rules.Rule{ID: "test-rule", Severity: rules.Error, Title: "test"}
	warnOld := rules.New(rule, rules.Root("a"), "only with the old release").AsWarning()
	warnBoth := rules.New(rule, rules.Root("b"), "with every release").AsWarning()
	errBoth := rules.New(rule, rules.Root("c"), "an error")
	old := versions.Karpenter{Minor: 3, Patch: -1}
	calls := map[versions.Karpenter]int{}
	validate := func(kv versions.Karpenter) rules.Findings {
		calls[kv]++
		if kv == old {
			return rules.Findings{warnOld, warnBoth, errBoth}
		}
		return rules.Findings{warnBoth, errBoth}
	}
	for _, c := range []struct {
		kv   versions.Karpenter
		want rules.Findings
	}{
		{versions.DefaultKarpenter, rules.Findings{warnBoth, errBoth}},
		{old, rules.Findings{warnOld, warnBoth, errBoth}},
	} {
		got := planFindings(c.kv, validate)
		if len(got) != len(c.want) {
			t.Fatalf("%v: %v, want %v", c.kv, got, c.want)
		}
		for i := range got {
			if got[i].String() != c.want[i].String() {
				t.Errorf("%v: finding %d is %v, want %v", c.kv, i, got[i], c.want[i])
			}
		}
		if calls[c.kv] != 1 {
			t.Errorf("%v validated %d times, want once", c.kv, calls[c.kv])
		}
	}
}
