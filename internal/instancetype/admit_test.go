package instancetype

import (
	"slices"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/requirements"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

func rq(key, op string, values ...string) requirements.Spec {
	return requirements.Spec{Key: key, Operator: op, Values: values}
}

func withMin(s requirements.Spec, n int) requirements.Spec { s.MinValues = &n; return s }

func liveFixtures(t testing.TB) *Catalogue {
	t.Helper()
	f, err := awsemu.DefaultFixtures()
	if err != nil {
		t.Fatal(err)
	}
	return NewLive(f.InstanceTypes)
}

// familiesWhere lists the catalogue's families satisfying pred: the expected
// answers are computed from the facts, not written down.
func familiesWhere(c *Catalogue, pred func(Family) bool) []string {
	var out []string
	for _, n := range c.familyNames {
		if pred(c.families[n]) {
			out = append(out, n)
		}
	}
	return out
}

func TestAdmitFamilyLevelQuestionsOffline(t *testing.T) {
	cat := Embedded()
	// arm64 GPU families: the NodePool's "arm64 GPU image" check.
	a := Admit([]requirements.Spec{
		rq(requirements.LabelArch, "In", "arm64"),
		rq(requirements.LabelInstanceGPUCount, "Exists"),
	}, cat)
	want := familiesWhere(cat, func(f Family) bool { return f.Architecture == ARM64 && f.HasGPU() })
	if !slices.Equal(a.Families, want) || !slices.Contains(want, "g5g") {
		t.Errorf("arm64 GPU families %v, want %v", a.Families, want)
	}
	if len(a.Undecided) != 0 || a.Source != SourceEmbedded || a.Types != nil {
		t.Errorf("Exists on the GPU count is decided offline; types are live only: %+v", a)
	}

	// A family list: ByArch splits it, the mixed-architecture warning's input.
	a = Admit([]requirements.Spec{rq(requirements.LabelInstanceFamily, "In", "g5g", "m5", "t4g", "inf2")}, cat)
	if !slices.Equal(a.Families, []string{"g5g", "inf2", "m5", "t4g"}) ||
		!slices.Equal(a.ByArch[ARM64], []string{"g5g", "t4g"}) || !slices.Equal(a.ByArch[AMD64], []string{"inf2", "m5"}) ||
		!slices.Equal(a.Architectures, []string{AMD64, ARM64}) {
		t.Errorf("got %+v", a)
	}
	if a.Facts["inf2"].Accelerator != AcceleratorNeuron || a.Facts["g5g"].GPUManufacturer != "nvidia" {
		t.Errorf("facts %+v", a.Facts)
	}

	// Category + generation: the candidates are the families of that category and generation.
	a = Admit([]requirements.Spec{rq(requirements.LabelInstanceCategory, "In", "c"), rq(requirements.LabelInstanceGeneration, "Gt", "7")}, cat)
	want = familiesWhere(cat, func(f Family) bool { return f.Category == "c" && f.Generation > "7" && len(f.Generation) == 1 })
	if !slices.Equal(a.Families, want) || len(want) == 0 {
		t.Errorf("c, generation > 7: %v, want %v", a.Families, want)
	}

	// Instance types name their families exactly.
	a = Admit([]requirements.Spec{rq(requirements.LabelInstanceType, "In", "m5.large", "g5g.xlarge")}, cat)
	if !slices.Equal(a.Families, []string{"g5g", "m5"}) {
		t.Errorf("types: %v", a.Families)
	}
	// The class's OS narrows: Windows is amd64 only.
	a = Admit([]requirements.Spec{rq(requirements.LabelInstanceFamily, "In", "m6g", "m6i")}, cat, requirements.New(requirements.LabelOS, requirements.In, "windows"))
	if !slices.Equal(a.Families, []string{"m6i"}) {
		t.Errorf("windows: %v", a.Families)
	}
}

// A requirement on a per-type label never excludes offline: it "may match",
// and the admission says so.
func TestAdmitPerTypeLabelsMayMatchOffline(t *testing.T) {
	cat := Embedded()
	all := Admit(nil, cat)
	for _, spec := range []requirements.Spec{
		rq(requirements.LabelInstanceCPU, "Gt", "4"),
		rq(requirements.LabelInstanceMemory, "In", "1"),
		rq(requirements.LabelInstanceGPUName, "NotIn", "t4"),
		rq(requirements.LabelInstanceLocalNVME, "DoesNotExist"),
		rq(requirements.LabelZone, "In", "us-east-1a"),
	} {
		a := Admit([]requirements.Spec{spec}, cat)
		if len(a.Families) != len(all.Families) {
			t.Errorf("%s %s: %d families, want all %d", spec.Key, spec.Operator, len(a.Families), len(all.Families))
		}
		if !slices.Equal(a.Undecided, []string{spec.Key}) {
			t.Errorf("%s: undecided %v", spec.Key, a.Undecided)
		}
		fs := a.Findings()
		if got := findingIDs(fs); !slices.Equal(got, []string{"instance-types-offline-may-match"}) || fs.HasErrors() {
			t.Errorf("%s: findings %v", spec.Key, fs)
		} else if fs[0].Path.String() != "requirements[0].key" || !strings.Contains(fs[0].Detail, "AWS") {
			t.Errorf("finding %v", fs[0])
		}
	}
	// What is decidable offline stays exact: every type has a vCPU count.
	if a := Admit([]requirements.Spec{rq(requirements.LabelInstanceCPU, "DoesNotExist")}, cat); len(a.Families) != 0 {
		t.Errorf("instance-cpu DoesNotExist admits %v", a.Families)
	}
}

// Gt on labels whose values are never numbers matches nothing, offline and
// live alike.
func TestAdmitBoundOnNonNumericLabel(t *testing.T) {
	for _, cat := range []*Catalogue{Embedded(), liveFixtures(t)} {
		for _, key := range []string{requirements.LabelInstanceSize, requirements.LabelInstanceType, requirements.LabelInstanceGPUName} {
			a := Admit([]requirements.Spec{rq(key, "Gt", "2")}, cat)
			if len(a.Families) != 0 {
				t.Errorf("%s: %s Gt 2 admits %v", cat.Source, key, a.Families)
			}
		}
		// Numeric labels are compared as numbers.
		if a := Admit([]requirements.Spec{rq(requirements.LabelInstanceGeneration, "Gt", "2")}, cat); len(a.Families) == 0 {
			t.Errorf("%s: generation Gt 2 admits nothing", cat.Source)
		}
	}
}

// NotIn on a label a type does not define keeps the type (both only
// exclude), live and offline.
func TestAdmitNotInKeepsTypesWithoutTheLabel(t *testing.T) {
	live := liveFixtures(t)
	a := Admit([]requirements.Spec{rq(requirements.LabelInstanceGPUName, "NotIn", "t4")}, live)
	names := typeNames(a.Types)
	if !slices.Contains(names, "m5.large") || !slices.Contains(names, "g5.xlarge") || slices.Contains(names, "g4dn.xlarge") {
		t.Errorf("NotIn [t4]: %v", names)
	}
	// In on the same label drops every type without a GPU.
	a = Admit([]requirements.Spec{rq(requirements.LabelInstanceGPUName, "In", "t4")}, live)
	if !slices.Equal(typeNames(a.Types), []string{"g4dn.xlarge"}) {
		t.Errorf("In [t4]: %v", typeNames(a.Types))
	}
}

func typeNames(ts []Type) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

func TestAdmitLiveIsExact(t *testing.T) {
	live := liveFixtures(t)
	a := Admit([]requirements.Spec{rq(requirements.LabelInstanceCPU, "Gt", "4"), rq(requirements.LabelArch, "In", "arm64")}, live)
	for _, typ := range a.Types {
		if typ.VCPU <= 4 || typ.Architecture != ARM64 {
			t.Errorf("%s (%d vCPU, %s) admitted", typ.Name, typ.VCPU, typ.Architecture)
		}
	}
	var want []string
	for _, typ := range live.Types() {
		if typ.VCPU > 4 && typ.Architecture == ARM64 {
			want = append(want, typ.Name)
		}
	}
	if !slices.Equal(typeNames(a.Types), want) || len(want) == 0 {
		t.Errorf("admitted %v, want %v", typeNames(a.Types), want)
	}
	if a.Source != SourceLive || len(a.Undecided) != 0 || len(a.Findings()) != 0 {
		t.Errorf("live answer: %+v %v", a, a.Findings())
	}
}

func TestAdmitFindings(t *testing.T) {
	live := liveFixtures(t)
	cases := []struct {
		name   string
		specs  []requirements.Spec
		cat    *Catalogue
		want   []string
		errors bool
		path   string
		detail string
	}{
		{"nothing admitted offline", []requirements.Spec{rq(requirements.LabelArch, "In", "arm64"), rq(requirements.LabelInstanceGPUManufacturer, "In", "amd")}, Embedded(),
			[]string{"requirements-admit-no-instance-type"}, true, "requirements", "known offline"},
		{"the conflicting requirements are named", []requirements.Spec{rq(requirements.LabelCapacityType, "In", "on-demand"), rq(requirements.LabelArch, "In", "arm64"), rq(requirements.LabelInstanceGPUManufacturer, "In", "amd")}, Embedded(),
			[]string{"requirements-admit-no-instance-type"}, true, "requirements", "Without any one of requirements[1] (kubernetes.io/arch In [arm64]), requirements[2] (karpenter.k8s.aws/instance-gpu-manufacturer In [amd]) some instance types would qualify"},
		{"nothing admitted live", []requirements.Spec{rq(requirements.LabelInstanceFamily, "In", "p5")}, live,
			[]string{"requirement-value-matches-no-instance-type", "requirements-admit-no-instance-type"}, true, "requirements[0].values", "this region's ec2:DescribeInstanceTypes"},
		{"unknown size offline", []requirements.Spec{rq(requirements.LabelInstanceType, "In", "g5g.medium", "g5g.xlarge")}, Embedded(),
			[]string{"requirement-value-matches-no-instance-type"}, false, "requirements[0].values", "g5g comes in xlarge, 2xlarge, 4xlarge, 8xlarge, 16xlarge, metal"},
		{"unknown family offline is only a warning", []requirements.Spec{rq(requirements.LabelInstanceFamily, "In", "zz9")}, Embedded(),
			[]string{"requirement-value-matches-no-instance-type", "requirements-admit-no-instance-type"}, false, "requirements[0].values", "embedded list"},
		{"unknown family live is a warning while others remain", []requirements.Spec{rq(requirements.LabelInstanceFamily, "In", "zz9", "m5")}, live,
			[]string{"requirement-value-matches-no-instance-type"}, false, "requirements[0].values", "still admits other instance types"},
		// requirement-value-misspelled's (requirements.Validate), not repeated here.
		{"architecture spelled as in EC2", []requirements.Spec{rq(requirements.LabelArch, "In", "x86_64", "arm64")}, live,
			nil, false, "", ""},
		{"architecture nothing like one", []requirements.Spec{rq(requirements.LabelArch, "In", "riscv64", "arm64")}, live,
			[]string{"requirement-value-matches-no-instance-type"}, true, "requirements[0].values", `"riscv64"`},
		{"min_values not satisfiable live", []requirements.Spec{withMin(rq(requirements.LabelInstanceFamily, "In", "g5g", "g4ad"), 2), rq(requirements.LabelArch, "In", "arm64")}, live,
			[]string{"requirement-min-values-not-satisfiable", "requirement-value-excluded-by-other-requirement"}, true, "requirements[0].min_values", "cover only 1 distinct value"},
		{"min_values not satisfiable offline is a warning", []requirements.Spec{withMin(rq(requirements.LabelInstanceFamily, "In", "g5g", "g4ad"), 2), rq(requirements.LabelArch, "In", "arm64")}, Embedded(),
			[]string{"requirement-min-values-not-satisfiable", "requirement-value-excluded-by-other-requirement"}, false, "requirements[0].min_values", "embedded list"},
		{"min_values on a key offline cannot count is skipped", []requirements.Spec{withMin(rq(requirements.LabelInstanceCPU, "Exists"), 5), rq(requirements.LabelInstanceFamily, "In", "m5")}, Embedded(),
			nil, false, "", ""},
		{"min_values met", []requirements.Spec{withMin(rq(requirements.LabelInstanceFamily, "In", "g5g", "g4ad"), 2)}, live,
			nil, false, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := Admit(c.specs, c.cat).Findings()
			if got := findingIDs(fs); !slices.Equal(got, c.want) {
				t.Fatalf("rules %v, want %v\n%v", got, c.want, fs)
			}
			if fs.HasErrors() != c.errors {
				t.Errorf("errors = %v, want %v: %v", fs.HasErrors(), c.errors, fs)
			}
			if len(c.want) > 0 {
				f := fs.ByRule(c.want[0])[0]
				if f.Path.String() != c.path || !strings.Contains(f.Detail, c.detail) {
					t.Errorf("finding at %s: %s\nwant path %s and %q", f.Path, f.Detail, c.path, c.detail)
				}
			}
		})
	}
}

func findingIDs(fs rules.Findings) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Rule.ID)
	}
	slices.Sort(out)
	return out
}

// Unknown requirement parts leave the requirement out: a superset, marked
// incomplete.
func TestAdmitWithUnknownParts(t *testing.T) {
	a := Admit([]requirements.Spec{
		{Key: requirements.LabelArch, Operator: "In", Unknown: requirements.Unknown{Values: true}},
		rq(requirements.LabelInstanceFamily, "In", "m5", "m6g"),
	}, Embedded())
	if a.Complete || !slices.Equal(a.Families, []string{"m5", "m6g"}) {
		t.Errorf("got %+v", a)
	}
}

// Live, capacity type follows what EC2 sells the type as; reserved depends on
// the EC2NodeClass and stays possible.
func TestAdmitCapacityTypeLive(t *testing.T) {
	live := liveFixtures(t)
	spot := typeNames(Admit([]requirements.Spec{rq(requirements.LabelCapacityType, "In", "spot")}, live).Types)
	if slices.Contains(spot, "u7i-12tb.224xlarge") || !slices.Contains(spot, "m5.large") {
		t.Errorf("spot: %v", spot)
	}
	reserved := typeNames(Admit([]requirements.Spec{rq(requirements.LabelCapacityType, "In", "reserved")}, live).Types)
	if len(reserved) != len(live.Types()) {
		t.Errorf("reserved admits %d of %d", len(reserved), len(live.Types()))
	}
	// Offline the capacity type is undecided.
	if a := Admit([]requirements.Spec{rq(requirements.LabelCapacityType, "In", "spot")}, Embedded()); !slices.Equal(a.Undecided, []string{requirements.LabelCapacityType}) {
		t.Errorf("offline: %v", a.Undecided)
	}
}

// Offline admitted types are enough for strict AMI-variant matching: an
// nvidia image (instance-gpu-count Exists) maps to GPU families only, a
// standard image (GPU and accelerator DoesNotExist) to the others.
func TestAdmittedTypesMapToImageVariantsStrictly(t *testing.T) {
	nvidia := requirements.NewRequirements(requirements.New(requirements.LabelInstanceGPUCount, requirements.Exists))
	standard := requirements.NewRequirements(
		requirements.New(requirements.LabelInstanceGPUCount, requirements.DoesNotExist),
		requirements.New(requirements.LabelInstanceAcceleratorCount, requirements.DoesNotExist))
	neuron := requirements.NewRequirements(requirements.New(requirements.LabelInstanceAcceleratorCount, requirements.Exists))
	for _, cat := range []*Catalogue{Embedded(), liveFixtures(t)} {
		a := Admit([]requirements.Spec{rq(requirements.LabelInstanceFamily, "In", "g5g", "m6g", "inf2")}, cat)
		got := map[string][]string{}
		for _, typ := range a.Admitted() {
			for name, img := range map[string]requirements.Requirements{"nvidia": nvidia, "standard": standard, "neuron": neuron} {
				if typ.Requirements().IsCompatible(img) {
					got[name] = append(got[name], typ.Family)
				}
			}
		}
		for name, want := range map[string]string{"nvidia": "g5g", "standard": "m6g", "neuron": "inf2"} {
			if fams := slices.Compact(got[name]); !slices.Equal(fams, []string{want}) {
				t.Errorf("%s: %s image maps to %v, want [%s]", cat.Source, name, fams, want)
			}
		}
	}
}

// Remembered admissions are the computed ones, keyed exactly (values beyond
// the five Requirement.String shows count), and a caller changing its copy
// changes nothing for the next caller.
func TestAdmitMemoIsExactAndIsolated(t *testing.T) {
	cat := withNote(Embedded(), "first")
	six := []string{"m5", "m6g", "c5", "c6g", "r5", "r6g"}
	seven := append(slices.Clone(six), "g5g")
	reqsOf := func(values []string) requirements.Requirements {
		r, _ := requirements.FromSpecs([]requirements.Spec{rq(requirements.LabelInstanceFamily, "In", values...)})
		return r
	}
	first := AdmitRequirements(reqsOf(six), cat)
	first.Families[0] = "mutated"
	first.ByArch["arm64"][0] = "mutated"
	delete(first.Facts, "m5")

	again := AdmitRequirements(reqsOf(six), withNote(cat, "second"))
	fresh := admitRequirements(reqsOf(six), cat)
	if !slices.Equal(again.Families, fresh.Families) || !slices.Equal(again.ByArch["arm64"], fresh.ByArch["arm64"]) || len(again.Facts) != len(fresh.Facts) {
		t.Fatalf("remembered admission changed by a caller: %v %v, want %v %v", again.Families, again.ByArch, fresh.Families, fresh.ByArch)
	}
	if again.Note != "second" {
		t.Errorf("note %q: the admission must carry the asking catalogue's note", again.Note)
	}
	if got := AdmitRequirements(reqsOf(seven), cat); !slices.Contains(got.Families, "g5g") {
		t.Errorf("a seventh value must be a different question: %v", got.Families)
	}
}
