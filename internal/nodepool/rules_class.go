package nodepool

import (
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata/lint"
)

// The cross-checks between a NodePool and its EC2NodeClass reuse the
// rules other packages own where the check is the same, registered next to
// their own checks there (and instancetype's admission rules).
var (
	ruleArm64GPU     = ami.RuleArm64GPU
	ruleNonAliasGPU  = ami.RuleNonAliasGPU
	ruleAMDGPU       = ami.RuleAMDGPU
	ruleNoImage      = ami.RuleNoCompatibleImage
	ruleVariantSwap  = ami.RuleVariantSwap
	ruleFirstMatch   = ami.RuleFirstMatchBug
	ruleUnregistered = lint.RuleUnregisteredMissing
)

// RuleFactsUnknown is nodepool-node-class-facts-unknown, about the
// resource's node_class given by name only, which a manifest has not.
var RuleFactsUnknown = ruleFactsUnknown
