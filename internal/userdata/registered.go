package userdata

import (
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/taints"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// RegisteredTaints returns the taints Custom userData registers the node
// with, as far as the linter can read them (bootstrap.sh extra args,
// NodeConfig registerWithTaints or flags, Bottlerocket node-taints).
// karpenter.sh/unregistered:NoExecute is included whenever Lint would not
// report it missing, e.g. when it is set through a variable the linter
// cannot follow. NodePools use this to check their startup taints.
func RegisteredTaints(userData string, karpenter versions.Karpenter) []taints.Taint {
	c := &lintCtx{family: Custom, karpenter: karpenter}
	c.lintCustom(userData)
	out := append([]taints.Taint(nil), c.registered...)
	for _, f := range c.fs {
		if f.Rule == ruleUnregisteredMissing {
			return out
		}
	}
	for _, t := range out {
		if t.Matches(taints.Unregistered) {
			return out
		}
	}
	return append(out, taints.Unregistered)
}
