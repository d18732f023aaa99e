package requirements

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// Requirements is a set of requirements keyed by label. Adding a second
// requirement on a key intersects it with the first, as Karpenter does when
// a NodePool lists a key twice or a label meets a requirement.
type Requirements map[string]*Requirement

// NewRequirements builds a set from requirements.
func NewRequirements(rs ...*Requirement) Requirements {
	out := make(Requirements, len(rs))
	out.Add(rs...)
	return out
}

// Add intersects each requirement into the set (mutates r).
func (r Requirements) Add(rs ...*Requirement) {
	for _, req := range rs {
		if existing, ok := r[req.Key]; ok {
			req = req.Intersection(existing)
		}
		r[req.Key] = req
	}
}

// Has reports whether the set constrains key.
func (r Requirements) Has(key string) bool {
	_, ok := r[key]
	return ok
}

// Get returns the requirement on key; an unconstrained key allows anything
// (Exists), as in Karpenter.
func (r Requirements) Get(key string) *Requirement {
	if req, ok := r[key]; ok {
		return req
	}
	return New(key, Exists)
}

// Keys returns the constrained keys, sorted.
func (r Requirements) Keys() []string { return slices.Sorted(maps.Keys(r)) }

// HasMinValues reports whether any requirement carries minValues.
func (r Requirements) HasMinValues() bool {
	for _, req := range r {
		if req.MinValues != nil {
			return true
		}
	}
	return false
}

// CompatOption tunes Compatible.
type CompatOption func(*compatOptions)

type compatOptions struct {
	allowUndefined func(string) bool
}

// Compatible reports (as an error naming the first offending key) whether
// the incoming requirements can be met by r. Keys of incoming that r does
// not define are incompatible unless incoming only excludes values (NotIn,
// DoesNotExist) or the lenient option allows the well-known label.
func (r Requirements) Compatible(incoming Requirements, opts ...CompatOption) error {
	var o compatOptions
	for _, opt := range opts {
		opt(&o)
	}
	for _, key := range incoming.Keys() {
		if o.allowUndefined != nil && o.allowUndefined(key) {
			continue
		}
		if op := incoming[key].Operator(); r.Has(key) || op == NotIn || op == DoesNotExist {
			continue
		}
		return fmt.Errorf("label %q does not have known values%s", key, labelHint(r, key, o.allowUndefined != nil))
	}
	return r.Intersects(incoming)
}

// IsCompatible is Compatible as a bool.
func (r Requirements) IsCompatible(incoming Requirements, opts ...CompatOption) bool {
	return r.Compatible(incoming, opts...) == nil
}

// Intersects reports, for the keys both sets define, whether their values
// overlap; keys only one side defines are ignored. Two requirements that
// only exclude values never conflict. This is Karpenter's instance-type
// filter (scheduling/nodeclaim.go compatible).
func (r Requirements) Intersects(incoming Requirements) error {
	var errs []error
	for _, key := range r.intersectKeys(incoming) {
		existing, in := r[key], incoming[key]
		if existing.HasIntersection(in) {
			continue
		}
		if excludesOnly(in) && excludesOnly(existing) {
			continue
		}
		errs = append(errs, fmt.Errorf("key %s, %s not in %s", key, in, existing))
	}
	return errors.Join(errs...)
}

// Overlaps is Intersects == nil without building errors: the matcher's hot
// path (an instance type's labels against a NodePool's requirements).
func (r Requirements) Overlaps(incoming Requirements) bool {
	small, large := r, incoming
	if len(small) > len(large) {
		small, large = large, small
	}
	for key, a := range small {
		b, ok := large[key]
		if !ok || a.HasIntersection(b) {
			continue
		}
		if excludesOnly(a) && excludesOnly(b) {
			continue
		}
		return false
	}
	return true
}

func excludesOnly(r *Requirement) bool {
	op := r.Operator()
	return op == NotIn || op == DoesNotExist
}

func (r Requirements) intersectKeys(o Requirements) []string {
	var keys []string
	for k := range r {
		if _, ok := o[k]; ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// labelHint suggests the well-known or defined label a mistyped key meant,
// as Karpenter's "(typo of %q?)" does.
func labelHint(r Requirements, key string, wellKnownToo bool) string {
	suffix := key
	if _, after, ok := strings.Cut(key, "/"); ok {
		suffix = after
	}
	var candidates []string
	if wellKnownToo {
		candidates = WellKnownLabels()
	}
	candidates = append(candidates, r.Keys()...)
	// Upstream walks an unordered set; we prefer a label with exactly the
	// same name part, so the hint is stable ("zone" → topology.kubernetes.io/zone,
	// not topology.k8s.aws/zone-id).
	for _, c := range candidates {
		if _, name, ok := strings.Cut(c, "/"); ok && name == suffix {
			return fmt.Sprintf(" (typo of %q?)", c)
		}
	}
	for _, c := range candidates {
		if strings.Contains(c, key) || strings.HasSuffix(c, suffix) {
			return fmt.Sprintf(" (typo of %q?)", c)
		}
	}
	return ""
}

// String renders the set sorted by key, e.g. for diagnostics.
func (r Requirements) String() string {
	parts := make([]string, 0, len(r))
	for _, k := range r.Keys() {
		parts = append(parts, r[k].String())
	}
	return strings.Join(parts, ", ")
}
