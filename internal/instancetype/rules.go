package instancetype

import (
	"fmt"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/requirements"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

var pool, req = requirements.ExamplePool, requirements.ExampleRequirement

var (
	ruleAdmitsNothing = rules.Register(rules.Rule{
		ID: "requirements-admit-no-instance-type", Severity: rules.Error, Category: requirements.Category,
		Title:     "the requirements admit no instance type",
		Behaviour: "Karpenter keeps only the instance types whose labels intersect the NodePool's requirements; with none left it launches nothing for the pool and its pods stay pending (\"no instance type met the scheduling requirements or had enough resources, requirements=...\").",
		Source:    "kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/nodeclaim.go filterInstanceTypesByRequirements, compatible",
		Bad:       pool(req("kubernetes.io/arch", "In", `values = ["arm64"]`), req("karpenter.k8s.aws/instance-gpu-manufacturer", "In", `values = ["amd"]`)),
		Good:      pool(req("kubernetes.io/arch", "In", `values = ["amd64"]`), req("karpenter.k8s.aws/instance-gpu-manufacturer", "In", `values = ["amd"]`)),
	})
	ruleUnknownName = rules.Register(rules.Rule{
		ID: "requirement-value-matches-no-instance-type", Severity: rules.Error, Category: requirements.Category,
		Title:     "value names no instance type, family, size or architecture",
		Behaviour: "Karpenter accepts any value, but one that no instance type carries selects nothing: in In it is dead weight (or, alone, leaves the pool without instance types), in NotIn it excludes nothing. An error when nothing the pool admits remains; a warning while other instance types are admitted (a family one region lacks may exist in another).",
		Source:    "aws/karpenter-provider-aws pkg/providers/instancetype/types.go computeRequirements; ec2:DescribeInstanceTypes",
		Bad:       pool(req("node.kubernetes.io/instance-type", "In", `values = ["g5g.medium"]`)),
		Good:      pool(req("node.kubernetes.io/instance-type", "In", `values = ["g5g.xlarge"]`)),
	})
	ruleMinValuesUnsatisfiable = rules.Register(rules.Rule{
		ID: "requirement-min-values-not-satisfiable", Severity: rules.Error, Category: requirements.Category,
		Title:     "the admitted instance types cannot meet min_values",
		Behaviour: "Karpenter counts the distinct values of the key over the instance types the requirements admit; with fewer than minValues it refuses to launch (\"minValues requirement is not met for label(s)\") unless the minValuesPolicy is BestEffort.",
		Source:    "kubernetes-sigs/karpenter pkg/cloudprovider/types.go InstanceTypes.SatisfiesMinValues",
		Bad:       pool(req("karpenter.k8s.aws/instance-family", "In", `values = ["g5g", "g4ad"]`, `min_values = 2`), req("kubernetes.io/arch", "In", `values = ["arm64"]`)),
		Good:      pool(req("karpenter.k8s.aws/instance-family", "In", `values = ["g5g", "g4ad"]`, `min_values = 2`)),
	})
	ruleOfflineMayMatch = rules.Register(rules.Rule{
		ID: "instance-types-offline-may-match", Severity: rules.Warning, Category: requirements.Category,
		Title:     "requirement on a per-type label evaluated as \"may match\" offline",
		Behaviour: "Without AWS the provider knows family-level facts only (architecture, GPU and accelerator kind, names and sizes); vCPU, memory, GPU count and similar values need ec2:DescribeInstanceTypes. Such requirements are treated as matching, so the answer may include families Karpenter would filter out; it never wrongly excludes one.",
		Source:    "this provider: internal/instancetype (embedded catalogue); aws/karpenter-provider-aws pkg/providers/instancetype/types.go computeRequirements",
		Bad:       "# no region, profile or endpoint in the provider block, no AWS_REGION\n" + rules.WithProvider(pool(req("karpenter.k8s.aws/instance-cpu", "Gt", `values = ["4"]`))),
		Good:      rules.WithProvider(pool(req("karpenter.k8s.aws/instance-cpu", "Gt", `values = ["4"]`)), `region = "us-west-2"`),
	})
)

// Findings reports what the admission means for the NodePool: nothing
// admitted, unknown names, unsatisfiable min_values, and (offline) the
// requirements judged "may match". Paths are requirements[i]... (or
// requirements for the set as a whole). Offline, a verdict that could flip
// with a type newer than the embedded list is a warning, never an error.
func (a Admission) Findings() rules.Findings {
	var fs rules.Findings
	offline := a.Source == SourceEmbedded
	for _, u := range a.Unknown {
		p := requirements.Root
		if u.Index >= 0 {
			p = p.Index(u.Index).Attr("values")
		}
		src := "in this region's ec2:DescribeInstanceTypes"
		if offline {
			src = "in the provider's embedded list (new types may be missing from it; configure AWS for a live check)"
		}
		f := rules.New(ruleUnknownName, p,
			"%s %q is not a %s %s%s; Karpenter accepts the value but no instance type carries it, so it selects nothing. Remove it or write a real one.",
			u.Key, u.Value, nameKind(u.Key), src, u.Hint)
		switch {
		case offline:
			// The embedded list can lag behind new instance types.
			f = f.AsWarning()
		case len(a.Families) > 0 && u.Key != requirements.LabelArch:
			// Other values still admit instance types: a module used in
			// several regions may name a family one region lacks (the
			// architectures are the same everywhere).
			f = f.AsWarning()
			f.Detail += " The pool still admits other instance types here, so this is a warning; in a module used in several regions, the value may exist in another."
		}
		fs = append(fs, f)
	}
	if len(a.Families) == 0 {
		f := rules.New(ruleAdmitsNothing, requirements.Root,
			"No instance type %s satisfies these requirements together, so Karpenter would never launch a node for this pool (\"no instance type met the scheduling requirements\"). %s",
			a.sourcePhrase(), a.culpritAdvice())
		if offline && len(a.Unknown) > 0 {
			f = f.AsWarning()
			f.Detail += " Some values are unknown to the embedded list; if they are newer than it, configure AWS for a definite answer."
		}
		fs = append(fs, f)
	}
	for _, m := range a.MinValues {
		f := rules.New(ruleMinValuesUnsatisfiable, a.pathOf(m.Key, "min_values"),
			"minValues %d for %s, but the admitted instance types %s cover only %d distinct value(s); Karpenter refuses to launch (\"minValues requirement is not met for label(s)\"). Widen the other requirements or lower minValues.",
			m.Want, m.Key, a.sourcePhrase(), m.Got)
		if offline {
			f = f.AsWarning()
			f.Detail += " (Counted on the embedded list, which may lack new types.)"
		}
		fs = append(fs, f)
	}
	fs = append(fs, a.excludedValues()...)
	if offline && len(a.Families) > 0 {
		for _, key := range a.Undecided {
			fs = append(fs, rules.New(ruleOfflineMayMatch, a.pathOf(key, "key"),
				"%s depends on per-type facts that only ec2:DescribeInstanceTypes gives, so it was treated as \"may match\" and the admitted families are a superset (never fewer than Karpenter would use). Why offline: %s. Configure AWS (region, profile or endpoint) for an exact answer.",
				key, a.Note))
		}
	}
	return fs
}

// culpritAdvice names the requirements that conflict with the rest.
func (a Admission) culpritAdvice() string {
	cs := a.culprits()
	if len(cs) == 0 {
		return "No single requirement is to blame: two or more of them (or the pool's labels) exclude each other. Check the combination of architecture, family, GPU and size constraints: drop them one at a time to see which subset admits instance types."
	}
	var parts []string
	for _, i := range cs {
		s := a.specs[i]
		parts = append(parts, fmt.Sprintf("requirements[%d] (%s %s %v)", i, s.Key, s.Operator, s.Values))
	}
	return "Without any one of " + strings.Join(parts, ", ") + " some instance types would qualify: that requirement excludes everything the others admit. Relax or remove it."
}

func (a Admission) sourcePhrase() string {
	if a.Source == SourceLive {
		return "of this region"
	}
	return "known offline"
}

// pathOf points at the first requirement on key, or the list.
func (a Admission) pathOf(key, attr string) rules.Path {
	for i, s := range a.specs {
		if !s.Unknown.Key && requirements.Normalize(s.Key) == key {
			return requirements.Root.Index(i).Attr(attr)
		}
	}
	return requirements.Root
}

func nameKind(key string) string {
	switch key {
	case requirements.LabelInstanceType:
		return "known instance type"
	case requirements.LabelInstanceFamily:
		return "known instance family"
	case requirements.LabelInstanceSize:
		return "known instance size"
	case requirements.LabelInstanceCategory:
		return "known instance category"
	case requirements.LabelArch:
		return "Karpenter architecture (amd64, arm64)"
	case requirements.LabelOS:
		return "Karpenter OS (linux, windows)"
	}
	return "value of " + strings.TrimPrefix(key, "karpenter.k8s.aws/") + " any instance type has"
}

// RuleOfflineMayMatch is instance-types-offline-may-match, which a front end
// leaves out where the embedded facts are not standing in for its own
// missing AWS configuration (karpenter-lint says offline once per run).
var RuleOfflineMayMatch = ruleOfflineMayMatch

// RuleUnknownName is requirement-value-matches-no-instance-type, which the
// NodePool check's tests expect of the admission.
var RuleUnknownName = ruleUnknownName
