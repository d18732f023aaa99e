package manifestcheck

// Category is the rules guide section of the manifest rules.
const Category = "Manifests"

// example is a rule's docs example: validate_manifest on a YAML heredoc,
// the way the function is called from a check block or a module.
func example(yaml string) string {
	return "locals {\n  findings = provider::karpenter::validate_manifest(<<-EOT\n" + indent(yaml, "    ") + "  EOT\n  )\n}"
}

// nodePool is a NodePool document whose spec.template.spec is spec.
func nodePool(spec string) string {
	return "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: default\nspec:\n  template:\n    spec:\n" + spec
}

const nodeClassRef = "      nodeClassRef:\n        group: karpenter.k8s.aws\n        kind: EC2NodeClass\n        name: default\n"

// familyRequirement asks for three instance families with the field
// named minValues (or a misspelling of it).
func familyRequirement(minValues string) string {
	return "      requirements:\n        - key: karpenter.k8s.aws/instance-family\n          operator: Exists\n          " + minValues + ": 3\n"
}
