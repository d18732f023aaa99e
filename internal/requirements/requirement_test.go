package requirements

import (
	"math"
	"strconv"
	"testing"
)

// The fixtures of upstream's requirement_test.go / requirements_test.go
// (kubernetes-sigs/karpenter v1.14.1 pkg/scheduling), in upstream's order.
var fixtureNames = []string{"exists", "doesNotExist", "inA", "inB", "inAB", "notInA", "in1", "in9", "in19", "notIn12", "greaterThan1", "greaterThan9", "lessThan1", "lessThan9"}

func fixtures(key string, minValues *int) map[string]*Requirement {
	n := func(op Operator, vs ...string) *Requirement { return NewWithMinValues(key, op, minValues, vs...) }
	return map[string]*Requirement{
		"exists":       n(Exists),
		"doesNotExist": n(DoesNotExist),
		"inA":          n(In, "A"),
		"inB":          n(In, "B"),
		"inAB":         n(In, "A", "B"),
		"notInA":       n(NotIn, "A"),
		"in1":          n(In, "1"),
		"in9":          n(In, "9"),
		"in19":         n(In, "1", "9"),
		"notIn12":      n(NotIn, "1", "2"),
		"greaterThan1": n(Gt, "1"),
		"greaterThan9": n(Gt, "9"),
		"lessThan1":    n(Lt, "1"),
		"lessThan9":    n(Lt, "9"),
	}
}

// probe values: the fixture values, their neighbours, and non-numbers.
var probes = []string{"A", "B", "C", "", "0", "1", "2", "5", "8", "9", "10", "11", "100", "-1", "1a"}

// Has must agree with the operator's meaning (upstream's "Has" table plus
// the boundaries around every bound).
func TestHas(t *testing.T) {
	want := map[string]func(v string) bool{
		"exists":       func(string) bool { return true },
		"doesNotExist": func(string) bool { return false },
		"inA":          func(v string) bool { return v == "A" },
		"inB":          func(v string) bool { return v == "B" },
		"inAB":         func(v string) bool { return v == "A" || v == "B" },
		"notInA":       func(v string) bool { return v != "A" },
		"in1":          func(v string) bool { return v == "1" },
		"in9":          func(v string) bool { return v == "9" },
		"in19":         func(v string) bool { return v == "1" || v == "9" },
		"notIn12":      func(v string) bool { return v != "1" && v != "2" },
		"greaterThan1": intPred(func(n int) bool { return n > 1 }),
		"greaterThan9": intPred(func(n int) bool { return n > 9 }),
		"lessThan1":    intPred(func(n int) bool { return n < 1 }),
		"lessThan9":    intPred(func(n int) bool { return n < 9 }),
	}
	for name, r := range fixtures("key", nil) {
		for _, v := range probes {
			if got := r.Has(v); got != want[name](v) {
				t.Errorf("%s.Has(%q) = %v, want %v", name, v, got, !got)
			}
		}
	}
}

func intPred(f func(int) bool) func(string) bool {
	return func(v string) bool {
		n, err := strconv.Atoi(v)
		return err == nil && f(n)
	}
}

// Intersection must admit exactly what both sides admit, for every pair of
// upstream's fixtures, with and without minValues; HasIntersection must say
// whether that is anything.
func TestIntersectionIsConjunction(t *testing.T) {
	one, two := 1, 2
	for _, mv := range [][2]*int{{nil, nil}, {&one, nil}, {&one, &two}} {
		left, right := fixtures("key", mv[0]), fixtures("key", mv[1])
		for _, a := range fixtureNames {
			for _, b := range fixtureNames {
				ra, rb := left[a], right[b]
				got := ra.Intersection(rb)
				for _, v := range probes {
					if got.Has(v) != (ra.Has(v) && rb.Has(v)) {
						t.Errorf("%s ∩ %s: Has(%q) = %v, want %v", a, b, v, got.Has(v), !got.Has(v))
					}
				}
				if nonEmpty := got.Operator() != DoesNotExist; ra.HasIntersection(rb) != nonEmpty {
					t.Errorf("%s.HasIntersection(%s) = %v, but the intersection is %s", a, b, ra.HasIntersection(rb), got)
				}
				if wantMV := maxPtr(ra.MinValues, rb.MinValues); !samePtr(got.MinValues, wantMV) {
					t.Errorf("%s ∩ %s: minValues %v, want the larger of both", a, b, got.MinValues)
				}
			}
		}
	}
}

func samePtr(a, b *int) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// Specific results of upstream's intersection table and String table.
func TestIntersectionCanonicalForms(t *testing.T) {
	f := fixtures("key", nil)
	cases := []struct {
		got  *Requirement
		want string
	}{
		{f["notInA"].Intersection(f["notIn12"]), "key NotIn [1 2 A]"},
		{f["exists"].Intersection(f["greaterThan1"]), "key Exists >=2"},
		{f["greaterThan1"].Intersection(f["lessThan9"]), "key Exists >=2 <=8"},
		{f["greaterThan9"].Intersection(f["lessThan1"]), "key DoesNotExist"},
		{f["in19"].Intersection(f["greaterThan1"]), "key In [9]"},
		{f["inAB"].Intersection(f["notInA"]), "key In [B]"},
		{f["inA"].Intersection(f["greaterThan1"]), "key DoesNotExist"},
		{f["notIn12"].Intersection(f["lessThan9"]), "key NotIn [1 2] <=8"},
		{New("key", Gt, "4").Intersection(New("key", Gte, "5")), "key Exists >=5"},
		{New("key", Gt, "5").Intersection(New("key", Gte, "5")), "key Exists >=6"},
		{New("key", Lt, "5").Intersection(New("key", Lte, "5")), "key Exists <=4"},
		{New("key", Lt, "9").Intersection(New("key", Lte, "5")), "key Exists <=5"},
		{New("key", Gt, strconv.Itoa(math.MaxInt)), "key DoesNotExist"},
		{New("key", In, "a", "b", "c", "d", "e", "f", "g"), "key In [a b c d e and 2 others]"},
		{NewWithMinValues("key", In, ptr(2), "a", "b"), "key In [a b] minValues 2"},
	}
	for _, c := range cases {
		if s := c.got.String(); s != c.want {
			t.Errorf("got %q, want %q", s, c.want)
		}
	}
}

func TestOperatorAndLen(t *testing.T) {
	f := fixtures("key", nil)
	cases := map[string]struct {
		op  Operator
		len int
	}{
		"exists": {Exists, math.MaxInt64}, "doesNotExist": {DoesNotExist, 0},
		"inA": {In, 1}, "inAB": {In, 2}, "notInA": {NotIn, math.MaxInt64 - 1}, "notIn12": {NotIn, math.MaxInt64 - 2},
		"greaterThan1": {Exists, math.MaxInt64}, "lessThan9": {Exists, math.MaxInt64},
	}
	for name, want := range cases {
		if got := f[name]; got.Operator() != want.op || got.Len() != want.len {
			t.Errorf("%s: operator %s len %d, want %s %d", name, got.Operator(), got.Len(), want.op, want.len)
		}
	}
}

func TestGteLteMatchAdjustedGtLt(t *testing.T) {
	pairs := [][2]*Requirement{
		{New("key", Gte, "2"), New("key", Gt, "1")},
		{New("key", Lte, "8"), New("key", Lt, "9")},
		{New("key", Gte, "0"), New("key", Exists)},
	}
	for _, p := range pairs {
		for _, v := range []string{"0", "1", "2", "3", "8", "9", "10"} {
			if p[0].Has(v) != p[1].Has(v) {
				t.Errorf("%s and %s disagree on %q", p[0], p[1], v)
			}
		}
	}
	if New("key", Lte, "0").Has("1") || !New("key", Lte, "0").Has("0") {
		t.Error("Lte 0 boundary")
	}
}

// Bounds built from something other than one non-negative integer match
// nothing (the CRD rejects them; Validate reports them).
func TestMalformedBoundsMatchNothing(t *testing.T) {
	for _, vs := range [][]string{{}, {"x"}, {"1", "2"}, {"-3"}, {"4.5"}} {
		for _, op := range []Operator{Gt, Lt, Gte, Lte} {
			if r := New("key", op, vs...); r.Operator() != DoesNotExist {
				t.Errorf("%s %v built %s", op, vs, r)
			}
		}
	}
	if r := New("key", Operator("Like"), "x"); r.Operator() != DoesNotExist {
		t.Errorf("unknown operator built %s", r)
	}
}

func TestNormalizesDeprecatedKeys(t *testing.T) {
	reqs := NewRequirements(New("beta.kubernetes.io/arch", In, "arm64"), New(LabelArch, In, "arm64", "amd64"))
	if reqs.Has("beta.kubernetes.io/arch") || !reqs.Get(LabelArch).Has("arm64") || reqs.Get(LabelArch).Has("amd64") {
		t.Fatalf("aliases must merge into %s: %s", LabelArch, reqs)
	}
	if Normalize("failure-domain.beta.kubernetes.io/zone") != LabelZone {
		t.Fatal("zone alias")
	}
}

func ptr(i int) *int { return &i }
