package instancetype

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/requirements"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// Admission answers which instance types a NodePool's requirements let
// Karpenter launch, and what of the question could not be decided.
type Admission struct {
	// Source says which catalogue served; Note why (see Catalogue.Note).
	Source Source
	Note   string
	// Families admitted, sorted; Facts holds their facts from the source.
	Families []string
	Facts    map[string]Family
	// Architectures admitted, sorted; ByArch lists the families per
	// architecture, sorted.
	Architectures []string
	ByArch        map[string][]string
	// Types admitted, sorted by name; live only (offline types have no
	// vCPU/memory figures, so listing them would mislead). Shared with
	// every admission of the same requirement set (read only).
	Types []Type
	// Unknown are requirement values that name no type, family, size,
	// category, architecture, OS or GPU manufacturer of the catalogue (e.g.
	// "g5g.medium").
	Unknown []UnknownValue
	// Undecided are the constrained keys this source cannot evaluate per
	// type; the admission treats them as "may match", so it is a superset.
	Undecided []string
	// MinValues are min_values requirements the admitted types cannot meet.
	MinValues []MinValuesShortfall
	// Complete is false when some requirement had unknown parts and was
	// left out (the admission is then a superset too).
	Complete bool

	specs    []requirements.Spec
	extra    []*requirements.Requirement
	cat      *Catalogue
	admitted []Type
}

// Admitted returns every admitted type of the source, sorted by name.
// Offline these carry family-level labels only (architecture, GPU and
// accelerator kind as Exists/DoesNotExist, names, sizes), which is enough
// for strict AMI-variant matching (requirements.Requirements.Compatible
// against an image's requirements) per family.
// The list is shared with every admission of the same requirement set:
// read only.
func (a Admission) Admitted() []Type { return a.admitted }

// UnknownValue is a requirement value that names nothing in the catalogue.
type UnknownValue struct {
	Index int // index of the requirement in the specs; -1 for extra requirements
	Key   string
	Value string
	Hint  string // " (did you mean ...?)" or ""
}

// MinValuesShortfall is a min_values the admitted types cannot satisfy:
// they cover only Got distinct values of Key.
type MinValuesShortfall struct {
	Key       string
	Want, Got int
}

// Admit evaluates NodePool requirements (as written) against a catalogue.
// extra requirements are intersected in: a NodePool's template labels
// (as In requirements) or what its EC2NodeClass implies (e.g.
// kubernetes.io/os In [windows]). Call it on validated specs.
func Admit(specs []requirements.Spec, cat *Catalogue, extra ...*requirements.Requirement) Admission {
	reqs, complete := requirements.FromSpecs(specs)
	reqs.Add(extra...)
	a := AdmitRequirements(reqs, cat)
	a.Complete = complete
	a.specs, a.extra, a.cat = specs, extra, cat
	a.Unknown = unknownValues(specs, cat)
	return a
}

// AdmitRequirements is Admit for an already merged requirement set (no
// unknown-value detection: merging has dropped the values as written).
// Answers are remembered per catalogue: a plan asks the same question for
// every pool with the same requirements, in validate and again in plan, and
// one answer over the embedded table costs about a millisecond.
func AdmitRequirements(reqs requirements.Requirements, cat *Catalogue) Admission {
	if cat.memo == nil {
		return admitRequirements(reqs, cat)
	}
	key := memoKey(reqs)
	a, ok := cat.memo.get(key)
	if !ok {
		a = admitRequirements(reqs, cat)
		cat.memo.put(key, a)
	}
	a = a.clone()
	a.Source, a.Note = cat.Source, cat.Note // copies of a catalogue share the memo
	return a
}

func admitRequirements(reqs requirements.Requirements, cat *Catalogue) Admission {
	a := Admission{Source: cat.Source, Note: cat.Note, Facts: map[string]Family{}, ByArch: map[string][]string{}, Complete: true}
	var admitted []Type
	if !boundOnNonNumeric(reqs) {
		for _, t := range cat.types {
			if t.labels.Overlaps(reqs) {
				admitted = append(admitted, t)
			}
		}
	}
	archFamilies := map[string]map[string]bool{}
	for _, t := range admitted {
		if _, ok := a.Facts[t.Family]; !ok {
			a.Facts[t.Family] = cat.families[t.Family]
			a.Families = append(a.Families, t.Family)
		}
		if archFamilies[t.Architecture] == nil {
			archFamilies[t.Architecture] = map[string]bool{}
		}
		archFamilies[t.Architecture][t.Family] = true
	}
	sort.Strings(a.Families)
	for arch, fams := range archFamilies {
		a.Architectures = append(a.Architectures, arch)
		for f := range fams {
			a.ByArch[arch] = append(a.ByArch[arch], f)
		}
		sort.Strings(a.ByArch[arch])
	}
	sort.Strings(a.Architectures)
	a.admitted = admitted
	if cat.Source == SourceLive {
		a.Types = admitted
	}
	for _, key := range reqs.Keys() {
		r := reqs[key]
		gte, lte := r.Bounds()
		if cat.undecided[key] && (r.Operator() != requirements.Exists || gte != nil || lte != nil) {
			a.Undecided = append(a.Undecided, key)
		}
	}
	a.MinValues = minValuesShortfalls(reqs, admitted, cat)
	return a
}

// admitMemo remembers admissions by requirement set (memoKey). Bounded so a
// long-lived process (many plans of a fuzzer) cannot grow it without limit.
type admitMemo struct {
	mu sync.Mutex
	m  map[string]Admission
}

const admitMemoMax = 1024

func (m *admitMemo) get(key string) (Admission, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	a, ok := m.m[key]
	return a, ok
}

func (m *admitMemo) put(key string, a Admission) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.m) >= admitMemoMax {
		clear(m.m)
	}
	m.m[key] = a
}

// memoKey identifies a requirement set exactly: operator, every value,
// bounds and min_values per key (Requirement.String abbreviates values).
func memoKey(reqs requirements.Requirements) string {
	var b strings.Builder
	for _, key := range reqs.Keys() {
		r := reqs[key]
		fmt.Fprintf(&b, "%q %s %q", key, r.Operator(), r.Values())
		if gte, lte := r.Bounds(); gte != nil || lte != nil {
			fmt.Fprintf(&b, " %v %v", ptrString(gte), ptrString(lte))
		}
		if r.MinValues != nil {
			fmt.Fprintf(&b, " min %d", *r.MinValues)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func ptrString(p *int) string {
	if p == nil {
		return "-"
	}
	return strconv.Itoa(*p)
}

// clone copies what a caller could modify, so a remembered admission stays
// as computed. The admitted types (Types, Admitted) are shared, read only:
// a copy per pool was hundreds of instance types copied for every pool of a
// plan against a region's catalogue, and the shared list identifies the
// admission for the answers derived from it (nodepool's image matching).
func (a Admission) clone() Admission {
	a.Families = slices.Clone(a.Families)
	a.Architectures = slices.Clone(a.Architectures)
	a.Undecided = slices.Clone(a.Undecided)
	a.MinValues = slices.Clone(a.MinValues)
	a.Unknown = slices.Clone(a.Unknown)
	a.specs = slices.Clone(a.specs)
	a.extra = slices.Clone(a.extra)
	a.Facts = maps.Clone(a.Facts)
	byArch := make(map[string][]string, len(a.ByArch))
	for k, v := range a.ByArch {
		byArch[k] = slices.Clone(v)
	}
	a.ByArch = byArch
	return a
}

// boundOnNonNumeric: a bound admits only integers, and no instance type has
// an integer value for a non-numeric well-known label, so such a
// requirement admits nothing. Offline types may represent those labels as
// "defined, value unknown", which the algebra would wrongly let through.
func boundOnNonNumeric(reqs requirements.Requirements) bool {
	for key, r := range reqs {
		gte, lte := r.Bounds()
		if (gte != nil || lte != nil) && requirements.IsWellKnown(key) && !requirements.IsNumeric(key) {
			return true
		}
	}
	return false
}

// minValuesShortfalls mirrors Karpenter's InstanceTypes.SatisfiesMinValues
// over the admitted types, for the keys whose values the source knows.
func minValuesShortfalls(reqs requirements.Requirements, admitted []Type, cat *Catalogue) []MinValuesShortfall {
	var out []MinValuesShortfall
	for _, key := range reqs.Keys() {
		r := reqs[key]
		if r.MinValues == nil || cat.undecided[key] {
			continue
		}
		seen := map[string]bool{}
		for _, t := range admitted {
			if tr := t.labels.Get(key); tr.Operator() == requirements.In {
				for _, v := range tr.Values() {
					seen[v] = true
				}
			}
		}
		if len(seen) < *r.MinValues {
			out = append(out, MinValuesShortfall{Key: key, Want: *r.MinValues, Got: len(seen)})
		}
	}
	return out
}

// unknownValues lists In/NotIn values of name-like keys that nothing in the
// catalogue carries.
func unknownValues(specs []requirements.Spec, cat *Catalogue) []UnknownValue {
	var out []UnknownValue
	for i, s := range specs {
		if s.Unknown.Key || s.Unknown.Operator {
			continue
		}
		op := requirements.Operator(s.Operator)
		if op != requirements.In && op != requirements.NotIn {
			continue
		}
		key := requirements.Normalize(s.Key)
		known, ok := cat.names[key]
		if !ok {
			continue
		}
		for _, v := range s.Values {
			// A near miss of a closed set ("x86_64") is
			// requirement-value-misspelled's, at validate.
			if known[v] || requirements.NearMiss(key, v, versions.DefaultKarpenter) != "" {
				continue
			}
			out = append(out, UnknownValue{Index: i, Key: key, Value: v, Hint: nameHint(key, v, known, cat)})
		}
	}
	return out
}

func nameHint(key, v string, known map[string]bool, cat *Catalogue) string {
	if key == requirements.LabelInstanceType {
		// "g5g.medium": name the family's real sizes rather than a near miss.
		if fam, _, ok := SplitType(v); ok {
			if f, ok := cat.families[fam]; ok && len(f.Sizes) > 0 {
				return " (" + fam + " comes in " + joinSizes(f.Sizes) + ")"
			}
		}
	}
	if key == requirements.LabelInstanceFamily && isMac(v) {
		return " (Mac families are never offered by Karpenter)"
	}
	return didYouMean(v, slices.Sorted(maps.Keys(known)))
}

func joinSizes(sizes []string) string {
	out := ""
	for i, s := range sizes {
		if i > 0 {
			out += ", "
		}
		out += s
	}
	return out
}

// culprits are the requirements each of which, left out alone, lets some
// instance type through: the ones that conflict with the rest. Empty when
// no single requirement is to blame (two or more conflict with each other
// or with the pool's labels), or when the admission was not made by Admit.
func (a Admission) culprits() []int {
	if a.cat == nil {
		return nil
	}
	var out []int
	for i, s := range a.specs {
		if s.Unknown.Key || s.Unknown.Operator {
			continue
		}
		rest := append(append([]requirements.Spec(nil), a.specs[:i]...), a.specs[i+1:]...)
		reqs, _ := requirements.FromSpecs(rest)
		reqs.Add(a.extra...)
		if len(AdmitRequirements(reqs, a.cat).Families) > 0 {
			out = append(out, i)
		}
	}
	return out
}
