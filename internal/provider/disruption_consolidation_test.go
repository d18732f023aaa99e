package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/disruption"
)

// The consolidation attribute's value: null when not decided, an empty
// list with no command, and each command's fields (a delete has no
// replacement: null pool and price, no instance types).
func TestConsolidationValue(t *testing.T) {
	if l, d := consolidationValue(nil); d.HasError() || !l.IsNull() {
		t.Errorf("nil: %v %v", l, d)
	}
	if l, d := consolidationValue(&disruption.Consolidation{}); d.HasError() || l.IsNull() || len(l.Elements()) != 0 {
		t.Errorf("no command: %v %v", l, d)
	}
	c := &disruption.Consolidation{Commands: []disruption.Command{
		{Method: "empty", Reason: "Empty", Decision: "delete", Pools: []string{"general"}, Savings: 0.192,
			Candidates: []disruption.Candidate{{NodeClaim: "general-a", Node: "a", Pool: "general", Price: 0.192}}},
		{Method: "multi", Reason: "Underutilized", Decision: "replace", Pools: []string{"general"}, Savings: 0.299, PodsMoved: 2,
			Candidates:   []disruption.Candidate{{NodeClaim: "general-b", Node: "b"}, {NodeClaim: "general-c", Node: "c"}},
			Replacements: []disruption.Replacement{{Pool: "general", InstanceTypes: []string{"c5.large", "m5.large"}, Options: 2, Price: 0.085}}},
	}}
	l, d := consolidationValue(c)
	if d.HasError() {
		t.Fatal(d)
	}
	var got []consolidationCommand
	if d := l.ElementsAs(context.Background(), &got, false); d.HasError() || len(got) != 2 {
		t.Fatalf("%v %v", d, got)
	}
	del, rep := got[0], got[1]
	if del.Method != "empty" || del.Decision != "delete" || del.ReplacementNodePool != nil || del.ReplacementPrice != nil ||
		len(del.ReplacementInstanceTypes) != 0 || del.SavingsPerHour != 0.192 || len(del.Nodes) != 1 || del.Nodes[0] != "a" || del.NodeClaims[0] != "general-a" {
		t.Errorf("delete: %+v", del)
	}
	if rep.Reason != "Underutilized" || rep.ReplacementNodePool == nil || *rep.ReplacementNodePool != "general" || *rep.ReplacementPrice != 0.085 ||
		len(rep.ReplacementInstanceTypes) != 2 || rep.PodsMoved != 2 || len(rep.Nodes) != 2 || rep.Nodes[1] != "c" {
		t.Errorf("replace: %+v", rep)
	}
	// The schema declares the types the value is built with.
	a := consolidationAttribute()
	schemaTypes := a.NestedObject.Type().(types.ObjectType).AttrTypes
	if !a.Computed || len(schemaTypes) != len(consolidationAttrTypes) {
		t.Fatalf("schema: %d attributes for %d types", len(schemaTypes), len(consolidationAttrTypes))
	}
	for name, ty := range consolidationAttrTypes {
		if !schemaTypes[name].Equal(ty) {
			t.Errorf("%s: schema %v, value %v", name, schemaTypes[name], ty)
		}
	}
}
