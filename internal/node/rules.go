package node

import (
	"strings"
)

// Category is the rules guide section of data "karpenter_node".
const Category = "Nodes"

// example is a docs example: data "karpenter_node" with inline manifests.
func example(pool, class, extra string) string {
	return "data \"karpenter_node\" \"example\" {\n  node_pool     = <<-EOT\n" + indent(pool) + "  EOT\n  node_class    = <<-EOT\n" + indent(class) + "  EOT\n" + extra + "}\n"
}

func indent(s string) string {
	var b strings.Builder
	for l := range strings.Lines(s) {
		b.WriteString("    " + l)
	}
	return b.String()
}

// poolYAML is a NodePool on class "default" with spec.template.spec lines.
func poolYAML(name, spec string) string {
	return "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: " + name + "\nspec:\n  template:\n    spec:\n" +
		"      nodeClassRef:\n        group: karpenter.k8s.aws\n        kind: EC2NodeClass\n        name: default\n" + withRequirements(spec)
}

// withRequirements: the CRD requires spec.template.spec.requirements.
func withRequirements(spec string) string {
	if strings.Contains(spec, "requirements:") {
		return spec
	}
	return "      requirements: []\n" + spec
}

// classYAML is an AL2023 EC2NodeClass named name with extra spec lines.
func classYAML(name, spec string) string {
	return "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata:\n  name: " + name + "\nspec:\n  role: KarpenterNodeRole-demo\n" +
		"  amiSelectorTerms:\n    - alias: al2023@latest\n  subnetSelectorTerms:\n    - tags:\n        karpenter.sh/discovery: demo\n" +
		"  securityGroupSelectorTerms:\n    - tags:\n        karpenter.sh/discovery: demo\n" + spec
}

const (
	arm64Only   = "      requirements:\n        - key: kubernetes.io/arch\n          operator: In\n          values: [\"arm64\"]\n"
	onDemandReq = "      requirements:\n        - key: karpenter.sh/capacity-type\n          operator: In\n          values: [\"on-demand\"]\n"
	zoneReq     = "      requirements:\n        - key: topology.kubernetes.io/zone\n          operator: In\n          values: [\"us-east-1a\", \"us-east-1b\"]\n"
)
