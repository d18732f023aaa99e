package requirements

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Operator is a node-selector operator as written in a NodePool.
type Operator string

// The operators of the NodePool CRD's enum. Gte and Lte exist from Karpenter
// 1.9.0 (kubernetes-sigs/karpenter#2674).
const (
	In           Operator = "In"
	NotIn        Operator = "NotIn"
	Exists       Operator = "Exists"
	DoesNotExist Operator = "DoesNotExist"
	Gt           Operator = "Gt"
	Lt           Operator = "Lt"
	Gte          Operator = "Gte"
	Lte          Operator = "Lte"
)

// Operators lists the operators in the CRD's order of description.
var Operators = []Operator{In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte}

// IsBound reports whether op compares integers.
func (op Operator) IsBound() bool { return op == Gt || op == Lt || op == Gte || op == Lte }

// Requirement is one key's constraint in Karpenter's canonical form: a value
// set that is either the allowed values (complement false) or the excluded
// ones (complement true), plus optional inclusive integer bounds. Gt N is
// stored as Gte N+1 and Lt N as Lte N-1, as Karpenter does, so requirements
// from different operators compare and intersect directly.
//
// A Requirement is immutable once built; Intersection returns a new one.
type Requirement struct {
	Key        string
	complement bool
	values     map[string]struct{}
	gte, lte   *int
	// MinValues is the requirement's minValues; intersecting two
	// requirements keeps the larger.
	MinValues *int
}

// New builds a requirement. Bound operators need one integer value; a value
// that is not one builds a requirement that matches nothing (Validate reports
// it; Karpenter's CRD rejects it before it gets this far).
func New(key string, op Operator, values ...string) *Requirement {
	return NewWithMinValues(key, op, nil, values...)
}

// NewWithMinValues is New with a minValues.
func NewWithMinValues(key string, op Operator, minValues *int, values ...string) *Requirement {
	key = Normalize(key)
	r := &Requirement{Key: key, MinValues: minValues, values: make(map[string]struct{}, len(values))}
	switch op {
	case In:
		for _, v := range values {
			r.values[v] = struct{}{}
		}
		return r
	case DoesNotExist:
		return r
	case NotIn:
		r.complement = true
		for _, v := range values {
			r.values[v] = struct{}{}
		}
		return r
	case Exists:
		r.complement = true
		return r
	}
	// Bound operators: Exists with bounds.
	r.complement = true
	n, ok := boundValue(values)
	if !ok {
		return NewWithMinValues(key, DoesNotExist, minValues)
	}
	switch op {
	case Gt:
		if n == math.MaxInt {
			// Nothing is greater than MaxInt; n+1 would overflow.
			return NewWithMinValues(key, DoesNotExist, minValues)
		}
		n++
		r.gte = &n
	case Gte:
		r.gte = &n
	case Lt:
		n--
		r.lte = &n
	case Lte:
		r.lte = &n
	default:
		// Not an operator Karpenter knows: nothing can satisfy it.
		return NewWithMinValues(key, DoesNotExist, minValues)
	}
	return r
}

func boundValue(values []string) (int, bool) {
	if len(values) != 1 {
		return 0, false
	}
	n, err := strconv.Atoi(values[0])
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// Operator is the canonical operator of the requirement: bounds are reported
// as Exists (use Bounds to see them), as Karpenter does.
func (r *Requirement) Operator() Operator {
	if r.complement {
		if len(r.values) > 0 {
			return NotIn
		}
		return Exists
	}
	if len(r.values) > 0 {
		return In
	}
	return DoesNotExist
}

// Bounds returns the inclusive integer bounds, nil when unbounded.
func (r *Requirement) Bounds() (gte, lte *int) { return r.gte, r.lte }

// Values returns the allowed values (In) or the excluded ones (NotIn), sorted.
func (r *Requirement) Values() []string { return slices.Sorted(maps.Keys(r.values)) }

// Len is the number of allowed values; a complement is "nearly infinite".
func (r *Requirement) Len() int {
	if r.complement {
		return math.MaxInt64 - len(r.values)
	}
	return len(r.values)
}

// Has reports whether value satisfies the requirement.
func (r *Requirement) Has(value string) bool {
	_, listed := r.values[value]
	if r.complement {
		return !listed && withinBounds(value, r.gte, r.lte)
	}
	return listed && withinBounds(value, r.gte, r.lte)
}

// Intersection is the requirement both r and o impose.
func (r *Requirement) Intersection(o *Requirement) *Requirement {
	complement := r.complement && o.complement
	gte := maxPtr(r.gte, o.gte)
	lte := minPtr(r.lte, o.lte)
	minValues := maxPtr(r.MinValues, o.MinValues)
	if gte != nil && lte != nil && *gte > *lte {
		return NewWithMinValues(r.Key, DoesNotExist, minValues)
	}
	var values map[string]struct{}
	switch {
	case r.complement && o.complement:
		values = union(r.values, o.values)
	case r.complement:
		values = difference(o.values, r.values)
	case o.complement:
		values = difference(r.values, o.values)
	default:
		values = intersect(r.values, o.values)
	}
	for v := range values {
		if !withinBounds(v, gte, lte) {
			delete(values, v)
		}
	}
	// A concrete value set already honours the bounds.
	if !complement {
		gte, lte = nil, nil
	}
	return &Requirement{Key: r.Key, complement: complement, values: values, gte: gte, lte: lte, MinValues: minValues}
}

// HasIntersection reports whether some value satisfies both requirements,
// without building the intersection (the matcher's hot path).
func (r *Requirement) HasIntersection(o *Requirement) bool {
	gte := maxPtr(r.gte, o.gte)
	lte := minPtr(r.lte, o.lte)
	if gte != nil && lte != nil && *gte > *lte {
		return false
	}
	switch {
	case r.complement && o.complement:
		return true
	case r.complement:
		for v := range o.values {
			if _, ex := r.values[v]; !ex && withinBounds(v, gte, lte) {
				return true
			}
		}
		return false
	case o.complement:
		for v := range r.values {
			if _, ex := o.values[v]; !ex && withinBounds(v, gte, lte) {
				return true
			}
		}
		return false
	}
	for v := range r.values {
		if _, ok := o.values[v]; ok && withinBounds(v, gte, lte) {
			return true
		}
	}
	return false
}

// String renders the requirement as Karpenter's messages do, e.g.
// "kubernetes.io/arch In [amd64 arm64]" or "karpenter.k8s.aws/instance-cpu Exists >=5".
func (r *Requirement) String() string {
	var b strings.Builder
	op := r.Operator()
	b.WriteString(r.Key + " " + string(op))
	if op == In || op == NotIn {
		vs := r.Values()
		if n := len(vs); n > 5 {
			vs = append(vs[:5:5], fmt.Sprintf("and %d others", n-5))
		}
		b.WriteString(" [" + strings.Join(vs, " ") + "]")
	}
	if r.gte != nil {
		fmt.Fprintf(&b, " >=%d", *r.gte)
	}
	if r.lte != nil {
		fmt.Fprintf(&b, " <=%d", *r.lte)
	}
	if r.MinValues != nil {
		fmt.Fprintf(&b, " minValues %d", *r.MinValues)
	}
	return b.String()
}

// withinBounds: with bounds set, only integers inside them qualify, so a
// bound on a label with non-numeric values matches nothing.
func withinBounds(v string, gte, lte *int) bool {
	if gte == nil && lte == nil {
		return true
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return false
	}
	return (gte == nil || n >= *gte) && (lte == nil || n <= *lte)
}

func maxPtr(a, b *int) *int {
	if a == nil {
		return b
	}
	if b == nil || *a > *b {
		return a
	}
	return b
}

func minPtr(a, b *int) *int {
	if a == nil {
		return b
	}
	if b == nil || *a < *b {
		return a
	}
	return b
}

func union(a, b map[string]struct{}) map[string]struct{} {
	out := make(map[string]struct{}, len(a)+len(b))
	for v := range a {
		out[v] = struct{}{}
	}
	for v := range b {
		out[v] = struct{}{}
	}
	return out
}

func difference(a, b map[string]struct{}) map[string]struct{} {
	out := make(map[string]struct{}, len(a))
	for v := range a {
		if _, ok := b[v]; !ok {
			out[v] = struct{}{}
		}
	}
	return out
}

func intersect(a, b map[string]struct{}) map[string]struct{} {
	out := map[string]struct{}{}
	for v := range a {
		if _, ok := b[v]; ok {
			out[v] = struct{}{}
		}
	}
	return out
}
