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

// The rules the checks of this file emit.
var (
	RuleKubernetesUnsupported = rules.Register(rules.Rule{
		ID: "kubernetes-version-unsupported", Severity: rules.Warning, Category: category,
		Title:     "a Kubernetes version outside the range Karpenter supports",
		Behaviour: "Karpenter supports Kubernetes 1.26 to 1.36 (MinK8sVersion, MaxK8sVersion); outside that range it logs \"karpenter is not compatible with kubernetes version\" and its behaviour is untested, and EKS-optimized images may not be published for the version.",
		Source:    "A:pkg/providers/version/version.go DefaultProvider.UpdateVersion",
		Bad:       rules.Block(`data "karpenter_amis" "x"`, `kubernetes_version = "1.25"`, term(`alias = "al2023@latest"`)),
		Good:      rules.Block(`data "karpenter_amis" "x"`, `kubernetes_version = "1.32"`, term(`alias = "al2023@latest"`)),
	})
)
