package ami

import (
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

const category = "AMI selection"

// Each rule's Source cites where Karpenter (A = karpenter-provider-aws
// v1.14.1) or its CRD enforces the behaviour.

// Docs examples are, unless they say otherwise, arguments and blocks of a
// karpenter_ec2nodeclass (the same terms serve karpenter_amis and
// karpenter_ami).

// term is one ami_selector_terms block.
func term(args ...string) string { return rules.Block("ami_selector_terms", args...) }

// custom is a fragment whose terms are no alias: such a class names its
// ami_family (the userData format), written after any leading comment.
func custom(items ...string) string {
	i := 0
	for i < len(items) && strings.HasPrefix(items[i], "#") {
		i++
	}
	return rules.Body(append(append(append([]string{}, items[:i]...), `ami_family = "AL2023"`), items[i:]...)...)
}

// nodeClass is a whole karpenter_ec2nodeclass with the given
// ami_selector_terms blocks.
func nodeClass(terms ...string) string {
	items := append([]string{`name = "default"`, `role = "KarpenterNodeRole-prod"`}, terms...)
	items = append(items, `subnet_selector_terms { tags = { "karpenter.sh/discovery" = "prod" } }`,
		`security_group_selector_terms { tags = { "karpenter.sh/discovery" = "prod" } }`)
	return rules.Block(`resource "karpenter_ec2nodeclass" "x"`, items...)
}

// FamilyPath is the attribute of the amiFamily.
var FamilyPath = rules.Root("ami_family")
