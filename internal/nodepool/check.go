package nodepool

import (
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/requirements"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// Result is what Check finds and computes.
type Result struct {
	Findings rules.Findings
	// Admission is what the requirements and template labels admit from
	// the catalogue, before the class's filters.
	Admission instancetype.Admission
	// InstanceFamilies are the admitted families Karpenter would consider
	// for this class, sorted: after the class-level filters (a1 under
	// AL2023, arm64 under Windows). Families that then get no image are
	// still listed (and reported in Findings).
	InstanceFamilies []string
	// Assignments say which image each admitted family gets, by strict
	// matching; empty when the class's images are not known.
	Assignments []Assignment
	// FamiliesKnown is false while InstanceFamilies depends on values not
	// known yet (requirements, labels, the class's facts): the resource
	// then leaves instance_families unknown. AssignmentsKnown likewise.
	FamiliesKnown, AssignmentsKnown bool
}

// Assignment is one image and the admitted families that boot it.
type Assignment struct {
	Architecture     string
	Variant          amifamily.Variant
	AMIID, AMIName   string
	InstanceFamilies []string
}

// Check cross-checks the pool with its EC2NodeClass (p.Class) on a
// catalogue (live DescribeInstanceTypes or the embedded facts) for
// Karpenter release kv, and computes instance_families and ami_assignments
// (what aws/karpenter-provider-aws pkg/providers/amifamily resolver.go
// Resolve and ami.go MapToInstanceTypes would launch). It assumes Validate ran:
// requirement errors are not repeated, the admission-based checks are
// skipped instead. Class facts not known yet are waited for silently; a
// class given only by name gets one warning and the rest still runs.
func Check(p Pool, cat *instancetype.Catalogue, kv versions.Karpenter) Result {
	var r Result
	pending := p.factsPending(imageFactPaths)
	known := p.Class.Known && !pending
	if !p.classFactsPending() && !p.Class.Known {
		r.Findings = append(r.Findings, rules.New(ruleFactsUnknown, pathNodeClass,
			"node_class names EC2NodeClass %q without its facts (images, userData%s), so the checks that need them are skipped: architecture against the images, GPU images, Custom userData taints; ami_assignments stays empty. Karpenter still applies them at launch. Pass the node_class of the EC2NodeClass managed alongside, not only its name, to have them made.",
			p.spec().NodeClassRef.Name, familyNote(p.Class.Family)))
	}
	if p.Class.Known && !p.factsPending(taintFactPaths) && !p.Unknown.Is(pathNodeClass.Attr("ami_family")) {
		r.Findings = append(r.Findings, checkCustom(p, kv)...)
	}
	specs := Specs(p)
	if cat == nil || requirements.Validate(specs, kv).HasBlockingErrors() {
		return r
	}
	a := instancetype.Admit(specs, cat, labelRequirements(p)...)
	r.Admission = a
	r.Findings = append(r.Findings, admissionFindings(a)...)
	r.FamiliesKnown = a.Complete && !pending && !p.Unknown.Within(pathLabels)
	r.AssignmentsKnown = r.FamiliesKnown
	if len(a.Families) == 0 {
		return r
	}
	family := p.Class.Family
	if pending {
		family = ""
	}
	kept, fs := classFilter(a, family)
	r.InstanceFamilies = kept
	r.Findings = append(r.Findings, fs...)
	r.Findings = append(r.Findings, checkOS(p, family)...)
	if len(kept) == 0 || pending {
		return r
	}
	if !known || len(p.Class.AMIs) == 0 {
		// No images to match (a class managed elsewhere, or one whose
		// selection failed, which its own resource reports). The
		// family-table checks on a known ami_family are Validate's.
		if a.Complete {
			r.Findings = append(r.Findings, namedMixedArchitectures(p, a, kept)...)
		}
		return r
	}
	m := assign(a, kept, p.Class)
	r.Assignments = m.assignments()
	r.Findings = append(r.Findings, imageFindings(p, a, kept, m, kv)...)
	return r
}

// CrossChecksApply says whether Check (and the zone checks that build on
// its admission) still has something to say after Validate found the
// errors in validated. They read the requirements, the node labels and
// node_class: an error there, or a family-table error (which the image
// checks would repeat), stops them. An error anywhere else (name, taints,
// durations, disruption, limits, weight, metadata) is about a value they
// never read, so both are reported together; so is a near miss, whose
// value Karpenter takes as written. Check itself skips the admission when
// a requirement is invalid.
func CrossChecksApply(validated rules.Findings) bool {
	for _, f := range validated {
		if f.Severity != rules.Error || f.Rule.Acknowledgeable {
			continue
		}
		if familyTableRule(f.Rule) || pathLabels.Contains(f.Path) || pathNodeClass.Contains(f.Path) {
			return false
		}
	}
	return true
}

// admissionFindings are the instancetype package's findings on the
// admission: a value that names nothing is an error with live facts and a
// warning offline, where the embedded list may lag behind new types.
func admissionFindings(a instancetype.Admission) rules.Findings {
	return a.Findings()
}

func familyNote(f amifamily.Family) string {
	if f == "" {
		return ", amiFamily"
	}
	return "; only amiFamily " + string(f) + " is given"
}

// The rules the checks of this file emit.
var (
	ruleFactsUnknown = rules.Register(rules.Rule{
		ID: "nodepool-node-class-facts-unknown", Severity: rules.Warning, Category: ClassCategory,
		Title:     "node_class names a class managed elsewhere: cross-checks skipped",
		Behaviour: "node_class carries only a name, so the provider does not know the class's AMIs, family or userData: architecture, GPU image, Windows and Custom-taint checks cannot run, and ami_assignments stays empty. Karpenter itself still applies them at launch.",
		Source:    "this provider: karpenter_nodepool node_class (a literal { name = ... } carries no class facts)",
		Bad:       exampleFull("default", `{ name = "default" }`),
		Good:      exampleFull("default", "karpenter_ec2nodeclass.default.node_class"),
	})
)
