package rulestest

import "github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"

// FixWrites reports whether f's fix writes value at field (a path in
// Finding.Path's naming, e.g. `ami_family` or `limits["memory"]`), as one
// of its changes or alternatives; value "" matches a removal of field.
func FixWrites(f rules.Finding, field, value string) bool {
	if f.Fix == nil {
		return false
	}
	for _, c := range append(f.FixChanges(), f.Fix.Or...) {
		if c.Field.String() == field && c.Value == value && c.Remove == (value == "") {
			return true
		}
	}
	return false
}
