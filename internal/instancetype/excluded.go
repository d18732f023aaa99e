package instancetype

import (
	"fmt"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/requirements"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

var ruleValueExcluded = rules.Register(rules.Rule{
	ID: "requirement-value-excluded-by-other-requirement", Severity: rules.Warning, Category: requirements.Category,
	Title:     "a value listed in In is excluded by the pool's other requirements",
	Behaviour: "Karpenter intersects all of a NodePool's requirements (and its labels): an instance type is launched only if it satisfies every one. A value listed by name in an In requirement (a family, type, category, size, generation, architecture) whose instance types all fail another requirement of the same pool is never launched: `instance-family In [m5, r5, a1]` with `instance-generation Gt 5` launches none of them. Karpenter accepts the pool and says nothing; the pool is narrower than it reads. Reported when other values still admit instance types (with none left, requirements-admit-no-instance-type says so). Offline the instance facts are per family and a requirement on per-type facts is taken as \"may match\", so a value is reported only when it is certainly excluded.",
	Source:    "kubernetes-sigs/karpenter pkg/scheduling/requirements.go (Requirements.Intersects), pkg/controllers/provisioning/scheduling/nodeclaim.go filterInstanceTypesByRequirements; aws/karpenter-provider-aws pkg/providers/instancetype/types.go computeRequirements (the labels per type)",
	Bad:       pool(req("karpenter.k8s.aws/instance-family", "In", `values = ["m5", "a1", "m6g", "r6g"]`), req("karpenter.k8s.aws/instance-generation", "Gt", `values = ["5"]`)),
	Good:      pool(req("karpenter.k8s.aws/instance-family", "In", `values = ["m6g", "r6g", "c7g"]`), req("karpenter.k8s.aws/instance-generation", "Gt", `values = ["5"]`)),
})

// excludedValues reports, per In requirement on a label the instance types
// carry, the values no admitted type has although the catalogue has types
// with them: the pool's other requirements exclude them.
func (a Admission) excludedValues() rules.Findings {
	if len(a.Families) == 0 || a.cat == nil {
		return nil
	}
	unknown := map[string]bool{}
	for _, u := range a.Unknown {
		unknown[fmt.Sprint(u.Index, u.Key, u.Value)] = true
	}
	var fs rules.Findings
	for i, s := range a.specs {
		key := requirements.Normalize(s.Key)
		if s.Unknown.Key || s.Unknown.Operator || s.Unknown.Values || requirements.Operator(s.Operator) != requirements.In {
			continue
		}
		var dead []string
		culprits := map[int]bool{}
		for _, v := range s.Values {
			if unknown[fmt.Sprint(i, key, v)] || a.admitsValue(key, v) {
				continue
			}
			carriers := a.cat.typesWith(key, v)
			if len(carriers) == 0 {
				continue // not a value of a type label the catalogue has
			}
			dead = append(dead, v)
			for j, o := range a.specs {
				if j == i {
					continue
				}
				if r, ok := o.Requirement(); ok && !anyOverlaps(carriers, requirements.NewRequirements(r)) {
					culprits[j] = true
				}
			}
		}
		if len(dead) == 0 {
			continue
		}
		var by []string
		for j := range a.specs {
			if culprits[j] {
				o := a.specs[j]
				by = append(by, fmt.Sprintf("requirements[%d] (%s %s %v)", j, o.Key, o.Operator, o.Values))
			}
		}
		who := "the pool's other requirements together (or its labels, or what its EC2NodeClass implies)"
		if len(by) > 0 {
			who = strings.Join(by, ", ")
		}
		fs = append(fs, rules.New(ruleValueExcluded, requirements.Root.Index(i).Attr("values"),
			"%s lists %s, but %s exclude(s) every instance type with %s: Karpenter intersects a pool's requirements, so %s never launched while the pool still admits %s. Remove %s from the list, or relax the requirement that excludes %s.",
			s.Key, quoteAll(dead), who, map[bool]string{true: "that value", false: "those values"}[len(dead) == 1],
			map[bool]string{true: "it is", false: "they are"}[len(dead) == 1], familiesPhrase(a.Families),
			map[bool]string{true: "it", false: "them"}[len(dead) == 1], map[bool]string{true: "it", false: "them"}[len(dead) == 1]))
	}
	return fs
}

// admitsValue reports whether an admitted type carries value v of key.
func (a Admission) admitsValue(key, v string) bool {
	for _, t := range a.admitted {
		if t.labels.Has(key) && t.labels.Get(key).Has(v) {
			return true
		}
	}
	return false
}

// typesWith are the catalogue's types whose label key is exactly v.
func (c *Catalogue) typesWith(key, v string) []Type {
	var out []Type
	for _, t := range c.types {
		if r := t.labels.Get(key); t.labels.Has(key) && r.Operator() == requirements.In && r.Has(v) {
			out = append(out, t)
		}
	}
	return out
}

func anyOverlaps(ts []Type, r requirements.Requirements) bool {
	for _, t := range ts {
		if t.labels.Overlaps(r) {
			return true
		}
	}
	return false
}

func quoteAll(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, ", ")
}

func familiesPhrase(fams []string) string {
	if len(fams) > 4 {
		return fmt.Sprintf("%d families (%s, ...)", len(fams), strings.Join(fams[:4], ", "))
	}
	return "the families " + strings.Join(fams, ", ")
}
