package lint

import (
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/taints"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// RegisteredTaints returns the taints Custom userData registers the node
// with, as far as the linter can read them (bootstrap.sh extra args,
// NodeConfig registerWithTaints or flags, Bottlerocket node-taints, the
// -KubeletExtraArgs of Start-EKSBootstrap.ps1; where an option is repeated,
// the last one). karpenter.sh/unregistered:NoExecute is included whenever
// Lint reports no error for it missing, e.g. when it is set through a
// variable only known at boot, which Lint reports as a warning. NodePools
// use this to check their startup taints.
func RegisteredTaints(userData string, karpenter versions.Karpenter) []taints.Taint {
	c := &lintCtx{format: amifamily.FormatCustom, karpenter: karpenter}
	c.lintCustom(userData)
	out := c.registeredTaints()
	for _, f := range c.fs {
		if f.Rule == ruleUnregisteredMissing && f.Severity == rules.Error {
			return out
		}
	}
	if hasUnregistered(out) {
		return out
	}
	return append(out, taints.Unregistered)
}
