package drift

import "github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"

// Category is the docs-page section of this package's rules.
const Category = "Drift"

// classExample is an EC2NodeClass with one alias term (its lines) and extra
// arguments.
func classExample(alias []string, args ...string) string {
	tags := `tags = { "karpenter.sh/discovery" = "demo" }`
	items := append([]string{`name = "default"`, `role = "KarpenterNodeRole-demo"`}, args...)
	items = append(items, rules.Block("ami_selector_terms", alias...),
		rules.Block("subnet_selector_terms", tags), rules.Block("security_group_selector_terms", tags))
	return rules.Block(`resource "karpenter_ec2nodeclass" "default"`, items...)
}
