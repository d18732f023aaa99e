package nodeclass

import "github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"

const category = "EC2NodeClass"

// Docs examples are arguments and blocks of a karpenter_ec2nodeclass, or a
// whole one (class).

// class is a karpenter_ec2nodeclass with name, role, an alias and the given
// arguments and blocks.
func class(items ...string) string {
	head := []string{`name = "default"`, `role = "KarpenterNodeRole-prod"`, `ami_selector_terms { alias = "al2023@latest" }`}
	return rules.Block(`resource "karpenter_ec2nodeclass" "x"`, append(head, items...)...)
}

// The rules a front end treats apart: alias-latest-drift advises the
// resource's pin_amis, and custom-bootstrap-other-cluster needs the cluster
// the class is for (karpenter-lint asks --cluster).
var (
	RuleLatestDrift  = ruleLatestDrift
	RuleOtherCluster = ruleOtherCluster
	// RuleBootstrapFamily is about the provider's bootstrap block, which
	// no manifest has.
	RuleBootstrapFamily = ruleBootstrapFamily
)
