package nodepool

import (
	"fmt"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/requirements"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// mixedArchitectures is the nodepool-mixed-architectures warning: the pool
// admits an architecture the class has no image for (those families are
// dropped at launch), or, when the class serves every admitted
// architecture, it names amd64 and arm64 families explicitly without a
// kubernetes.io/arch requirement.
func mixedArchitectures(p Pool, a instancetype.Admission, kept []string, archs map[string]bool, c ClassFacts) rules.Findings {
	var missing []string
	for _, arch := range a.Architectures {
		if !archs[arch] {
			missing = append(missing, arch)
		}
	}
	if len(missing) == 0 {
		return namedMixedArchitectures(p, a, kept)
	}
	dropped := map[string][]string{}
	for _, arch := range missing {
		dropped[arch] = a.ByArch[arch]
	}
	why := fmt.Sprintf("the class's images are %s only (%s)", strings.Join(sortedKeys(archs), " and "), describeImages(c.AMIs))
	if gap := c.Family.Model().ArchGap(); gap != "" {
		why = gap
	}
	return rules.Findings{rules.New(ruleMixedArch, pathRequirements,
		"the pool admits both architectures (%s), but %s: Karpenter drops the %s families at launch, so they only look available. Require kubernetes.io/arch In [%s] to say what the pool really launches, or give the %s families their own EC2NodeClass and NodePool.",
		byArch(a.ByArch), why, strings.Join(missing, " and "), quoteJoin(sortedKeys(archs)), strings.Join(missing, " and "))}
}

// namedMixedArchitectures: families written in instance-family or
// instance-type requirements span amd64 and arm64, and nothing pins the
// architecture. It needs no class images, so it also runs when they are
// not known.
func namedMixedArchitectures(p Pool, a instancetype.Admission, kept []string) rules.Findings {
	reqs := knownRequirements(p)
	if reqs.Has(requirements.LabelArch) {
		return nil
	}
	keep := map[string]bool{}
	for _, f := range kept {
		keep[f] = true
	}
	named := map[string][]string{}
	seen := map[string]bool{}
	for _, s := range Specs(p) {
		if s.Unknown.Any() || requirements.Operator(s.Operator) != requirements.In {
			continue
		}
		key := requirements.Normalize(s.Key)
		if key != requirements.LabelInstanceFamily && key != requirements.LabelInstanceType {
			continue
		}
		for _, v := range s.Values {
			fam := v
			if key == requirements.LabelInstanceType {
				fam, _, _ = instancetype.SplitType(v)
			}
			if !keep[fam] || seen[fam] {
				continue
			}
			seen[fam] = true
			arch := a.Facts[fam].Architecture
			named[arch] = append(named[arch], fam)
		}
	}
	if len(named) < 2 {
		return nil
	}
	return rules.Findings{rules.New(ruleMixedArch, pathRequirements,
		"the requirements name families of both architectures (%s) and nothing pins kubernetes.io/arch: Karpenter picks among them by price and availability, so a pod without an arch nodeSelector can land on either and every image it runs must be multi-arch. If that is intended, say so with kubernetes.io/arch In [\"amd64\", \"arm64\"]; otherwise keep one architecture's families, or give each its own NodePool.",
		byArch(named))}
}

// The rules the checks of this file emit.
var (
	ruleMixedArch = rules.Register(rules.Rule{
		ID: "nodepool-mixed-architectures", Severity: rules.Warning, Category: ClassCategory,
		Title:     "the pool mixes architectures",
		Behaviour: "Karpenter picks among all admitted instance types by price and availability. Types of an architecture the class has no image for are dropped at launch (so part of the pool's requirements is dead); and when the pool lists amd64 and arm64 families without a kubernetes.io/arch requirement, a pod without an arch nodeSelector can land on either, so every image it runs must be multi-arch.",
		Source:    "aws/karpenter-provider-aws pkg/providers/amifamily/resolver.go Resolve; pkg/providers/instancetype/types.go getArchitecture",
		Bad:       exampleOn("custom_amd64", families("m5", "m6g")),
		Good:      exampleOn("custom_amd64", families("m5", "c5")),
	})
)
