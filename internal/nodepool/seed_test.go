package nodepool

import (
	"reflect"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// catalogues returns both sources: the live one built from the emulator's
// DescribeInstanceTypes, and the embedded one.
func (e env) catalogues() []*instancetype.Catalogue {
	return []*instancetype.Catalogue{e.live, instancetype.Embedded()}
}

// Seed 000: a pool restricted to arm64 on a class whose images are amd64
// only fails every launch.
func TestSeed000ArchMismatch(t *testing.T) {
	e := newEnv(t)
	c := e.class(t, kv("1.14"), "AL2023", ami.Term{ID: customAMD64ID})
	p := newPool("arm", c, "custom", "kubernetes.io/arch In arm64")
	for _, cat := range e.catalogues() {
		r := Check(p, cat, kv("1.14"))
		f := only(t, r.Findings, ruleArchMismatch.ID)
		if f.Severity != rules.Error || f.Path.String() != "requirements" {
			t.Errorf("%s: %v", cat.Source, f)
		}
		mustContain(t, f.Detail,
			`"no instance types satisfy requirements of amis [`+customAMD64ID+`]"`,
			"arm64: ", "c6g", "m6g", "g5g", // the admitted families per architecture
			"amd64 only", `kubernetes.io/arch In ["amd64"]`)
		if len(r.Assignments) != 0 {
			t.Errorf("%s: no family gets an image, got %v", cat.Source, r.Assignments)
		}
		if len(r.Findings.ByRule(ruleMixedArch.ID)) != 0 {
			t.Errorf("%s: the mismatch is not also a mixed-architecture warning: %v", cat.Source, r.Findings)
		}
	}
	// The same pool on an alias class (both architectures) is fine.
	p.Class = e.class(t, kv("1.14"), "", ami.Term{Alias: "al2023@latest"})
	if fs := Check(p, e.live, kv("1.14")).Findings; fs.HasErrors() || len(fs.ByRule(ruleArchMismatch.ID)) > 0 {
		t.Errorf("alias class: %v", fs)
	}
}

// Seed 000: g5g on AL2 (no arm64 NVIDIA image), and on AL2023 before
// Karpenter 1.4; offline from a literal ami_family, and at plan from the
// class's images.
func TestSeed000Arm64GPUOnAL2(t *testing.T) {
	e := newEnv(t)
	al2 := e.class(t, kv("1.14"), "", ami.Term{Alias: "al2@latest"})
	p := newPool("gpu", al2, "al2", "karpenter.k8s.aws/instance-family In g5g")
	for _, cat := range e.catalogues() {
		r := Check(p, cat, kv("1.14"))
		f := only(t, r.Findings, ruleArm64GPU.ID)
		if f.Severity != rules.Error {
			t.Errorf("%s: %v", cat.Source, f)
		}
		// The wording of ami.ForInstance's arm64-gpu-no-image, for families.
		mustContain(t, f.Detail, "AL2 publishes no arm64 NVIDIA image", "g5g",
			`Use "al2023@latest" (arm64 nvidia, EKS AMI ≥ v20250403, Karpenter ≥ 1.4)`, `"bottlerocket@latest"`,
			"no instance types satisfy requirements of amis [", `instance-family NotIn ["g5g"]`)
		if r.InstanceFamilies == nil || r.InstanceFamilies[0] != "g5g" || len(r.Assignments) != 0 {
			t.Errorf("%s: g5g is admitted and gets no image: %v %v", cat.Source, r.InstanceFamilies, r.Assignments)
		}
	}

	// Offline: node_class = { name = "al2", ami_family = "AL2" }.
	lit := newPool("gpu", ClassFacts{Family: amifamily.AL2}, "al2", "karpenter.k8s.aws/instance-family In g5g,m6g")
	f := only(t, Validate(lit, kv("1.14")), ruleArm64GPU.ID)
	mustContain(t, f.Detail, "AL2 publishes no arm64 NVIDIA image", "families g5g,")
	if f.Severity != rules.Error {
		t.Error(f)
	}

	// AL2023: before 1.4 no arm64 NVIDIA image is queried; from 1.4 g5g gets it.
	for _, c := range []struct {
		karpenter string
		gap       bool
	}{{"1.3", true}, {"1.4", false}, {"1.14", false}} {
		cl := e.class(t, kv(c.karpenter), "", ami.Term{Alias: "al2023@latest"})
		q := newPool("gpu", cl, "al2023", "karpenter.k8s.aws/instance-family In g5g")
		r := Check(q, e.live, kv(c.karpenter))
		if got := len(r.Findings.ByRule(ruleArm64GPU.ID)) > 0; got != c.gap {
			t.Errorf("Karpenter %s: arm64-gpu-no-image %v, want %v: %v", c.karpenter, got, c.gap, r.Findings)
		}
		if c.gap {
			mustContain(t, r.Findings.ByRule(ruleArm64GPU.ID)[0].Detail, "Karpenter "+c.karpenter+" does not query AL2023's arm64 NVIDIA image", "Upgrade Karpenter to 1.4")
			lit := newPool("gpu", ClassFacts{Family: amifamily.AL2023}, "al2023", "karpenter.k8s.aws/instance-family In g5g")
			only(t, Validate(lit, kv(c.karpenter)), ruleArm64GPU.ID)
		} else if len(r.Assignments) != 1 || r.Assignments[0].AMIName != "amazon-eks-node-al2023-arm64-nvidia-1.32-v20251209" {
			t.Errorf("Karpenter %s: g5g assignment %+v", c.karpenter, r.Assignments)
		}
	}

	// A pool that selects no hardware admits g5g only by not excluding it:
	// a warning, not a failed plan.
	broad := newPool("default", al2, "al2")
	f = only(t, Check(broad, e.live, kv("1.14")).Findings, ruleArm64GPU.ID)
	if f.Severity != rules.Warning {
		t.Errorf("broad pool: %v", f)
	}
}

// Seed 001: which image each family gets on al2023@latest, by strict
// matching, grouped per (architecture, variant, image).
func TestSeed001VariantPerType(t *testing.T) {
	e := newEnv(t)
	c := e.class(t, kv("1.14"), "", ami.Term{Alias: "al2023@latest"})
	p := newPool("mixed", c, "al2023", "karpenter.k8s.aws/instance-family In m5,m6g,g5,g5g,inf2")
	want := []struct {
		arch, variant, name string
		families            []string
	}{
		{"amd64", "neuron", "amazon-eks-node-al2023-x86_64-neuron-1.32-v20251209", []string{"inf2"}},
		{"amd64", "nvidia", "amazon-eks-node-al2023-x86_64-nvidia-1.32-v20251209", []string{"g5"}},
		{"amd64", "standard", "amazon-eks-node-al2023-x86_64-standard-1.32-v20251209", []string{"m5"}},
		{"arm64", "nvidia", "amazon-eks-node-al2023-arm64-nvidia-1.32-v20251209", []string{"g5g"}},
		{"arm64", "standard", "amazon-eks-node-al2023-arm64-standard-1.32-v20251209", []string{"m6g"}},
	}
	ids := map[string]string{}
	for _, a := range c.AMIs {
		ids[a.Name] = a.ID
	}
	for _, cat := range e.catalogues() {
		r := Check(p, cat, kv("1.14"))
		if r.Findings.HasErrors() {
			t.Errorf("%s: %v", cat.Source, r.Findings)
		}
		if !reflect.DeepEqual(r.InstanceFamilies, []string{"g5", "g5g", "inf2", "m5", "m6g"}) || !r.FamiliesKnown || !r.AssignmentsKnown {
			t.Errorf("%s: families %v known %v/%v", cat.Source, r.InstanceFamilies, r.FamiliesKnown, r.AssignmentsKnown)
		}
		if len(r.Assignments) != len(want) {
			t.Fatalf("%s: %+v", cat.Source, r.Assignments)
		}
		for i, w := range want {
			got := r.Assignments[i]
			if got.Architecture != w.arch || string(got.Variant) != w.variant || got.AMIName != w.name || got.AMIID != ids[w.name] || !reflect.DeepEqual(got.InstanceFamilies, w.families) {
				t.Errorf("%s: assignment %d = %+v, want %+v", cat.Source, i, got, w)
			}
		}
	}
}

// Seed 004: the pool mixes architectures.
func TestSeed004MixedFamilies(t *testing.T) {
	e := newEnv(t)
	amd := e.class(t, kv("1.14"), "AL2023", ami.Term{ID: customAMD64ID})
	alias := e.class(t, kv("1.14"), "", ami.Term{Alias: "al2023@latest"})
	windows := e.class(t, kv("1.14"), "", ami.Term{Alias: "windows2022@latest"})

	// The class supplies one architecture: the other's families are dropped.
	r := Check(newPool("mixed", amd, "custom", "karpenter.k8s.aws/instance-family In m5,m6g,c6g"), e.live, kv("1.14"))
	f := only(t, r.Findings, ruleMixedArch.ID)
	mustContain(t, f.Detail, "amd64: m5; arm64: c6g, m6g", "amd64 only", "drops the arm64 families")
	if r.Findings.HasErrors() || len(r.Assignments) != 1 || !reflect.DeepEqual(r.Assignments[0].InstanceFamilies, []string{"m5"}) {
		t.Errorf("only m5 gets the amd64 image: %v %+v", r.Findings, r.Assignments)
	}

	// The class supplies both; the requirements name families of both
	// architectures and nothing pins the architecture.
	f = only(t, Check(newPool("mixed", alias, "al2023", "karpenter.k8s.aws/instance-family In m5,m6g"), e.live, kv("1.14")).Findings, ruleMixedArch.ID)
	mustContain(t, f.Detail, "amd64: m5; arm64: m6g", "multi-arch", `kubernetes.io/arch In ["amd64", "arm64"]`)
	f = only(t, Check(newPool("mixed", alias, "al2023", "node.kubernetes.io/instance-type In m5.large,m6g.large"), e.live, kv("1.14")).Findings, ruleMixedArch.ID)
	mustContain(t, f.Detail, "amd64: m5; arm64: m6g")

	// Not mixed: the architecture is pinned, one architecture is named, or
	// the families come from a broad requirement on a two-architecture class.
	for _, q := range []Pool{
		newPool("pinned", alias, "al2023", "karpenter.k8s.aws/instance-family In m5,m6g", "kubernetes.io/arch In amd64,arm64"),
		newPool("one", alias, "al2023", "karpenter.k8s.aws/instance-family In m5,c5"),
		newPool("broad", alias, "al2023", "karpenter.k8s.aws/instance-category In m"),
	} {
		if fs := Check(q, e.live, kv("1.14")).Findings; len(fs.ByRule(ruleMixedArch.ID)) > 0 {
			t.Errorf("%s: %v", q.Manifest.Metadata.Name, fs)
		}
	}

	// Windows: arm64 families are filtered out (no OS), with the warning.
	r = Check(newPool("win", windows, "windows", "karpenter.k8s.aws/instance-family In m5,m6g"), e.live, kv("1.14"))
	f = only(t, r.Findings, ruleMixedArch.ID)
	mustContain(t, f.Detail, "Windows images are amd64 only", "arm64: m6g")
	if !reflect.DeepEqual(r.InstanceFamilies, []string{"m5"}) || len(r.Assignments) != 1 {
		t.Errorf("windows: %v %+v", r.InstanceFamilies, r.Assignments)
	}
}
