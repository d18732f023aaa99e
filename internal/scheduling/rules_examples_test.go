package scheduling_test

import (
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules/rulestest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling/schedulingtest"
)

// exampleInput reads the karpenter_scheduling block of a docs example;
// ok is false when the example is about the provider block (the
// provider's tests plan those).
func exampleInput(t *testing.T, src string) (in scheduling.Input, ok bool) {
	t.Helper()
	f, diags := hclsyntax.ParseConfig([]byte(src), "example.tf", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("not HCL: %s\n%s", diags.Error(), src)
	}
	for _, b := range f.Body.(*hclsyntax.Body).Blocks {
		if b.Type == "provider" {
			return in, false
		}
		if b.Type != "data" || b.Labels[0] != "karpenter_scheduling" {
			t.Fatalf("unexpected block %s %v", b.Type, b.Labels)
		}
		list := func(name string) []string {
			a, ok := b.Body.Attributes[name]
			if !ok {
				return nil
			}
			v, diags := a.Expr.Value(nil)
			if diags.HasErrors() {
				t.Fatalf("%s: %s", name, diags.Error())
			}
			var out []string
			for it := v.ElementIterator(); it.Next(); {
				_, e := it.Element()
				if e.Type() != cty.String {
					t.Fatalf("%s holds a %s", name, e.Type().FriendlyName())
				}
				out = append(out, e.AsString())
			}
			return out
		}
		in = scheduling.Input{NodePools: list("node_pools"), NodeClasses: list("node_classes"), Workloads: list("workloads"),
			AllowUnschedulable: list("allow_unschedulable")}
		if a, ok := b.Body.Attributes["cluster_state"]; ok {
			v, diags := a.Expr.Value(nil)
			if diags.HasErrors() || v.Type() != cty.String {
				t.Fatalf("cluster_state: %s", diags.Error())
			}
			in.ClusterState = v.AsString()
		}
	}
	return in, true
}

// TestRuleExamples: every scheduling rule's Bad example, decided on the
// emulator's facts, triggers the rule; its Good example triggers none.
func TestRuleExamples(t *testing.T) {
	if n := rulestest.CheckExamples(t, scheduling.Category); n < 5 {
		t.Fatalf("only %d scheduling rules", n)
	}
	e := schedulingtest.Start(t, nil)
	for _, r := range rules.All() {
		if r.Category != scheduling.Category {
			continue
		}
		bad, ok := exampleInput(t, r.Bad)
		if !ok {
			continue
		}
		good, _ := exampleInput(t, r.Good)
		if fs := e.Decide(t, bad).Findings; !hasRule(fs, r.ID) {
			t.Errorf("%s: the Bad example does not trigger it: %v", r.ID, fs)
		}
		if fs := e.Decide(t, good).Findings; len(fs) > 0 {
			t.Errorf("%s: the Good example has findings: %v", r.ID, fs)
		}
	}
}

func hasRule(fs []scheduling.Finding, id string) bool {
	for _, f := range fs {
		if f.Rule.ID == id {
			return true
		}
	}
	return false
}
