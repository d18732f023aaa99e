package requirements

// Spec is one NodePool requirement as the user wrote it
// ({key, operator, values, min_values}), before validation.
type Spec struct {
	Key       string
	Operator  string
	Values    []string
	MinValues *int
	// Unknown marks parts whose value Terraform does not know yet (plan);
	// checks that need them are skipped, never failed. Values holds the
	// known elements when only some are unknown.
	Unknown Unknown
}

// Unknown flags the parts of a Spec that are not known yet.
type Unknown struct {
	Key, Operator, Values, MinValues bool
}

// Any reports whether some part is unknown.
func (u Unknown) Any() bool { return u.Key || u.Operator || u.Values || u.MinValues }

// Requirement builds the requirement; ok is false when a part is unknown.
// Build only validated specs: an operator Karpenter does not know, or a bound
// without one non-negative integer, yields a requirement that matches
// nothing.
func (s Spec) Requirement() (*Requirement, bool) {
	if s.Unknown.Any() {
		return nil, false
	}
	return NewWithMinValues(s.Key, Operator(s.Operator), s.MinValues, s.Values...), true
}

// FromSpecs builds the NodePool's requirement set. Specs with unknown parts
// are left out, which only widens the set; complete reports whether any was.
func FromSpecs(specs []Spec) (reqs Requirements, complete bool) {
	reqs = make(Requirements, len(specs))
	complete = true
	for _, s := range specs {
		r, ok := s.Requirement()
		if !ok {
			complete = false
			continue
		}
		reqs.Add(r)
	}
	return reqs, complete
}
