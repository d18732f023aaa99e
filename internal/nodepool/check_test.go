package nodepool

import (
	"reflect"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/taints"
)

// A class given by name only: exactly one warning, and everything that does
// not need its facts still runs.
func TestCheckClassManagedElsewhere(t *testing.T) {
	e := newEnv(t)
	p := newPool("p", ClassFacts{}, "elsewhere", "node.kubernetes.io/instance-type In g5g.medium,g5g.xlarge", "karpenter.k8s.aws/instance-family In g5g,m5")
	r := Check(p, e.live, kv("1.14"))
	only(t, r.Findings, ruleFactsUnknown.ID)
	if f := only(t, r.Findings, instancetype.RuleUnknownName.ID); f.Severity != rules.Warning || f.Path.String() != "requirements[0].values" {
		t.Errorf("a value that names nothing is a warning with live facts while g5g.xlarge remains: %v", f)
	}
	if !reflect.DeepEqual(r.InstanceFamilies, []string{"g5g"}) || !r.FamiliesKnown || !r.AssignmentsKnown || len(r.Assignments) != 0 {
		t.Errorf("families %v known %v/%v assignments %v", r.InstanceFamilies, r.FamiliesKnown, r.AssignmentsKnown, r.Assignments)
	}
	// Offline the same value is a warning (new types may be missing).
	if f := only(t, Check(p, instancetype.Embedded(), kv("1.14")).Findings, instancetype.RuleUnknownName.ID); f.Severity != rules.Warning {
		t.Errorf("offline: %v", f)
	}
	// The named-families warning needs no class facts.
	q := newPool("p", ClassFacts{}, "elsewhere", "karpenter.k8s.aws/instance-family In m5,m6g")
	fs := Check(q, e.live, kv("1.14")).Findings
	only(t, fs, ruleFactsUnknown.ID)
	only(t, fs, ruleMixedArch.ID)
}

// Facts not known yet (the class is created in the same plan): silence,
// and the computed values are unknown.
func TestCheckWaitsForPendingClassFacts(t *testing.T) {
	e := newEnv(t)
	p := newPool("p", ClassFacts{}, "", "karpenter.k8s.aws/instance-family In g5g")
	p.Unknown.Add(pathNodeClass)
	r := Check(p, e.live, kv("1.14"))
	if len(r.Findings) != 0 || r.FamiliesKnown || r.AssignmentsKnown {
		t.Errorf("%v %v %v", r.Findings, r.FamiliesKnown, r.AssignmentsKnown)
	}
	// Only the images unknown: the same.
	c := e.namedClass(t, "al2", kv("1.14"))
	p = newPool("p", c, "al2", "karpenter.k8s.aws/instance-family In g5g")
	p.Unknown.Add(pathNodeClass.Attr("amis"))
	if r := Check(p, e.live, kv("1.14")); len(r.Findings) != 0 || r.FamiliesKnown {
		t.Errorf("%v", r.Findings)
	}
	if fs := Validate(p, kv("1.14")); len(fs) != 0 {
		t.Errorf("validate: %v", fs)
	}
	// Only the userData unknown (from another resource): the image checks
	// run, the Custom taint checks wait for it.
	p = newPool("p", c, "al2", "karpenter.k8s.aws/instance-family In g5g")
	p.Unknown.Add(pathNodeClass.Attr("user_data"))
	p.Unknown.Add(pathNodeClass.Attr("kubelet"))
	if r := Check(p, e.live, kv("1.14")); !r.FamiliesKnown || len(r.Findings.ByRule(ruleArm64GPU.ID)) != 1 {
		t.Errorf("the images are known, the arm64 GPU check must run: %v %v", r.FamiliesKnown, r.Findings)
	}
	custom := newPool("p", e.namedClass(t, "custom", kv("1.14")), "custom")
	custom.Class.RegisteredTaints = nil
	custom.Unknown.Add(pathNodeClass.Attr("registered_taints"))
	if fs := Check(custom, e.live, kv("1.14")).Findings; len(fs.ByRule(ruleUnregistered.ID)) != 0 {
		t.Errorf("registered taints unknown: %v", fs)
	}
	// Unknown requirement values: the families are a superset, not known.
	p = newPool("p", c, "al2", "karpenter.k8s.aws/instance-family In g5g", "kubernetes.io/arch In")
	p.Unknown.Add(pathRequirements.Index(1).Attr("values"))
	r = Check(p, e.live, kv("1.14"))
	if r.FamiliesKnown || r.Findings.HasErrors() {
		t.Errorf("%v %v", r.FamiliesKnown, r.Findings)
	}
	if f := only(t, r.Findings, ruleArm64GPU.ID); !strings.Contains(f.Detail, "superset") {
		t.Error(f)
	}
}

// Invalid requirements are Validate's to report; Check does not echo them
// as "admits nothing".
func TestCheckSkipsAdmissionOfInvalidRequirements(t *testing.T) {
	e := newEnv(t)
	c := e.namedClass(t, "al2023", kv("1.14"))
	r := Check(newPool("p", c, "al2023", "kubernetes.io/arch in arm64"), e.live, kv("1.14"))
	if len(r.Findings) != 0 || r.FamiliesKnown {
		t.Errorf("%v", r.Findings)
	}
	r = Check(newPool("p", c, "al2023", "kubernetes.io/arch In arm64", "karpenter.k8s.aws/instance-gpu-manufacturer In amd"), e.live, kv("1.14"))
	only(t, r.Findings, "requirements-admit-no-instance-type")
	// Labels constrain like requirements.
	p := newPool("p", c, "al2023", "karpenter.k8s.aws/instance-family In m6g")
	setLabels(&p, "kubernetes.io/arch", "amd64")
	only(t, Check(p, e.live, kv("1.14")).Findings, "requirements-admit-no-instance-type")
}

// An error outside what the cross-checks read (a limit, the weight) does
// not hide them; one in what they read (labels, node_class) or a
// family-table error they would repeat does.
func TestCrossChecksApplyAfterUnrelatedErrors(t *testing.T) {
	e := newEnv(t)
	c := e.namedClass(t, "al2023", kv("1.14"))
	p := newPool("p", c, "al2023", "kubernetes.io/arch In arm64", "karpenter.k8s.aws/instance-gpu-manufacturer In amd")
	w := int32(500)
	p.Manifest.Spec.Weight = &w
	p.Manifest.Spec.Limits = map[string]string{"memroy": "10Gi"}
	validated := Validate(p, kv("1.14"))
	only(t, validated, ruleWeight.ID)
	only(t, validated, ruleLimitMisspelled.ID)
	if !CrossChecksApply(validated) {
		t.Fatalf("a weight error blocks the cross-checks: %v", validated)
	}
	only(t, Check(p, e.live, kv("1.14")).Findings, "requirements-admit-no-instance-type")

	setLabels(&p, "example.com/team", "a b")
	if validated := Validate(p, kv("1.14")); CrossChecksApply(validated) {
		t.Errorf("an invalid label (which the admission reads) does not block: %v", validated)
	}
	// A class known by its family only: the family table speaks.
	gpu := newPool("p", ClassFacts{Family: amifamily.AL2}, "al2", "karpenter.k8s.aws/instance-family In g5g")
	if validated := Validate(gpu, kv("1.14")); validated.ByRule(ruleArm64GPU.ID) == nil || CrossChecksApply(validated) {
		t.Errorf("the family table's error would be repeated by the image checks: %v", validated)
	}
}

func TestCheckClassFilters(t *testing.T) {
	e := newEnv(t)
	al2023, windows := e.namedClass(t, "al2023", kv("1.14")), e.namedClass(t, "windows", kv("1.14"))
	r := Check(newPool("p", al2023, "al2023", "karpenter.k8s.aws/instance-family In a1"), e.live, kv("1.14"))
	only(t, r.Findings, ruleA1.ID)
	if len(r.InstanceFamilies) != 0 {
		t.Error(r.InstanceFamilies)
	}
	r = Check(newPool("p", al2023, "al2023", "kubernetes.io/arch In arm64"), e.live, kv("1.14"))
	if r.Findings.HasErrors() || contains(r.InstanceFamilies, "a1") || !contains(r.Admission.Families, "a1") {
		t.Errorf("a1 is admitted but filtered for AL2023: %v %v", r.InstanceFamilies, r.Findings)
	}
	r = Check(newPool("p", windows, "windows", "kubernetes.io/arch In arm64"), e.live, kv("1.14"))
	f := only(t, r.Findings, ruleWindowsArm64.ID)
	mustContain(t, f.Detail, "Windows2022", "amd64 only")
	if len(r.Findings.ByRule(ruleArchMismatch.ID)) != 0 {
		t.Errorf("one error: %v", r.Findings)
	}
	r = Check(newPool("p", windows, "windows", "kubernetes.io/os In linux"), e.live, kv("1.14"))
	only(t, r.Findings, ruleOSMismatch.ID)
	// Windows images serve every amd64 family, GPUs included (no variants).
	r = Check(newPool("p", windows, "windows", "karpenter.k8s.aws/instance-family In m5,g5"), e.live, kv("1.14"))
	if len(r.Findings) != 0 || len(r.Assignments) != 1 || !reflect.DeepEqual(r.Assignments[0].InstanceFamilies, []string{"g5", "m5"}) {
		t.Errorf("%v %+v", r.Findings, r.Assignments)
	}
}

func TestCheckImageWarnings(t *testing.T) {
	e := newEnv(t)
	own := e.namedClass(t, "custom_images", kv("1.14"))
	f := only(t, Check(newPool("p", own, "custom-images", "karpenter.k8s.aws/instance-family In g5,inf2,g5g,m5"), e.live, kv("1.14")).Findings, ruleNonAliasGPU.ID)
	mustContain(t, f.Detail, "g5 → ", "g5g → ", "inf2 → ")
	if strings.Contains(f.Detail, "m5 →") {
		t.Error(f.Detail)
	}
	al2023 := e.namedClass(t, "al2023", kv("1.14"))
	f = only(t, Check(newPool("p", al2023, "al2023", "karpenter.k8s.aws/instance-gpu-manufacturer In amd"), e.live, kv("1.14")).Findings, ruleAMDGPU.ID)
	mustContain(t, f.Detail, "g4ad → ", "x86_64-nvidia")
	// A pool that selects no hardware gets one warning with the
	// requirements that keep GPU instances out, and none once it has
	// them; on an alias, AMD families are not flagged on a
	// pool that never asked for them.
	fs := Check(newPool("p", own, "custom-images"), e.live, kv("1.14")).Findings
	f = only(t, fs, ruleNonAliasGPU.ID)
	mustContain(t, f.Detail, "does not keep GPU/accelerator instances out", "g5", `requirements blocks, key = "karpenter.k8s.aws/instance-gpu-count"`, `operator = "DoesNotExist"`)
	fs = Check(newPool("p", own, "custom-images", "karpenter.k8s.aws/instance-gpu-count DoesNotExist", "karpenter.k8s.aws/instance-accelerator-count DoesNotExist"), e.live, kv("1.14")).Findings
	if len(fs.ByRule(ruleNonAliasGPU.ID)) != 0 {
		t.Errorf("GPU and accelerators excluded: %v", fs)
	}
	if fs := Check(newPool("p", al2023, "al2023"), e.live, kv("1.14")).Findings; len(fs.ByRule(ruleAMDGPU.ID)) != 0 {
		t.Errorf("broad pool on an alias: %v", fs)
	}
}

func TestCheckReleaseSpecificMapping(t *testing.T) {
	e := newEnv(t)
	// 1.0.1 swaps nvidia and neuron: the class resolved at 1.0.1 carries the
	// swapped requirements, and the assignments show the wrong images.
	c := e.namedClass(t, "al2023", kv("1.0.1"))
	r := Check(newPool("p", c, "al2023", "karpenter.k8s.aws/instance-family In g5,inf2"), e.live, kv("1.0.1"))
	f := only(t, r.Findings, ruleVariantSwap.ID)
	mustContain(t, f.Detail, "g5 → ", "neuron", "inf2 → ", "nvidia")
	for _, a := range r.Assignments {
		if (a.Variant == amifamily.NVIDIA) != reflect.DeepEqual(a.InstanceFamilies, []string{"inf2"}) {
			t.Errorf("swap not reflected: %+v", a)
		}
	}
	if len(Check(newPool("p", e.namedClass(t, "al2023", kv("1.0.3")), "al2023", "karpenter.k8s.aws/instance-family In g5,inf2"), e.live, kv("1.0.3")).Findings.ByRule(ruleVariantSwap.ID)) != 0 {
		t.Error("fixed in 1.0.3")
	}
	// Before 1.4, lenient capacity matching.
	c = e.namedClass(t, "al2023", kv("1.3"))
	f = only(t, Check(newPool("p", c, "al2023", "karpenter.k8s.aws/instance-family In m5,g5,inf2"), e.live, kv("1.3")).Findings, ruleFirstMatch.ID)
	mustContain(t, f.Detail, "is matched to", "#7925")
	c = e.namedClass(t, "al2023", kv("1.4"))
	if fs := Check(newPool("p", c, "al2023", "karpenter.k8s.aws/instance-family In m5,g5,inf2"), e.live, kv("1.4")).Findings; len(fs.ByRule(ruleFirstMatch.ID)) != 0 {
		t.Error(fs)
	}
	// Bottlerocket and Neuron: none before 1.3 (1.1-1.2), the NVIDIA image in
	// 1.0.x, from 1.3 the standard x86_64 image (its status entry for the
	// neuron variant).
	for _, c := range []struct {
		karp    string
		finding string
		image   string
	}{{"1.2", "get no image at all", ""}, {"1.0", "get the NVIDIA image", "nvidia"}, {"1.3", "", "neuron"}} {
		cl := e.namedClass(t, "bottlerocket", kv(c.karp))
		r := Check(newPool("p", cl, "bottlerocket", "karpenter.k8s.aws/instance-family In inf2"), e.live, kv(c.karp))
		got := r.Findings.ByRule(ruleBottlerocketNeuron.ID)
		if (len(got) == 1) != (c.finding != "") || (c.finding != "" && !strings.Contains(got[0].Detail, c.finding)) {
			t.Errorf("%s: %v", c.karp, r.Findings)
		}
		if r.Findings.HasErrors() || len(r.Findings.ByRule(ruleNoImage.ID)) > 0 {
			t.Errorf("%s: one warning, no generic no-image: %v", c.karp, r.Findings)
		}
		if c.image == "" && len(r.Assignments) != 0 || c.image != "" && (len(r.Assignments) != 1 || string(r.Assignments[0].Variant) != c.image ||
			strings.Contains(r.Assignments[0].AMIName, "nvidia") != (c.image == "nvidia")) {
			t.Errorf("%s: %+v", c.karp, r.Assignments)
		}
	}
}

// Families that get no image for another reason are reported, never
// dropped silently: here an alias whose release has no Neuron image.
func TestCheckReportsFamiliesWithoutImage(t *testing.T) {
	e := newEnv(t)
	c := e.namedClass(t, "al2023", kv("1.14"))
	var kept []ami.AMI
	for _, a := range c.AMIs {
		if a.Variant != amifamily.Neuron {
			kept = append(kept, a)
		}
	}
	c.AMIs = kept
	r := Check(newPool("p", c, "al2023", "karpenter.k8s.aws/instance-family In inf2,m5"), e.live, kv("1.14"))
	f := only(t, r.Findings, ruleNoImage.ID)
	if f.Severity != rules.Warning {
		t.Error(f)
	}
	mustContain(t, f.Detail, "inf2", "the other families still launch: m5")
	r = Check(newPool("p", c, "al2023", "karpenter.k8s.aws/instance-family In inf2"), e.live, kv("1.14"))
	f = only(t, r.Findings, ruleNoImage.ID)
	if f.Severity != rules.Error {
		t.Error(f)
	}
	mustContain(t, f.Detail, "no instance types satisfy requirements of amis [")
}

func TestCheckCustomClass(t *testing.T) {
	e := newEnv(t)
	c := e.namedClass(t, "custom", kv("1.14"))
	agent := manifest.Taint{Key: agentTaint.Key, Effect: agentTaint.Effect}
	p := newPool("p", c, "custom")
	tmpl(&p).StartupTaints = []manifest.Taint{agent, {Key: "karpenter.sh/unregistered", Effect: "NoExecute"}}
	f := only(t, Check(p, e.live, kv("1.14")).Findings, ruleStartupNotRegistered.ID)
	if f.Path.String() != "startup_taints[0]" {
		t.Error(f)
	}
	p.Class = e.namedClass(t, "custom_agent", kv("1.14"))
	if fs := Check(p, e.live, kv("1.14")).Findings; len(fs) != 0 {
		t.Errorf("registered: %v", fs)
	}
	for _, v := range []struct{ karp, want string }{
		{"1.2", "missing required startup taint, karpenter.sh/unregistered"},
		{"1.3", "UnregisteredTaintMissing"},
	} {
		q := newPool("p", c, "custom")
		q.Class.RegisteredTaints = []taints.Taint{{Key: "karpenter.sh/uninitialized", Effect: "NoExecute"}}
		f := only(t, Check(q, e.live, kv(v.karp)).Findings, ruleUnregistered.ID)
		if f.Severity != rules.Error || f.Path.String() != "node_class" {
			t.Error(f)
		}
		mustContain(t, f.Detail, v.want, `"karpenter.sh/uninitialized:NoExecute"`)
	}
	// Non-Custom families: Karpenter renders the taints itself.
	q := newPool("p", e.namedClass(t, "al2023", kv("1.14")), "al2023")
	tmpl(&q).StartupTaints = []manifest.Taint{agent}
	if fs := Check(q, e.live, kv("1.14")).Findings; len(fs) != 0 {
		t.Error(fs)
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
