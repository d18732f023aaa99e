package nodepool

import (
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/requirements"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// familyKeys are the requirement keys that choose instance families, most
// specific first: a finding about what the requirements admit belongs on
// the requirement that names the families.
var familyKeys = []string{
	requirements.LabelInstanceFamily, requirements.LabelInstanceType, requirements.LabelInstanceCategory,
	requirements.LabelInstanceGPUName, requirements.LabelInstanceGPUManufacturer, requirements.LabelInstanceGPUCount,
	requirements.LabelInstanceAcceleratorName, requirements.LabelInstanceAcceleratorManufacturer, requirements.LabelInstanceAcceleratorCount,
	requirements.LabelArch,
}

// Locate points the findings made about the requirements as a whole at the
// values of the requirement that chooses the instance families (and so at their line in
// the configuration): Terraform can show a line for one block, not for a
// list of blocks. With no such requirement the path stays the list.
func Locate(p Pool, fs rules.Findings) rules.Findings {
	at, ok := familyRequirement(p)
	if !ok {
		return fs
	}
	out := make(rules.Findings, len(fs))
	for i, f := range fs {
		if f.Path.String() == pathRequirements.String() {
			f.Path = at
		}
		out[i] = f
	}
	return out
}

func familyRequirement(p Pool) (rules.Path, bool) {
	rs := p.spec().Requirements
	for _, key := range familyKeys {
		for i, r := range rs {
			if requirements.Normalize(r.Key) == key && !p.Unknown.Is(pathRequirements.Index(i).Attr("key")) {
				// Terraform resolves a path to an attribute's line, not to a
				// block's: point at the values that name the families.
				return pathRequirements.Index(i).Attr("values"), true
			}
		}
	}
	return rules.Path{}, false
}
