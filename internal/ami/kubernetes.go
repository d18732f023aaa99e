package ami

import (
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// KubernetesUnsupported is the warning about a cluster version outside the
// range Karpenter supports, at p (the version's attribute, or the alias it
// resolves), or nil when v is within the range.
func KubernetesUnsupported(v versions.Kubernetes, p rules.Path) rules.Findings {
	if v.SupportedByKarpenter() {
		return nil
	}
	return rules.Findings{rules.New(RuleKubernetesUnsupported, p,
		"Kubernetes %s is outside the range Karpenter supports (1.%d to 1.%d): Karpenter logs \"karpenter is not compatible with kubernetes version\" and is untested there, and EKS-optimized images may not be published for it. Use a version from 1.%d to 1.%d.",
		v, versions.MinKubernetesMinor, versions.MaxKubernetesMinor, versions.MinKubernetesMinor, versions.MaxKubernetesMinor)}
}
