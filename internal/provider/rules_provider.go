package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// The adapter's own rules: provider configuration, AWS access, and the
// Terraform side of the resources. Every diagnostic the provider emits
// carries a rule id (the summary "<id>: <title>"), these included.
const categoryProvider = "Provider, AWS access and Terraform"

var (
	ruleProviderConfig = rules.Register(rules.Rule{
		ID: "provider-config-invalid", Severity: rules.Error, Category: categoryProvider,
		Title:     "a provider argument has a value the provider cannot use",
		Behaviour: "karpenter_version must be a Karpenter release the rules know (1.0 to 1.14); assume_role.duration a Go duration; each endpoints URL an absolute http(s) URL; max_retries 0 to 100; retry_mode `standard` or `adaptive` (the AWS SDK's retry modes). The AWS SDK would fail every request, or the rules would judge a release the cluster does not run.",
		Source:    "aws-sdk-go-v2 config.LoadDefaultConfig and aws/retry; Karpenter releases (github.com/aws/karpenter-provider-aws/releases)",
		Bad:       "provider \"karpenter\" {\n  karpenter_version = \"0.37\"\n  retry_mode        = \"fast\"\n}\n",
		Good:      "provider \"karpenter\" {\n  karpenter_version = \"1.14\"\n  retry_mode        = \"adaptive\"\n}\n",
	})
	ruleClusterConfig = rules.Register(rules.Rule{
		ID: "cluster-config-invalid", Severity: rules.Error, Category: categoryProvider,
		Title:     "a cluster fact in the provider's cluster block is malformed",
		Behaviour: "The cluster block feeds alias resolution (kubernetes_version picks the SSM parameters) and rendered userData (endpoint, certificate_authority, service_cidr, cluster_dns reach bootstrap.sh, nodeadm's NodeConfig or Bottlerocket's settings). A malformed value would render userData the node cannot join with: nodeadm rejects a NodeConfig whose apiServerEndpoint is not a URL, the kubelet a clusterDNS that is not an IP.",
		Source:    "awslabs/amazon-eks-ami nodeadm api/v1alpha1 NodeConfig validation; kubelet --cluster-dns",
		Bad:       "provider \"karpenter\" {\n  cluster {\n    name               = \"demo\"\n    kubernetes_version = \"1.32.3\"\n    service_cidr       = \"172.20.0.0\"\n  }\n}\n",
		Good:      "provider \"karpenter\" {\n  cluster {\n    name               = \"demo\"\n    kubernetes_version = \"1.32\"\n    service_cidr       = \"172.20.0.0/16\"\n  }\n}\n",
	})
	ruleKubernetesVersionNeeded = rules.Register(rules.Rule{
		ID: "kubernetes-version-needed", Severity: rules.Error, Category: categoryProvider,
		Title:     "an alias needs the cluster's Kubernetes version, and none is known",
		Behaviour: "Karpenter resolves an alias through SSM parameters that are published per Kubernetes minor (/aws/service/eks/optimized-ami/<version>/...); it reads the version from the cluster. The provider has no cluster connection, so it takes the version from the data source's kubernetes_version, the provider's cluster block, or eks:DescribeCluster of cluster.name.",
		Source:    "aws/karpenter-provider-aws pkg/providers/amifamily (SSM alias paths); pkg/providers/version",
		Bad:       "data \"karpenter_amis\" \"default\" {\n  ami_selector_terms {\n    alias = \"al2023@latest\"\n  }\n}\n",
		Good:      "data \"karpenter_amis\" \"default\" {\n  kubernetes_version = \"1.32\"\n  ami_selector_terms {\n    alias = \"al2023@latest\"\n  }\n}\n",
	})
	ruleKubernetesVersionInvalid = rules.Register(rules.Rule{
		ID: "kubernetes-version-invalid", Severity: rules.Error, Category: categoryProvider,
		Title:     "kubernetes_version is not a Kubernetes minor such as 1.32",
		Behaviour: "The SSM parameter paths Karpenter reads contain the minor version only (`1.32`); a patch version or other text matches no parameter.",
		Source:    "aws/karpenter-provider-aws pkg/providers/amifamily/al2023.go DescribeImageQuery (SSM path per Kubernetes minor)",
		Bad:       "data \"karpenter_amis\" \"default\" {\n  kubernetes_version = \"v1.32.3\"\n  ami_selector_terms {\n    alias = \"al2023@latest\"\n  }\n}\n",
		Good:      "data \"karpenter_amis\" \"default\" {\n  kubernetes_version = \"1.32\"\n  ami_selector_terms {\n    alias = \"al2023@latest\"\n  }\n}\n",
	})
	ruleAWSRequestFailed = rules.Register(rules.Rule{
		ID: "aws-request-failed", Severity: rules.Error, Category: categoryProvider,
		Title:     "an AWS request the check needs failed",
		Behaviour: "The plan-time checks read what Karpenter reads (EC2 images and instance types, SSM parameters, EKS cluster facts). When a request fails for a reason of its own (throttled past max_retries, a server error, an answer the SDK cannot read) the provider cannot predict what Karpenter would do, and says so rather than guessing. A configuration AWS refuses, a denied permission and an endpoint that does not answer have rules of their own (aws-config-failed, aws-permission-denied, readiness-read-denied, aws-endpoint-unreachable).",
		Source:    "aws-sdk-go-v2 (the API error is quoted); the provider's IAM policy in the index page",
		Bad:       "provider \"karpenter\" {\n  region      = \"us-west-2\"\n  max_retries = 0 # a throttled read fails the plan\n}\n",
		Good:      "provider \"karpenter\" {\n  region     = \"us-west-2\"\n  retry_mode = \"adaptive\" # and the default max_retries, 25\n}\n",
	})
	ruleInstanceTypeInvalid = rules.Register(rules.Rule{
		ID: "instance-type-invalid", Severity: rules.Error, Category: categoryProvider,
		Title:     "instance_type is not an EC2 instance type of this region",
		Behaviour: "Karpenter only launches instance types that ec2:DescribeInstanceTypes lists in the region; a name that is not family.size, or a type the region does not offer, is never launched.",
		Source:    "aws/karpenter-provider-aws pkg/providers/instancetype (DescribeInstanceTypes)",
		Bad:       "data \"karpenter_ami\" \"gpu\" {\n  instance_type = \"g5g-xlarge\"\n  ami_selector_terms {\n    alias = \"al2023@latest\"\n  }\n}\n",
		Good:      "data \"karpenter_ami\" \"gpu\" {\n  instance_type = \"g5g.xlarge\"\n  ami_selector_terms {\n    alias = \"al2023@latest\"\n  }\n}\n",
	})
	ruleAMIQueryArguments = rules.Register(rules.Rule{
		ID: "ami-query-arguments-invalid", Severity: rules.Error, Category: categoryProvider,
		Title:     "karpenter_ami needs exactly one of instance_type and architecture",
		Behaviour: "karpenter_ami answers which image one instance gets: Karpenter matches the instance's architecture and accelerator against each image's requirements. It needs either an instance type (its facts give both) or an architecture (`amd64` or `arm64`) with an optional accelerator (`none`, `nvidia`, `neuron`); `accelerator` with `instance_type` would contradict the type's own facts.",
		Source:    "aws/karpenter-provider-aws pkg/providers/amifamily/resolver.go (requirements per image, matched against the instance type)",
		Bad:       "data \"karpenter_ami\" \"gpu\" {\n  instance_type = \"g5g.xlarge\"\n  accelerator   = \"nvidia\"\n  ami_selector_terms {\n    alias = \"al2023@latest\"\n  }\n}\n",
		Good:      "data \"karpenter_ami\" \"gpu\" {\n  architecture = \"arm64\"\n  accelerator  = \"nvidia\"\n  ami_selector_terms {\n    alias = \"al2023@latest\"\n  }\n}\n",
	})
	ruleSchedulingArguments = rules.Register(rules.Rule{
		ID: "scheduling-arguments-invalid", Severity: rules.Error, Category: categoryProvider,
		Title: "karpenter_scheduling's workloads or scale has a value it cannot read",
		Behaviour: "`workloads` is a list of strings or a map of file name to content (each string YAML or JSON documents); " +
			"`scale` is `\"replicas\"` (each workload's manifest replicas) or `\"max\"` (a HorizontalPodAutoscaler's target at " +
			"its maxReplicas). Anything else would leave the decision to a guess.",
		Source: "the provider's karpenter_scheduling arguments",
		Bad:    "data \"karpenter_scheduling\" \"prod\" {\n  node_pools   = [file(\"pools.yaml\")]\n  node_classes = [file(\"classes.yaml\")]\n  workloads    = { \"web.yaml\" = file(\"web.yaml\") }\n  scale        = \"maximum\"\n}\n",
		Good:   "data \"karpenter_scheduling\" \"prod\" {\n  node_pools   = [file(\"pools.yaml\")]\n  node_classes = [file(\"classes.yaml\")]\n  workloads    = { \"web.yaml\" = file(\"web.yaml\") }\n  scale        = \"max\"\n}\n",
	})
	ruleInputsUnknown = rules.Register(rules.Rule{
		ID: "data-source-inputs-unknown", Severity: rules.Error, Category: categoryProvider,
		Title:     "a data source's inputs are not known when Terraform reads it",
		Behaviour: "Terraform reads a data source during plan when its arguments are known, and otherwise defers it to apply; a selector or version that stays unknown (e.g. from a resource created in the same run) leaves nothing to resolve.",
		Source:    "Terraform data source lifecycle (developer.hashicorp.com/terraform/language/data-sources)",
		Bad:       "data \"karpenter_amis\" \"default\" {\n  kubernetes_version = aws_eks_cluster.new.version\n  ami_selector_terms {\n    alias = \"al2023@latest\"\n  }\n}\n",
		Good:      "data \"karpenter_amis\" \"default\" {\n  kubernetes_version = var.kubernetes_version\n  ami_selector_terms {\n    alias = \"al2023@latest\"\n  }\n}\n",
	})
	ruleManifestRender = rules.Register(rules.Rule{
		ID: "manifest-render-failed", Severity: rules.Error, Category: categoryProvider,
		Title:     "the manifest could not be rendered",
		Behaviour: "The manifest is rendered as JSON and converted to YAML; a failure means a value could not be serialised. This is a provider bug: please report it with the configuration.",
		Source:    "sigs.k8s.io/yaml JSONToYAML",
		Bad:       "# a provider bug, not a configuration mistake\n",
		Good:      "# report it at the provider's issue tracker\n",
	})
	ruleUserDataUnchecked = rules.Register(rules.Rule{
		ID: "node-user-data-unchecked", Severity: rules.Warning, Category: categoryProvider,
		Title: "the userData of the pool's nodes could not be checked",
		Behaviour: "A pool's plan renders the userData Karpenter would generate for its nodes, with the cluster facts Karpenter reads " +
			"(name, API endpoint, CA bundle, service CIDR), and reports what would keep a node from joining. When the provider's cluster " +
			"block names a cluster that eks:DescribeCluster cannot describe, those checks are skipped with this warning; the manifests and " +
			"every other check still plan.",
		Source: "aws/karpenter-provider-aws pkg/providers/amifamily/bootstrap; pkg/providers/launchtemplate (cluster endpoint, CA bundle and CIDR)",
		Bad:    "provider \"karpenter\" {\n  cluster {\n    name               = \"ghost\" # not a cluster of this account and region\n    kubernetes_version = \"1.32\"\n  }\n}\n",
		Good:   "provider \"karpenter\" {\n  cluster {\n    name = \"demo\" # facts from eks:DescribeCluster\n  }\n}\n",
	})
	ruleClusterFactsNeeded = rules.Register(rules.Rule{
		ID: "cluster-facts-needed", Severity: rules.Error, Category: categoryProvider,
		Title:     "bootstrap needs cluster facts that are not known",
		Behaviour: "Rendered Custom userData must name the cluster, its API endpoint and CA (and for nodeadm the service CIDR); Karpenter passes Custom userData through untouched, so a node booted without them never joins.",
		Source:    "awslabs/amazon-eks-ami bootstrap.sh and nodeadm NodeConfig (required fields)",
		Bad:       "resource \"karpenter_ec2nodeclass\" \"custom\" {\n  # ...\n  bootstrap {\n    format = \"nodeadm\"\n  }\n}\n",
		Good:      "resource \"karpenter_ec2nodeclass\" \"custom\" {\n  # ...\n  bootstrap {\n    format                = \"nodeadm\"\n    cluster_name          = \"demo\"\n    api_server_endpoint   = \"https://ABC.gr7.us-west-2.eks.amazonaws.com\"\n    certificate_authority = var.cluster_ca\n    service_cidr          = \"172.20.0.0/16\"\n  }\n}\n",
	})
	ruleImport = rules.Register(rules.Rule{
		ID: "import-not-supported", Severity: rules.Error, Category: categoryProvider,
		Title:     "these resources live only in Terraform state: there is nothing to import",
		Behaviour: "karpenter_ec2nodeclass and karpenter_nodepool render manifests; they create nothing outside Terraform state, so there is no remote object to import. Write the resource and plan: the manifest is rendered from configuration. To take over objects already in a cluster, import them in the resource that applies the manifest (kubernetes_manifest, kubectl_manifest).",
		Source:    "Terraform import (developer.hashicorp.com/terraform/language/import)",
		Bad:       "import {\n  to = karpenter_nodepool.default\n  id = \"default\"\n}\n",
		Good:      "resource \"karpenter_nodepool\" \"default\" {\n  name       = \"default\"\n  node_class = karpenter_ec2nodeclass.default.node_class\n}\n",
	})
	ruleNodeClassAMIInvalid = rules.Register(rules.Rule{
		ID: "node-class-amis-invalid", Severity: rules.Error, Category: categoryProvider,
		Title:     "a node_class.amis value written by hand is not one image on one line",
		Behaviour: "A pool reads its class's images from node_class.amis, one line per image: `<id> | <name> | <creation_date> | <requirements>`, keyed `<architecture>/<variant>` (karpenter_ec2nodeclass.<name>.node_class writes it). Karpenter picks a node's image by the images' requirements, newest creation date first; a value the pool cannot read would drop the image from the architecture and GPU checks and from ami_assignments, so it is an error rather than ignored.",
		Source:    "aws/karpenter-provider-aws pkg/providers/amifamily (status.amis: id, name, requirements; images ordered by creation date); this provider's karpenter_nodepool node_class",
		Bad:       "resource \"karpenter_nodepool\" \"default\" {\n  name = \"default\"\n  node_class = {\n    name = \"team\"\n    amis = {\n      amd64 = \"ami-0aaf333b614a08570 team-node-20251015\"\n    }\n  }\n}\n",
		Good:      "resource \"karpenter_nodepool\" \"default\" {\n  name = \"default\"\n  node_class = {\n    name = \"team\"\n    amis = {\n      amd64 = \"ami-0aaf333b614a08570 | team-node-20251015 | 2025-10-15T09:00:00.000Z | kubernetes.io/arch In amd64\"\n    }\n  }\n}\n",
	})
	ruleAckInvalid = rules.Register(rules.Rule{
		ID: "acknowledged-warning-invalid", Severity: rules.Error, Category: categoryProvider,
		Title:     "acknowledged_warnings names a rule that is not a warning",
		Behaviour: "acknowledged_warnings silences named warning rules (a deliberate choice, such as `@latest` on purpose). An unknown id would silence nothing, and an error rule cannot be acknowledged: errors are what Karpenter, EC2 or the kubelet would reject.",
		Source:    "docs/guides/rules.md (this provider's rule catalogue)",
		Bad:       "provider \"karpenter\" {\n  acknowledged_warnings = [\"alias-latest-drfit\", \"nodepool-taint-invalid\"]\n}\n",
		Good:      "provider \"karpenter\" {\n  acknowledged_warnings = [\"alias-latest-drift\"]\n}\n",
	})
)

// addRuleError reports rule r at p (an empty path means the whole object).
func addRuleDiag(diags *diag.Diagnostics, p path.Path, r *rules.Rule, detail string) {
	appendFindings(diags, p, rules.Findings{{Rule: r, Severity: r.Severity, Detail: detail}})
}
