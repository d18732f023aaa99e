package nodepool

import (
	"fmt"
	"sort"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/requirements"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// Checks decidable from the class's amiFamily and the family table alone:
// Validate runs them on a literally written ami_family, Check on the
// class's resolved family.

// classFilter applies Karpenter's class-level instance-type filters to the
// admitted families: a1 is removed for AL2023 (compatibility.go
// amiFamilyCheck), arm64 for Windows (getOS gives them no OS and no Windows
// image matches). When nothing is left the pool cannot launch anything:
// that is an error whether or not the admission is exact, since a subset of
// "only a1" or "only arm64" is still that.
func classFilter(a instancetype.Admission, f amifamily.Family) (kept []string, fs rules.Findings) {
	var a1, arm []string
	m := f.Model()
	for _, fam := range a.Families {
		switch {
		case !m.SupportsA1() && fam == "a1":
			a1 = append(a1, fam)
		case !m.SupportsArch(a.Facts[fam].Architecture):
			arm = append(arm, fam)
		default:
			kept = append(kept, fam)
		}
	}
	if len(kept) > 0 {
		return kept, nil
	}
	switch {
	case len(a1) > 0:
		fs = append(fs, rules.New(ruleA1, pathRequirements,
			"the requirements admit only a1, and Karpenter removes a1 instance types for %s classes (\"a1 instance types are not supported with al2023s\"): no instance type is left and the pool launches nothing. Use a newer Graviton family (m6g, c7g, t4g, ...) or a class with another family (e.g. \"bottlerocket@latest\").", f))
	case len(arm) > 0:
		fs = append(fs, rules.New(ruleWindowsArm64, pathRequirements,
			"the requirements admit only arm64 families (%s), but the class is %s: %s, and launches fail with \"no instance types satisfy requirements of amis [...]\". Require kubernetes.io/arch In [\"amd64\"] and amd64 families (m5, m7i, c6i, ...), or use a Linux class for Graviton.",
			strings.Join(arm, ", "), f, m.ArchGap()))
	}
	return kept, fs
}

// checkOS: kubernetes.io/os from requirements and labels against the OS the
// family gives instance types.
func checkOS(p Pool, f amifamily.Family) rules.Findings {
	reqs := knownRequirements(p)
	if !reqs.Has(requirements.LabelOS) || f == "" {
		return nil
	}
	want := f.Model().OS()
	r := reqs.Get(requirements.LabelOS)
	if r.Has(want) {
		return nil
	}
	fix := "use a Windows class (e.g. alias \"windows2022@latest\") for Windows nodes, or remove the requirement"
	if want == "windows" {
		fix = "use a Linux class for Linux nodes, or require kubernetes.io/os In [\"windows\"]"
	}
	return rules.Findings{rules.New(ruleOSMismatch, pathRequirements,
		"the pool requires %s, but under amiFamily %s every instance type has kubernetes.io/os=%s: the pool admits no instance type of this class and its pods stay pending; %s.",
		r, f, want, fix)}
}

// arm64GPUFamilies lists the admitted arm64 families with GPUs.
func arm64GPUFamilies(a instancetype.Admission, among []string) []string {
	var out []string
	for _, fam := range among {
		if f := a.Facts[fam]; f.Architecture == instancetype.ARM64 && f.HasGPU() {
			out = append(out, fam)
		}
	}
	return out
}

// arm64GPUFinding words the arm64-gpu-no-image rule for a pool, as
// ami.ForInstance words it for one instance. ids are the class's images
// (nil when only the family is known). It is a warning when the admission
// is a superset (the families "may" be admitted) or the pool selects no
// hardware (see selectsHardware).
func arm64GPUFinding(fams []string, f amifamily.Family, alias string, ids []string, kv versions.Karpenter, exact, chosen bool) rules.Finding {
	karpErr := "no instance types satisfy requirements of amis [...]"
	if len(ids) > 0 {
		karpErr = fmt.Sprintf("no instance types satisfy requirements of amis [%s]", strings.Join(ids, " "))
	}
	if alias == "" {
		alias = "this " + string(f) + " class"
	}
	m := f.Model()
	exclude := fmt.Sprintf("or keep them out of this pool (kubernetes.io/arch In [\"amd64\"], or karpenter.k8s.aws/instance-family NotIn [%s])", quoteJoin(fams))
	consequence := fmt.Sprintf("they match no image of the class, so Karpenter drops them at launch, and with only them as candidates every launch fails with %q", karpErr)
	const k8s = "<kubernetes version>"
	var detail string
	if gap := m.Arm64GPUGap(kv); gap != "" {
		detail = fmt.Sprintf("%s; the pool admits the arm64 GPU families %s, which cannot start with %s: %s. %s for them (a separate EC2NodeClass and NodePool if the rest must stay on %s), %s.",
			gap, strings.Join(fams, ", "), alias, consequence, amifamily.Arm64GPUWayOut(m, kv, k8s), f, exclude)
	} else {
		_, retry := m.Arm64GPUReleaseNote(k8s)
		if retry == "" {
			retry = "an alias whose images include an arm64 NVIDIA one"
		}
		detail = fmt.Sprintf("%s resolves no arm64 NVIDIA image; the pool admits the arm64 GPU families %s: %s. Use %s, %s, %s.",
			alias, strings.Join(fams, ", "), consequence, retry, amifamily.Arm64GPUAlternatives(f, k8s), exclude)
	}
	fd := rules.New(ruleArm64GPU, pathRequirements, "%s", detail)
	switch {
	case !chosen:
		// A pool that selects no hardware admits them only by not
		// excluding them: Karpenter skips them quietly, but a pod that
		// needs an arm64 GPU would stay pending.
		fd = fd.AsWarning()
		fd.Detail += " (The pool admits them only because nothing excludes them; other families still launch, but a pod that needs an arm64 GPU stays pending.)"
	case !exact:
		fd = fd.AsWarning()
		fd.Detail += " (The admitted families are a superset: some requirements could not be evaluated exactly, so these families may not be admitted after all.)"
	}
	return fd
}

// familyTableChecks are Validate's checks on a known ami_family: the class
// filters, the OS, and (when node_class carries no images) the arm64 GPU
// gap, on the embedded catalogue.
// familyTableRule reports whether familyTableChecks reports r: Check
// makes the same checks (with the images when it has them), so after one
// of these errors it would only repeat it.
func familyTableRule(r *rules.Rule) bool {
	return r == ruleA1 || r == ruleWindowsArm64 || r == ruleOSMismatch || r == ruleArm64GPU
}

func familyTableChecks(p Pool, specs []requirements.Spec, kv versions.Karpenter) rules.Findings {
	f := p.Class.Family
	a := instancetype.Admit(specs, instancetype.Embedded(), labelRequirements(p)...)
	if len(a.Families) == 0 {
		return nil // Check reports it, with the live catalogue when there is one
	}
	kept, fs := classFilter(a, f)
	fs = append(fs, checkOS(p, f)...)
	if len(kept) == 0 {
		return fs
	}
	// With images, Check matches them instead (it also sees the images'
	// variants); without, assume the EKS-optimized images of the family.
	if f.Model().Arm64GPUGap(kv) != "" && len(p.Class.AMIs) == 0 && !p.Unknown.Within(pathNodeClass.Attr("amis")) {
		if fams := arm64GPUFamilies(a, kept); len(fams) > 0 {
			fs = append(fs, arm64GPUFinding(fams, f, "", nil, kv, exactAdmission(a), selectsHardware(p)))
		}
	}
	return fs
}

// aliasImages reports whether the images came from an alias: they carry
// variant or OS requirements, where images selected by id, name, tags or
// SSM parameter carry only an architecture.
func aliasImages(amis []ami.AMI) bool {
	for _, a := range amis {
		if a.Variant != "" {
			return true
		}
		for _, r := range a.Requirements {
			if r.Key != ami.LabelArch {
				return true
			}
		}
	}
	return false
}

// offeringKeys are requirement keys that filter offerings (where a type is
// sold), not instance types: leaving them unevaluated does not make the
// admitted families a superset.
var offeringKeys = map[string]bool{
	requirements.LabelZone: true, requirements.LabelRegion: true, requirements.LabelZoneID: true,
	requirements.LabelCapacityType:          true,
	requirements.LabelCapacityReservationID: true, requirements.LabelCapacityReservationType: true,
	requirements.LabelCapacityReservationInterruptible: true,
	requirements.LabelPlacementGroupID:                 true, requirements.LabelPlacementGroupPartition: true,
}

// exactAdmission reports whether the admitted families are exactly what
// Karpenter would consider: every requirement known and evaluated.
func exactAdmission(a instancetype.Admission) bool {
	if !a.Complete {
		return false
	}
	for _, k := range a.Undecided {
		if !offeringKeys[k] {
			return false
		}
	}
	return true
}

func quoteJoin(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// byArch renders families per architecture: "amd64: m5, c5; arm64: m6g".
func byArch(m map[string][]string) string {
	archs := sortedKeys(m)
	parts := make([]string, 0, len(archs))
	for _, a := range archs {
		fams := append([]string(nil), m[a]...)
		sort.Strings(fams)
		parts = append(parts, a+": "+strings.Join(fams, ", "))
	}
	return strings.Join(parts, "; ")
}

// hardwareKeys are the labels that pick instance hardware; a pool that
// constrains none of them positively admits every family "by default".
var hardwareKeys = map[string]bool{
	requirements.LabelInstanceFamily: true, requirements.LabelInstanceType: true,
	requirements.LabelInstanceCategory: true,
	requirements.LabelInstanceGPUCount: true, requirements.LabelInstanceGPUName: true,
	requirements.LabelInstanceGPUManufacturer: true, requirements.LabelInstanceGPUMemory: true,
	requirements.LabelInstanceAcceleratorCount: true, requirements.LabelInstanceAcceleratorName: true,
	requirements.LabelInstanceAcceleratorManufacturer: true,
}

// selectsHardware reports whether the pool chooses instance hardware on
// purpose: a requirement or label that selects (not only excludes) on a
// family, type, category, GPU or accelerator label. Findings that say "the
// pool admits these GPU families" are made for such pools only: a pool
// without any (the usual default pool) admits every family, and Karpenter
// quietly skips the ones no image fits; flagging them would fail or warn on
// every such pool.
func selectsHardware(p Pool) bool {
	reqs := knownRequirements(p)
	for key := range hardwareKeys {
		if !reqs.Has(key) {
			continue
		}
		switch reqs.Get(key).Operator() {
		case requirements.NotIn, requirements.DoesNotExist:
			continue
		}
		return true
	}
	return false
}

// The rules the checks of this file emit.
var (
	ruleWindowsArm64 = rules.Register(rules.Rule{
		ID: "nodepool-windows-arm64", Severity: rules.Error, Category: ClassCategory,
		Title:     "Windows class with only arm64 instance types",
		Behaviour: "Windows images are amd64 only: under a Windows family Karpenter gives arm64 instance types no kubernetes.io/os value (getOS), no Windows image is compatible with them, and launches fail with \"no instance types satisfy requirements of amis [...]\".",
		Source:    "aws/karpenter-provider-aws pkg/providers/instancetype/types.go getOS; amifamily/windows.go",
		Bad:       exampleOn("windows", families("m6g")),
		Good:      exampleOn("windows", families("m5")),
	})
	ruleOSMismatch = rules.Register(rules.Rule{
		ID: "nodepool-os-family-mismatch", Severity: rules.Error, Category: ClassCategory,
		Title:     "kubernetes.io/os requirement contradicts the class's family",
		Behaviour: "Instance types get kubernetes.io/os=windows under a Windows family and linux under every other family; a pool requiring the other OS admits no instance type of this class, and its pods stay pending.",
		Source:    "aws/karpenter-provider-aws pkg/providers/instancetype/types.go getOS",
		Bad:       exampleOn("al2023", reqs(req("kubernetes.io/os", "In", "windows"))),
		Good:      exampleOn("windows", reqs(req("kubernetes.io/os", "In", "windows"))),
	})
	ruleA1 = rules.Register(rules.Rule{
		ID: "nodepool-a1-al2023", Severity: rules.Error, Category: ClassCategory,
		Title:     "a1 is the only family, but AL2023 does not support a1",
		Behaviour: "Karpenter removes a1 instance types for AL2023 classes (amiFamilyCheck: \"a1 instance types are not supported with al2023s\"), so a pool of a1 only has no instance type left and launches nothing.",
		Source:    "aws/karpenter-provider-aws pkg/providers/instancetype/compatibility/compatibility.go amiFamilyCheck",
		Bad:       exampleOn("al2023", families("a1")),
		Good:      exampleOn("al2023", families("m6g")),
	})
)
