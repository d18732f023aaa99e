package rules

import "strings"

// Unknowns is the set of attribute paths whose value is not known yet (a
// Terraform plan before the values they depend on exist). Checks consult it
// and skip what they cannot decide: unknown values are re-checked at apply,
// never failed.
type Unknowns map[string]bool

// Add marks p unknown.
func (u Unknowns) Add(p Path) { u[p.String()] = true }

// Is reports whether p, or an attribute containing it, is unknown: a check
// of the value at p must be skipped.
func (u Unknowns) Is(p Path) bool {
	if len(u) == 0 {
		return false
	}
	for i := len(p.steps); i > 0; i-- {
		if u[Path{steps: p.steps[:i]}.String()] {
			return true
		}
	}
	return false
}

// Within reports whether anything at or below p, or an attribute containing
// p, is unknown: a check that reads the whole object at p must be skipped.
func (u Unknowns) Within(p Path) bool {
	if u.Is(p) {
		return true
	}
	prefix := p.String()
	for k := range u {
		if prefix == "" || strings.HasPrefix(k, prefix+".") || strings.HasPrefix(k, prefix+"[") {
			return true
		}
	}
	return false
}
