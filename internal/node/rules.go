package node

import (
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
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

var (
	ruleManifest = rules.Register(rules.Rule{
		ID: "node-manifest-invalid", Severity: rules.Error, Category: Category,
		Title:     "node_pool or node_class is not one valid NodePool or EC2NodeClass",
		Behaviour: "data \"karpenter_node\" describes a node of one NodePool on one EC2NodeClass: `node_pool` must hold exactly one karpenter.sh/v1 NodePool and `node_class` exactly one karpenter.k8s.aws/v1 EC2NodeClass (YAML or JSON: a resource's `manifest`, or `file()` of one document of a GitOps repository). A file holding both objects, or the objects swapped, describes no node. Each object must also pass the offline rules `validate_manifest` applies (Karpenter or the API server would refuse it otherwise): their errors are reported at the argument with their own rule ids and the manifest path.",
		Source:    "github.com/aws/karpenter-provider-aws v1.14.1 pkg/apis/crds (the CRDs); provider::karpenter::validate_manifest (the same rules)",
		Bad:       example(poolYAML("general", "")+"---\n"+classYAML("default", ""), classYAML("default", ""), "  instance_type = \"m5.large\"\n"),
		Good:      example(poolYAML("general", ""), classYAML("default", ""), "  instance_type = \"m5.large\"\n"),
	})
	ruleClassMismatch = rules.Register(rules.Rule{
		ID: "node-class-mismatch", Severity: rules.Error, Category: Category,
		Title:     "the NodePool's nodeClassRef names another class than node_class",
		Behaviour: "Karpenter launches a NodePool's nodes with the EC2NodeClass its `spec.template.spec.nodeClassRef` names (group karpenter.k8s.aws, kind EC2NodeClass). A node computed for another class (another family, kubelet or block devices) would describe a node that never exists.",
		Source:    "sigs.k8s.io/karpenter v1.14.1 pkg/apis/v1/nodepool.go (nodeClassRef); aws/karpenter-provider-aws pkg/cloudprovider/cloudprovider.go resolveNodeClassFromNodeClaim",
		Bad:       example(poolYAML("general", ""), classYAML("gpu", ""), "  instance_type = \"m5.large\"\n"),
		Good:      example(poolYAML("general", ""), classYAML("default", ""), "  instance_type = \"m5.large\"\n"),
	})
	ruleTypeExcluded = rules.Register(rules.Rule{
		ID: "node-instance-type-excluded", Severity: rules.Error, Category: Category,
		Title:     "the NodePool or its EC2NodeClass does not admit the instance type",
		Behaviour: "Karpenter offers a NodePool only the instance types whose labels its requirements and template labels allow (computeRequirements against the NodeClaim template), after the class's family filters (no a1 on AL2023, no arm64 on Windows). A node of any other type is never launched for the pool; the error names the requirement that excludes the type.",
		Source:    "sigs.k8s.io/karpenter v1.14.1 pkg/controllers/provisioning/scheduling/nodeclaim.go (instance type filtering); aws/karpenter-provider-aws pkg/providers/instancetype/types.go computeRequirements and compatibility/compatibility.go",
		Bad:       example(poolYAML("graviton", arm64Only), classYAML("default", ""), "  instance_type = \"m5.large\"\n"),
		Good:      example(poolYAML("graviton", arm64Only), classYAML("default", ""), "  instance_type = \"m6g.large\"\n"),
	})
	ruleCapacityType = rules.Register(rules.Rule{
		ID: "node-capacity-type-excluded", Severity: rules.Error, Category: Category,
		Title:     "the capacity type is not one the NodePool and the instance type allow",
		Behaviour: "A node's karpenter.sh/capacity-type is one the NodePool's requirements allow and EC2 sells the type as (its usage classes: on-demand, spot), or `reserved` for the capacity reservations the class selects. Left unset, the data source takes what Karpenter prefers: spot when allowed, else on-demand.",
		Source:    "aws/karpenter-provider-aws v1.14.1 pkg/providers/instancetype/types.go computeRequirements (capacity types); pkg/providers/instance getCapacityType",
		Bad:       example(poolYAML("steady", onDemandReq), classYAML("default", ""), "  instance_type = \"m5.large\"\n  capacity_type = \"spot\"\n"),
		Good:      example(poolYAML("steady", onDemandReq), classYAML("default", ""), "  instance_type = \"m5.large\"\n  capacity_type = \"on-demand\"\n"),
	})
	ruleZone = rules.Register(rules.Rule{
		ID: "node-zone-excluded", Severity: rules.Error, Category: Category,
		Title:     "the zone is not one the NodePool, the class's subnets and the type's offerings allow",
		Behaviour: "Karpenter launches a node in a zone the NodePool's topology.kubernetes.io/zone requirement allows, where the EC2NodeClass has a subnet and EC2 offers the instance type (ec2:DescribeInstanceTypeOfferings). The subnets and offerings are read when AWS is configured.",
		Source:    "aws/karpenter-provider-aws v1.14.1 pkg/providers/instancetype/types.go computeRequirements (zones: offerings ∩ subnets); pkg/providers/instancetype/offering",
		Bad:       example(poolYAML("zonal", zoneReq), classYAML("default", ""), "  instance_type = \"m5.large\"\n  zone          = \"us-east-1c\"\n"),
		Good:      example(poolYAML("zonal", zoneReq), classYAML("default", ""), "  instance_type = \"m5.large\"\n  zone          = \"us-east-1a\"\n"),
	})
	ruleCapacity = rules.Register(rules.Rule{
		ID: "node-capacity-unavailable", Severity: rules.Error, Category: Category,
		Title:     "the node's capacity cannot be computed",
		Behaviour: "Capacity, overhead and allocatable follow the instance type's vCPUs, memory, ENIs, GPUs, Neuron devices, EFA and instance storage as ec2:DescribeInstanceTypes reports them; without AWS configured the provider has only family-level facts and does not guess. A class value Karpenter cannot parse (a kube_reserved quantity, an eviction threshold) also stops the computation, as it stops Karpenter's.",
		Source:    "aws/karpenter-provider-aws v1.14.1 pkg/providers/instancetype/types.go NewInstanceType",
		Bad:       "provider \"karpenter\" {\n  # no region: the embedded family facts only\n}\n\n" + example(poolYAML("general", ""), classYAML("default", ""), "  instance_type = \"m5.large\"\n"),
		Good:      "provider \"karpenter\" {\n  region = \"us-east-1\"\n}\n\n" + example(poolYAML("general", ""), classYAML("default", ""), "  instance_type = \"m5.large\"\n"),
	})
	ruleUserData = rules.Register(rules.Rule{
		ID: "node-user-data-unavailable", Severity: rules.Warning, Category: Category,
		Title:     "user_data is null: the cluster facts Karpenter renders into it are not known",
		Behaviour: "Karpenter renders the cluster's name, API endpoint and CA bundle (and for AL2023 the service CIDR) into every node's userData. Without them in the provider's `cluster` block, or a `cluster.name` to read them with eks:DescribeCluster, the data source computes everything else and leaves user_data null. Custom classes need none: their userData is passed through.",
		Source:    "aws/karpenter-provider-aws v1.14.1 pkg/providers/amifamily/resolver.go and bootstrap (Options)",
		Bad:       "provider \"karpenter\" {\n  region = \"us-east-1\"\n  cluster {\n    kubernetes_version = \"1.32\"\n  }\n}\n\n" + example(poolYAML("general", ""), classYAML("default", ""), "  instance_type = \"m5.large\"\n"),
		Good:      "provider \"karpenter\" {\n  region = \"us-east-1\"\n  cluster {\n    name = \"demo\" # endpoint, CA and service CIDR from eks:DescribeCluster\n  }\n}\n\n" + example(poolYAML("general", ""), classYAML("default", ""), "  instance_type = \"m5.large\"\n"),
	})
)
