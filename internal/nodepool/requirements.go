package nodepool

import (
	"maps"
	"slices"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/requirements"
)

// Specs returns the pool's requirements in the requirements package's form,
// with the parts Unknown marks flagged.
func Specs(p Pool) []requirements.Spec {
	rs := p.spec().Requirements
	out := make([]requirements.Spec, len(rs))
	for i, r := range rs {
		ip := pathRequirements.Index(i)
		out[i] = requirements.Spec{
			Key: r.Key, Operator: r.Operator, Values: r.Values, MinValues: r.MinValues,
			Unknown: requirements.Unknown{
				Key:       p.Unknown.Is(ip.Attr("key")),
				Operator:  p.Unknown.Is(ip.Attr("operator")),
				Values:    p.Unknown.Within(ip.Attr("values")),
				MinValues: p.Unknown.Is(ip.Attr("min_values")),
			},
		}
	}
	return out
}

// labelRequirements are the template labels as In requirements, which
// Karpenter adds to the pool's requirements (NewLabelRequirements). Labels
// that are unknown or invalid are left out (Validate reports the invalid).
func labelRequirements(p Pool) []*requirements.Requirement {
	if p.Unknown.Is(pathLabels) {
		return nil
	}
	var out []*requirements.Requirement
	for _, k := range sortedKeys(p.labels()) {
		v := p.labels()[k]
		if p.Unknown.Is(pathLabels.Key(k)) || len(labelProblems(k, v)) > 0 {
			continue
		}
		out = append(out, requirements.New(k, requirements.In, v))
	}
	return out
}

// knownRequirements merges the known requirements and labels, as Karpenter
// builds a NodeClaim template's requirement set.
func knownRequirements(p Pool) requirements.Requirements {
	reqs, _ := requirements.FromSpecs(Specs(p))
	reqs.Add(labelRequirements(p)...)
	return reqs
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
