package provider

import (
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

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

	// The default release: terraform validate showed its warnings; one run.
	got := planFindings(versions.DefaultKarpenter, validate)
	if len(got) != 1 || got[0].String() != errBoth.String() {
		t.Errorf("default release: %v, want only the error", got)
	}
	if calls[versions.DefaultKarpenter] != 1 {
		t.Errorf("default release validated %d times, want once", calls[versions.DefaultKarpenter])
	}

	// Another release: its own warnings too, and the errors.
	got = planFindings(old, validate)
	if len(got) != 2 || got[0].String() != warnOld.String() || got[1].String() != errBoth.String() {
		t.Errorf("karpenter 1.3: %v, want its own warning and the error", got)
	}
}
