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

var (
	ruleName = rules.Register(rules.Rule{
		ID: "nodeclass-name-invalid", Severity: rules.Error, Category: category,
		Title:     "the EC2NodeClass name is not a valid object name",
		Behaviour: "Object names must be DNS-1123 subdomains (lowercase alphanumerics, '-' and '.', at most 253 characters); the API server rejects anything else.",
		Source:    "Kubernetes object name validation (metadata.name)",
		Bad:       "resource \"karpenter_ec2nodeclass\" \"x\" {\n  name = \"GPU_nodes\"\n  # ...\n}",
		Good:      "resource \"karpenter_ec2nodeclass\" \"x\" {\n  name = \"gpu-nodes\"\n  # ...\n}",
	})
	ruleIdentity = rules.Register(rules.Rule{
		ID: "nodeclass-role-or-instance-profile", Severity: rules.Error, Category: category,
		Title:     "set exactly one of role and instance_profile",
		Behaviour: "CRD rules: \"must specify exactly one of ['role', 'instanceProfile']\", \"role cannot be empty\", \"instanceProfile cannot be empty\".",
		Source:    "A:pkg/apis/v1/ec2nodeclass.go (CEL on spec, role, instanceProfile)",
		Bad:       "role             = \"KarpenterNodeRole-prod\"\ninstance_profile = \"KarpenterNodeInstanceProfile-prod\"",
		Good:      "role = \"KarpenterNodeRole-prod\"",
	})
	ruleSelectorCount = rules.Register(rules.Rule{
		ID: "selector-terms-count", Severity: rules.Error, Category: category,
		Title:     "subnet and security group selectors need 1 to 30 terms",
		Behaviour: "CRD rules: \"subnetSelectorTerms cannot be empty\", \"securityGroupSelectorTerms cannot be empty\", and maxItems 30 on every selector list. Without subnets or security groups Karpenter cannot launch.",
		Source:    "A:pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml",
		Bad:       class(`security_group_selector_terms { tags = { "karpenter.sh/discovery" = "prod" } }`),
		Good:      class(`subnet_selector_terms { tags = { "karpenter.sh/discovery" = "prod" } }`, `security_group_selector_terms { tags = { "karpenter.sh/discovery" = "prod" } }`),
	})
	ruleSelectorEmpty = rules.Register(rules.Rule{
		ID: "selector-term-empty", Severity: rules.Error, Category: category,
		Title:     "a selector term selects nothing",
		Behaviour: "CRD rules: \"expected at least one, got none, ['tags', 'id']\" (subnets), \"... ['tags', 'id', 'name']\" (security groups), \"... ['tags', 'id', 'instanceMatchCriteria']\" (capacity reservations).",
		Source:    "A:pkg/apis/v1/ec2nodeclass.go (CEL on the selector terms)",
		Bad:       rules.Block("security_group_selector_terms"),
		Good:      `security_group_selector_terms { tags = { "karpenter.sh/discovery" = "prod" } }`,
	})
	ruleSelectorExclusive = rules.Register(rules.Rule{
		ID: "selector-term-field-exclusive", Severity: rules.Error, Category: category,
		Title:     "`id` (and a security group `name`) cannot be combined with other fields of the term",
		Behaviour: "CRD rules: \"'id' is mutually exclusive, cannot be set with a combination of other fields in a subnet selector term\" (and for security groups, `name` too). The CEL rule uses `all`, so the API server only rejects it when every term mixes them; one mixed term among others passes and Karpenter silently ignores the tags. This provider rejects any mixed term.",
		Source:    "A:pkg/apis/v1/ec2nodeclass.go (the CEL rules on subnet, security group and capacity reservation selector terms use `!self.all(...)`)",
		Bad:       rules.Block("subnet_selector_terms", `id = "subnet-0123456789abcdef0"`, `tags = { tier = "private" }`),
		Good:      rules.Body(`subnet_selector_terms { id = "subnet-0123456789abcdef0" }`, `subnet_selector_terms { tags = { tier = "private" } }`),
	})
	ruleSelectorID = rules.Register(rules.Rule{
		ID: "selector-term-id-invalid", Severity: rules.Error, Category: category,
		Title:     "a selector id does not look like the resource's id",
		Behaviour: "Subnet and security group id patterns (`subnet-[0-9a-z]+`, `sg-[0-9a-z]+`) are unanchored, so `xsubnet-1 ` passes the API server and then matches nothing; capacity reservation ids (`^cr-[0-9a-z]+$`) and owner ids (`^[0-9]{12}$`) are anchored.",
		Source:    "A:pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml (id patterns)",
		Bad:       `security_group_selector_terms { id = "sg-0123 " }`,
		Good:      `security_group_selector_terms { id = "sg-0123456789abcdef0" }`,
	})
	ruleSelectorTags = rules.Register(rules.Rule{
		ID: "selector-tags-invalid", Severity: rules.Error, Category: category,
		Title:     "selector tags need non-empty keys and values, at most 20",
		Behaviour: "CRD rule: \"empty tag keys or values aren't supported\" and `maxProperties: 20` on subnet, security group and capacity reservation selector tags. Use \"*\" to match any value.",
		Source:    "A:pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml (selector tags)",
		Bad:       `subnet_selector_terms { tags = { "karpenter.sh/discovery" = "" } }`,
		Good:      `subnet_selector_terms { tags = { "karpenter.sh/discovery" = "*" } }`,
	})
	ruleReservations = rules.Register(rules.Rule{
		ID: "capacity-reservation-terms-invalid", Severity: rules.Error, Category: category,
		Title:     "capacity reservation selector terms need Karpenter 1.3 and a valid criteria",
		Behaviour: "`capacityReservationSelectorTerms` exists from Karpenter 1.3.0 (older CRDs prune it, so reservations are silently not used); `instanceMatchCriteria` is `open` or `targeted`.",
		Source:    "A:pkg/apis/v1/ec2nodeclass.go CapacityReservationSelectorTerm (v1.3.0)",
		Bad:       `capacity_reservation_selector_terms { instance_match_criteria = "any" }`,
		Good:      `capacity_reservation_selector_terms { instance_match_criteria = "open" }`,
	})
	ruleTags = rules.Register(rules.Rule{
		ID: "nodeclass-tag-restricted", Severity: rules.Error, Category: category,
		Title:     "the tag key is empty or reserved for Karpenter and EKS",
		Behaviour: "CRD rules: \"empty tag keys aren't supported\" and \"tag contains a restricted tag matching ...\" for eks:eks-cluster-name, kubernetes.io/cluster/*, karpenter.sh/nodepool, karpenter.sh/nodeclaim and karpenter.k8s.aws/ec2nodeclass: Karpenter sets these itself to find and garbage-collect its instances.",
		Source:    "A:pkg/apis/v1/ec2nodeclass.go (CEL on tags)",
		Bad:       "tags = { \"kubernetes.io/cluster/prod\" = \"owned\" }",
		Good:      "tags = { team = \"platform\" }",
	})
	ruleBlockDeviceRoot = rules.Register(rules.Rule{
		ID: "block-device-root-volume-multiple", Severity: rules.Error, Category: category,
		Title:     "at most one block device mapping may be the root volume",
		Behaviour: "CRD rule: \"must have only one blockDeviceMappings with rootVolume\" (and at most 50 mappings).",
		Source:    "A:pkg/apis/v1/ec2nodeclass.go BlockDeviceMapping",
		Bad:       rules.Body(rules.Block("block_device_mappings", `device_name = "/dev/xvda"`, `root_volume = true`, `ebs { volume_size = "50Gi" }`), rules.Block("block_device_mappings", `device_name = "/dev/xvdb"`, `root_volume = true`, `ebs { volume_size = "50Gi" }`)),
		Good:      rules.Body(rules.Block("block_device_mappings", `device_name = "/dev/xvda"`, `root_volume = true`, `ebs { volume_size = "50Gi" }`), rules.Block("block_device_mappings", `device_name = "/dev/xvdb"`, `ebs { volume_size = "50Gi" }`)),
	})
	ruleBlockDeviceEBS = rules.Register(rules.Rule{
		ID: "block-device-ebs-invalid", Severity: rules.Error, Category: category,
		Title:     "an EBS volume needs a valid size or a snapshot, and settings its type supports",
		Behaviour: "CRD rules: \"snapshotID or volumeSize must be defined\", volumeSize must match the CRD's Gi/G/Ti/T pattern (up to 64 TiB), volumeType must be standard, io1, io2, gp2, sc1, st1 or gp3. EC2 rejects iops on anything but io1/io2/gp3 and throughput on anything but gp3 when the launch template is used.",
		Source:    "A:pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml (blockDeviceMappings[].ebs); EC2 CreateLaunchTemplate EBS parameters",
		Bad:       rules.Block("block_device_mappings", `device_name = "/dev/xvda"`, rules.Block("ebs", `volume_size = "20GB"`, `volume_type = "gp2"`, `iops = 3000`)),
		Good:      rules.Block("block_device_mappings", `device_name = "/dev/xvda"`, rules.Block("ebs", `volume_size = "20Gi"`, `volume_type = "gp3"`, `iops = 3000`)),
	})
	ruleVolumeDecimal = rules.Register(rules.Rule{
		ID: "block-device-size-decimal-units", Severity: rules.Warning, Category: category,
		Title:     "a volume size in G or T is smaller than it reads",
		Behaviour: "`G` and `T` are powers of ten; Karpenter converts the size to GiB rounding up (launchtemplate.go volumeSize), so \"200G\" becomes a 187 GiB volume, not 200.",
		Source:    "A:pkg/providers/launchtemplate/launchtemplate.go volumeSize",
		Bad:       rules.Block("block_device_mappings", `device_name = "/dev/xvda"`, `ebs { volume_size = "200G" }`),
		Good:      rules.Block("block_device_mappings", `device_name = "/dev/xvda"`, `ebs { volume_size = "200Gi" }`),
	})
	ruleSnapshot = rules.Register(rules.Rule{
		ID: "block-device-smaller-than-snapshot", Severity: rules.Error, Category: category,
		Title:     "a block device is smaller than the image's snapshot",
		Behaviour: "EC2 refuses to launch when a launch template volume is smaller than the snapshot of the image's device (InvalidBlockDeviceMapping: \"Volume of size N GB is smaller than snapshot\"). Karpenter's default mappings (20 GiB root for AL2/AL2023, 4 GiB /dev/xvda for Bottlerocket, 50 GiB for Windows) are too small for larger custom images, and the NVIDIA Bottlerocket OS volume is larger than the standard one (#7928).",
		Source:    "A #7928; A:pkg/providers/amifamily/{al2023,bottlerocket,windows}.go DefaultBlockDeviceMappings",
		Bad:       rules.Body("# the custom image has a 30 GiB root snapshot; Karpenter's AL2023 default is 20 GiB", `ami_family = "AL2023"`, `ami_selector_terms { name = "team-eks-node-al2023-*" }`),
		Good:      rules.Body(`ami_family = "AL2023"`, `ami_selector_terms { name = "team-eks-node-al2023-*" }`, rules.Block("block_device_mappings", `device_name = "/dev/xvda"`, `root_volume = true`, rules.Block("ebs", `volume_size = "30Gi"`, `volume_type = "gp3"`))),
	})
	ruleMetadata = rules.Register(rules.Rule{
		ID: "metadata-options-invalid", Severity: rules.Error, Category: category,
		Title:     "metadata options out of range",
		Behaviour: "CRD: http_endpoint and http_protocol_ipv6 are enabled|disabled, http_tokens is required|optional, http_put_response_hop_limit is 1 to 64.",
		Source:    "A:pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml (metadataOptions)",
		Bad:       `metadata_options { http_put_response_hop_limit = 0 }`,
		Good:      rules.Block("metadata_options", `http_put_response_hop_limit = 2`, `http_tokens = "required"`),
	})
	ruleStorePolicy = rules.Register(rules.Rule{
		ID: "instance-store-policy-invalid", Severity: rules.Error, Category: category,
		Title:     "instance_store_policy can only be RAID0",
		Behaviour: "The CRD enum of instanceStorePolicy is [RAID0].",
		Source:    "A:pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml (instanceStorePolicy)",
		Bad:       "instance_store_policy = \"raid0\"",
		Good:      "instance_store_policy = \"RAID0\"",
	})
	ruleKubelet = rules.Register(rules.Rule{
		ID: "kubelet-config-invalid", Severity: rules.Error, Category: category,
		Title:     "kubelet settings the CRD rejects",
		Behaviour: "CRD rules on spec.kubelet: eviction keys must be one of memory.available, nodefs.available, nodefs.inodesFree, imagefs.available, imagefs.inodesFree, pid.available; reserved keys cpu, memory, ephemeral-storage, pid; reserved values not negative; eviction values a percentage or a quantity; grace periods durations; \"imageGCHighThresholdPercent must be greater than imageGCLowThresholdPercent\"; evictionSoft and evictionSoftGracePeriod with the same keys.",
		Source:    "A:pkg/apis/v1/ec2nodeclass.go KubeletConfiguration (v1.14.1 x-kubernetes-validations)",
		Bad:       rules.Block("kubelet", `eviction_soft = { "memory.available" = "10%" }`, `image_gc_high_threshold_percent = 50`, `image_gc_low_threshold_percent = 80`),
		Good:      rules.Block("kubelet", `eviction_soft = { "memory.available" = "10%" }`, `eviction_soft_grace_period = { "memory.available" = "1m" }`, `image_gc_high_threshold_percent = 85`, `image_gc_low_threshold_percent = 80`),
	})
	rulePodsPerCore = rules.Register(rules.Rule{
		ID: "kubelet-pods-per-core-ignored", Severity: rules.Warning, Category: category,
		Title:     "pods_per_core is ignored on Bottlerocket",
		Behaviour: "Bottlerocket's settings have no podsPerCore; Karpenter disables it for the family (FeatureFlags PodsPerCoreEnabled: false), so the value has no effect on the node.",
		Source:    "A:pkg/providers/amifamily/bottlerocket.go FeatureFlags",
		Bad:       rules.Body(`ami_selector_terms { alias = "bottlerocket@latest" }`, `kubelet { pods_per_core = 10 }`),
		Good:      rules.Body(`ami_selector_terms { alias = "bottlerocket@latest" }`, `kubelet { max_pods = 110 }`),
	})
	ruleBootstrapFamily = rules.Register(rules.Rule{
		ID: "bootstrap-requires-custom", Severity: rules.Error, Category: category,
		Title:     "`bootstrap` renders Custom userData and needs ami_family = \"Custom\" without user_data",
		Behaviour: "For every other family Karpenter generates the bootstrap itself and appends it to spec.userData: a second bootstrap call would run twice or fail (bootstrap.sh exits 1 on AL2023). A literal user_data next to `bootstrap` would be replaced.",
		Source:    "this provider's bootstrap block; A:pkg/providers/amifamily/bootstrap/custom.go (Custom passes userData through), eksbootstrap.go and nodeadm.go (the bootstrap Karpenter appends for the other families)",
		Bad:       rules.Body(`ami_family = "AL2023"`, `bootstrap { format = "nodeadm" }`),
		Good:      rules.Body(`ami_family = "Custom"`, `bootstrap { format = "nodeadm" }`),
	})
	ruleCustomNoUserData = rules.Register(rules.Rule{
		ID: "custom-user-data-missing", Severity: rules.Error, Category: category,
		Title:     "a Custom EC2NodeClass has no userData",
		Behaviour: "Karpenter passes Custom userData through unchanged and adds nothing. EKS-optimized images (an alias, or images named as EKS publishes them) do not bootstrap themselves: the instance boots, never joins the cluster, and the NodeClaim is deleted after the 15-minute registration timeout, over and over; that is an error. Karpenter accepts the class, and a custom image may bootstrap itself, so with other images it is a warning (acknowledge it when the image does).",
		Source:    "aws/karpenter-provider-aws pkg/providers/amifamily/bootstrap/custom.go; pkg/apis/v1/ec2nodeclass_validation_cel_test.go (Custom classes without userData are accepted)",
		Bad:       rules.Body(`ami_family = "Custom"`, `ami_selector_terms { alias = "al2023@latest" }`),
		Good:      rules.Body(`ami_family = "Custom"`, `ami_selector_terms { alias = "al2023@latest" }`, `bootstrap { format = "nodeadm" }`),
	})
	ruleImageFamily = rules.Register(rules.Rule{
		ID: "image-family-mismatch", Severity: rules.Error, Category: category,
		Title:     "the images are of another family than the userData format",
		Behaviour: "amiFamily only decides the userData format; it does not select images. An AL2023 class whose images are Bottlerocket renders a nodeadm MIME document the image cannot read (Bottlerocket wants TOML); bootstrap.sh exits 1 on AL2023 images; shell userData means nothing to Bottlerocket. The node never joins and is deleted after 15 minutes.",
		Source:    "A:website/content/en/docs/concepts/nodeclasses.md §amiFamily; E:templates/al2023/runtime/rootfs/etc/eks/bootstrap.sh (exits 1)",
		Bad:       rules.Body(`ami_family = "AL2023"`, rules.Block("ami_selector_terms", `name = "bottlerocket-aws-k8s-1.32-x86_64-*"`, `owner = "amazon"`)),
		Good:      rules.Body(`ami_family = "Bottlerocket"`, rules.Block("ami_selector_terms", `name = "bottlerocket-aws-k8s-1.32-x86_64-*"`, `owner = "amazon"`)),
	})
	ruleRAID0Twice = rules.Register(rules.Rule{
		ID: "instance-store-raid0-assembled-twice", Severity: rules.Warning, Category: category,
		Title:     "instanceStorePolicy RAID0 and userData that also assembles or formats the instance-store disks",
		Behaviour: "With `instanceStorePolicy: RAID0` Karpenter has the node's bootstrap assemble the instance-store NVMe disks into one RAID0 array, format and mount it for the kubelet and containerd (AL2: `bootstrap.sh --local-disks raid0`; AL2023: NodeConfig `localStorage.strategy: RAID0`; Bottlerocket: its ephemeral-storage settings). A userData script that runs its own `mdadm --create` or `mkfs` on the same disks races with it: the second fails on busy disks or destroys the first's array. A warning: which one runs second depends on the image's boot order. With amiFamily Custom Karpenter renders nothing, so there the script is how RAID0 happens and nothing is reported.",
		Source:    "aws/karpenter-provider-aws pkg/providers/amifamily/bootstrap (eksbootstrap.go --local-disks raid0, nodeadm.go localStorage RAID0, bottlerocket.go); awslabs/amazon-eks-ami setup-local-disks",
		Bad:       rules.Body(`ami_family = "AL2023"`, `instance_store_policy = "RAID0"`, `user_data = "#!/bin/bash\nmdadm --create /dev/md0 --level=0 --raid-devices=2 /dev/nvme1n1 /dev/nvme2n1\nmkfs.xfs /dev/md0\n"`),
		Good:      rules.Body(`ami_family = "AL2023"`, `instance_store_policy = "RAID0"`),
	})
	ruleOtherCluster = rules.Register(rules.Rule{
		ID: "custom-bootstrap-other-cluster", Severity: rules.Error, Category: category,
		Title:     "Custom userData bootstraps a cluster other than the class's, with no endpoint and CA",
		Behaviour: "Karpenter passes Custom userData unchanged, so the cluster the node joins is the one its bootstrap.sh call names. Without `--apiserver-endpoint` and `--b64-cluster-ca` bootstrap.sh looks that cluster up with eks:DescribeCluster at boot: a name copied from an example (`bootstrap.sh my-cluster`) fails the bootstrap, another cluster's name joins the node there; the NodeClaim never registers and Karpenter deletes it after 15 minutes. An error against the provider's cluster (its `cluster` block, or `karpenter-lint --cluster`); without one, a warning when the name differs from the class's `karpenter.sh/discovery` selector tag, which names the cluster by convention only.",
		Source:    "awslabs/amazon-eks-ami templates/al2/runtime/bootstrap.sh (CLUSTER_NAME from the first argument; aws eks describe-cluster when the endpoint or CA is missing); aws/karpenter-provider-aws pkg/providers/amifamily/bootstrap/custom.go",
		Bad:       rules.Body(`ami_family = "Custom"`, `ami_selector_terms { id = "ami-0123456789abcdef0" }`, rules.Block("subnet_selector_terms", `tags = { "karpenter.sh/discovery" = "demo" }`), rules.Block("security_group_selector_terms", `tags = { "karpenter.sh/discovery" = "demo" }`), `user_data = "#!/bin/bash\n/etc/eks/bootstrap.sh my-cluster --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n"`),
		Good:      rules.Body(`ami_family = "Custom"`, `ami_selector_terms { id = "ami-0123456789abcdef0" }`, rules.Block("subnet_selector_terms", `tags = { "karpenter.sh/discovery" = "demo" }`), rules.Block("security_group_selector_terms", `tags = { "karpenter.sh/discovery" = "demo" }`), `user_data = "#!/bin/bash\n/etc/eks/bootstrap.sh demo --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n"`),
	})
	ruleLatestDrift = rules.Register(rules.Rule{
		ID: "alias-latest-drift", Severity: rules.Warning, Category: category,
		Title:     "`@latest` replaces every node when EKS publishes an image",
		Behaviour: "A new image under the recommended/latest SSM parameter makes every node of the class drifted (drift.go isAMIDrifted); Karpenter replaces them within the disruption budgets, outside any change window. The docs advise against @latest in production.",
		Source:    "A:pkg/cloudprovider/drift.go isAMIDrifted; A docs (nodeclasses.md, \"pin AMIs\")",
		Bad:       `ami_selector_terms { alias = "al2023@latest" }`,
		Good:      rules.Body("# new releases show as a plan diff instead of a fleet-wide replacement", `pin_amis = true`, `ami_selector_terms { alias = "al2023@latest" }`),
	})
)

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
