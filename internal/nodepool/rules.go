package nodepool

import "github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"

// Categories of the docs page.
const (
	Category      = "NodePool"
	ClassCategory = "NodePool and EC2NodeClass"
)

const (
	srcCRD        = "NodePool CRD (aws/karpenter-provider-aws v1.14.1 pkg/apis/crds/karpenter.sh_nodepools.yaml)"
	srcRuntime    = "kubernetes-sigs/karpenter v1.14.1 pkg/apis/v1/nodepool_validation.go RuntimeValidate"
	srcTaintsRule = "kubernetes-sigs/karpenter pkg/apis/v1/nodeclaim_validation.go validateTaintsField"
)

// Object-level rules.
var (
	ruleName = rules.Register(rules.Rule{
		ID: "nodepool-name-invalid", Severity: rules.Error, Category: Category,
		Title:     "NodePool name is not a DNS subdomain of at most 63 characters",
		Behaviour: "The API server validates the name of every custom resource as a DNS-1123 subdomain (\"a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.'\"). Karpenter also labels every NodeClaim and Node karpenter.sh/nodepool=<name>; a name longer than 63 characters is not a valid label value, so every NodeClaim is rejected (\"must be no more than 63 characters\") and the pool never launches a node.",
		Source:    "k8s.io/apiextensions-apiserver pkg/registry/customresource/validator.go (NameIsDNSSubdomain); kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/nodeclaimtemplate.go NewNodeClaimTemplate (NodePoolLabelKey)",
		Bad:       exampleFull("GPU_Pool", "karpenter_ec2nodeclass.default.node_class"),
		Good:      exampleFull("gpu-pool", "karpenter_ec2nodeclass.default.node_class"),
	})
	ruleNodeClassRef = rules.Register(rules.Rule{
		ID: "nodepool-node-class-ref-invalid", Severity: rules.Error, Category: Category,
		Title:     "node_class group, kind or name is empty or unusable",
		Behaviour: "The CRD requires nodeClassRef.group, kind and name and rejects empty strings (\"group may not be empty\", \"kind may not be empty\", \"name may not be empty\"; group must match ^[^/]*$). Karpenter labels every NodeClaim karpenter.k8s.aws/ec2nodeclass=<name>, so a name that is not a valid label value makes every NodeClaim invalid.",
		Source:    srcCRD + " nodeClassRef x-kubernetes-validations (\"group may not be empty\", \"kind may not be empty\", \"name may not be empty\"; since v1.1.0)",
		Bad:       exampleFull("default", `{ name = "" }`),
		Good:      exampleFull("default", "karpenter_ec2nodeclass.default.node_class"),
	})
	ruleNodeClassUnsupported = rules.Register(rules.Rule{
		ID: "nodepool-node-class-unsupported", Severity: rules.Error, Category: Category,
		Title:     "node_class is not a karpenter.k8s.aws EC2NodeClass",
		Behaviour: "Karpenter's AWS provider manages only NodePools whose nodeClassRef is group karpenter.k8s.aws, kind EC2NodeClass (nodepoolutils.IsManaged); any other reference is silently ignored: the pool is never validated and never launches a node. group and kind are also immutable (\"nodeClassRef.group is immutable\").",
		Source:    "kubernetes-sigs/karpenter pkg/utils/nodepool IsManaged; aws/karpenter-provider-aws cloudprovider GetSupportedNodeClasses; kubernetes-sigs/karpenter pkg/controllers/nodepool/validation/controller.go",
		Bad:       exampleFull("default", `{ group = "karpenter.azure.com", kind = "AKSNodeClass", name = "default" }`),
		Good:      exampleFull("default", "karpenter_ec2nodeclass.default.node_class"),
	})
)

// Labels.
var (
	ruleLabelInvalid = rules.Register(rules.Rule{
		ID: "nodepool-label-invalid", Severity: rules.Error, Category: Category,
		Title:     "label key or value is not valid",
		Behaviour: "The CRD limits label values to 63 characters of ^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$; keys are not checked by the API server, but Karpenter's runtime validation rejects keys that are not qualified names (\"invalid key name %q in labels\") and the NodePool gets ValidationSucceeded=False.",
		Source:    srcCRD + " template.metadata.labels; " + srcRuntime + " validateLabels",
		Bad:       example(`labels = { "example.com/team" = "data science" }`),
		Good:      example(`labels = { "example.com/team" = "data-science" }`),
	})
	ruleLabelNodePool = rules.Register(rules.Rule{
		ID: "nodepool-label-key-nodepool", Severity: rules.Error, Category: Category,
		Title:     "karpenter.sh/nodepool cannot be a label",
		Behaviour: "Karpenter sets karpenter.sh/nodepool=<pool name> on every node itself. The CRD rejects the label (\"label \\\"karpenter.sh/nodepool\\\" is restricted\") and so does the runtime validation (\"invalid key name \\\"karpenter.sh/nodepool\\\" in labels, restricted\").",
		Source:    srcCRD + " template.metadata.labels x-kubernetes-validations (\"label \\\"karpenter.sh/nodepool\\\" is restricted\"); " + srcRuntime + " validateLabels",
		Bad:       example(`labels = { "karpenter.sh/nodepool" = "gpu" }`),
		Good:      example(`labels = { "example.com/pool" = "gpu" }`),
	})
	ruleLabelsTooMany = rules.Register(rules.Rule{
		ID: "nodepool-labels-too-many", Severity: rules.Error, Category: Category,
		Title:     "more than 100 labels",
		Behaviour: "The CRD sets maxProperties: 100 on template.metadata.labels; the API server rejects the NodePool (\"Too many: 101: must have at most 100 items\").",
		Source:    srcCRD + " template.metadata.labels maxProperties",
		Bad:       example(`labels = { for i in range(101) : "example.com/k${i}" => "v" }`),
		Good:      example(`labels = { "example.com/team" = "a" }`),
	})
	ruleLabelContradicts = rules.Register(rules.Rule{
		ID: "nodepool-label-contradicts-requirement", Severity: rules.Warning, Category: Category,
		Title:     "a label contradicts a requirement on the same key",
		Behaviour: "Karpenter adds the template labels to the pool's requirements (NewLabelRequirements); a label value the requirement does not allow leaves the key with no allowed value, so no pod that selects the key (with either value) is ever scheduled onto this pool.",
		Source:    "kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/nodeclaimtemplate.go NewNodeClaimTemplate",
		Bad:       example(`labels = { "example.com/team" = "a" }`, reqs(req("example.com/team", "In", "b"))),
		Good:      example(`labels = { "example.com/team" = "a" }`, reqs(req("example.com/team", "In", "a"))),
	})
)

// Taints.
var (
	ruleTaintInvalid = rules.Register(rules.Rule{
		ID: "nodepool-taint-invalid", Severity: rules.Error, Category: Category,
		Title:     "taint the API server, Karpenter or the kubelet rejects",
		Behaviour: "The CRD requires key and effect (NoSchedule, PreferNoSchedule, NoExecute) and rejects an empty value string; its pattern for values allows \"prefix/name\", but Kubernetes requires a label value (no \"/\"): the kubelet refuses --register-with-taints (\"invalid taint spec\") or the API server rejects the Node, and the node never registers.",
		Source:    srcCRD + " taints/startupTaints; " + srcTaintsRule + "; k8s.io/kubernetes pkg/util/taints parseTaint",
		Bad:       example(taint("taints", "example.com/dedicated", "team/a", "NoSchedule")),
		Good:      example(taint("taints", "example.com/dedicated", "team-a", "NoSchedule")),
	})
	ruleTaintDuplicate = rules.Register(rules.Rule{
		ID: "nodepool-taint-duplicate", Severity: rules.Error, Category: Category,
		Title:     "the same taint key and effect twice",
		Behaviour: "Karpenter's runtime validation rejects a repeated (key, effect) pair across taints and startup_taints (\"duplicate taint Key/Effect pair %s=%s\"): the NodePool gets ValidationSucceeded=False and launches nothing. The API server would also reject such a Node (\"taints must be unique by key and effect pair\").",
		Source:    srcTaintsRule,
		Bad:       example(taint("taints", "example.com/gpu", "", "NoSchedule"), taint("startup_taints", "example.com/gpu", "initializing", "NoSchedule")),
		Good:      example(taint("taints", "example.com/gpu", "", "NoSchedule"), taint("startup_taints", "example.com/gpu-initializing", "", "NoSchedule")),
	})
	ruleTaintKarpenterOwned = rules.Register(rules.Rule{
		ID: "nodepool-taint-karpenter-owned", Severity: rules.Warning, Category: Category,
		Title:     "taint Karpenter manages itself",
		Behaviour: "karpenter.sh/unregistered:NoExecute is added to every node by Karpenter and removed at registration; karpenter.sh/disrupted:NoSchedule marks nodes Karpenter is disrupting. Listing either in taints or startup_taints is legal but at best redundant: a startup taint of the same key is removed by Karpenter, and a disrupted taint makes nodes look as if they were being disrupted.",
		Source:    "kubernetes-sigs/karpenter pkg/apis/v1/taints.go (UnregisteredNoExecuteTaint, DisruptedNoScheduleTaint)",
		Bad:       example(taint("startup_taints", "karpenter.sh/unregistered", "", "NoExecute")),
		Good:      example(taint("startup_taints", "example.com/agent-not-ready", "", "NoExecute")),
	})
)

// Disruption.
var (
	ruleConsolidateAfterRequired = rules.Register(rules.Rule{
		ID: "nodepool-consolidate-after-required", Severity: rules.Error, Category: Category,
		Title:     "disruption without consolidate_after",
		Behaviour: "consolidateAfter is required inside spec.disruption and has no field default (the {consolidateAfter: 0s} default applies only when the whole block is absent); the API server rejects the NodePool (\"spec.disruption.consolidateAfter: Required value\").",
		Source:    srcCRD + " disruption required: [consolidateAfter]",
		Bad:       example(disruption(`consolidation_policy = "WhenEmpty"`)),
		Good:      example(disruption(`consolidation_policy = "WhenEmpty"`, `consolidate_after = "5m"`)),
	})
	ruleDuration = rules.Register(rules.Rule{
		ID: "nodepool-duration-invalid", Severity: rules.Error, Category: Category,
		Title:     "duration the CRD pattern rejects",
		Behaviour: "Durations are strings matched by the CRD: expire_after and consolidate_after ^(([0-9]+(s|m|h))+|Never)$, termination_grace_period ^([0-9]+(s|m|h))+$ (no Never), budget duration ^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$ (hours and minutes only). Days, fractions, spaces and ms are rejected (\"should match '<pattern>'\"); a value too large for a Go duration passes the pattern but Karpenter cannot decode the NodePool.",
		Source:    srcCRD + " expireAfter, terminationGracePeriod, disruption.consolidateAfter, budgets[].duration patterns",
		Bad:       example(`expire_after = "30d"`),
		Good:      example(`expire_after = "720h"`),
	})
	ruleConsolidationPolicy = rules.Register(rules.Rule{
		ID: "nodepool-consolidation-policy-invalid", Severity: rules.Error, Category: Category,
		Title:     "consolidation_policy not in the CRD enum of this Karpenter release",
		Behaviour: "The CRD enum is WhenEmpty and WhenEmptyOrUnderutilized, plus Balanced from Karpenter 1.14.0 (kubernetes-sigs/karpenter#2962); the API server rejects anything else (\"Unsupported value\"). The enum is case-sensitive.",
		Source:    srcCRD + " disruption.consolidationPolicy enum; kubernetes-sigs/karpenter#2962",
		Bad:       atVersion("1.13", example(disruption(`consolidation_policy = "Balanced"`, `consolidate_after = "5m"`))),
		Good:      atVersion("1.13", example(disruption(`consolidation_policy = "WhenEmptyOrUnderutilized"`, `consolidate_after = "5m"`))),
	})
	ruleBudgetNodes = rules.Register(rules.Rule{
		ID: "nodepool-budget-nodes-invalid", Severity: rules.Error, Category: Category,
		Title:     "budget nodes is not a count or a percentage",
		Behaviour: "nodes is required in every budget and must match ^((100|[0-9]{1,2})%|[0-9]+)$: a whole number of nodes or 0%-100%; the API server rejects anything else.",
		Source:    srcCRD + " disruption.budgets[].nodes",
		Bad:       example(disruption(`consolidate_after = "5m"`, budget(`nodes = "10 %"`))),
		Good:      example(disruption(`consolidate_after = "5m"`, budget(`nodes = "10%"`))),
	})
	ruleBudgetScheduleDuration = rules.Register(rules.Rule{
		ID: "nodepool-budget-schedule-without-duration", Severity: rules.Error, Category: Category,
		Title:     "budget schedule without duration, or duration without schedule",
		Behaviour: "The CRD rejects the NodePool: \"'schedule' must be set with 'duration'\" (self.all(x, has(x.schedule) == has(x.duration))). A budget without both is always active.",
		Source:    srcCRD + " disruption.budgets x-kubernetes-validations",
		Bad:       example(disruption(`consolidate_after = "5m"`, budget(`nodes = "0"`, `schedule = "0 9 * * mon-fri"`))),
		Good:      example(disruption(`consolidate_after = "5m"`, budget(`nodes = "0"`, `schedule = "0 9 * * mon-fri"`, `duration = "8h"`))),
	})
	ruleBudgetSchedule = rules.Register(rules.Rule{
		ID: "nodepool-budget-schedule-invalid", Severity: rules.Error, Category: Category,
		Title:     "budget schedule is not a standard 5-field cron",
		Behaviour: "The CRD pattern is loose (an @descriptor prefix, or five whitespace-separated parts); Karpenter then parses \"TZ=UTC <schedule>\" with robfig/cron ParseStandard. A schedule the pattern accepts but cron does not (six fields, a timezone, ranges out of bounds, @dailyx) fails closed: every budget evaluation errors (\"invariant violated, invalid cron\") and Karpenter allows 0 disruptions for the whole pool: no consolidation, no drift replacement, no expiration.",
		Source:    "kubernetes-sigs/karpenter pkg/apis/v1/nodepool.go Budget.IsActive, GetAllowedDisruptions (\"fail closed\"); " + srcCRD + " budgets[].schedule pattern",
		Bad:       example(disruption(`consolidate_after = "5m"`, budget(`nodes = "0"`, `schedule = "0 0 9 * * mon-fri"`, `duration = "8h"`))),
		Good:      example(disruption(`consolidate_after = "5m"`, budget(`nodes = "0"`, `schedule = "0 9 * * mon-fri"`, `duration = "8h"`))),
	})
	ruleBudgetReason = rules.Register(rules.Rule{
		ID: "nodepool-budget-reason-invalid", Severity: rules.Error, Category: Category,
		Title:     "budget reason not in Underutilized, Empty, Drifted, or repeated",
		Behaviour: "reasons is a set (x-kubernetes-list-type: set) of the enum Underutilized, Empty, Drifted; the API server rejects other values (\"Unsupported value\") and repeats (\"Duplicate value\").",
		Source:    srcCRD + " disruption.budgets[].reasons",
		Bad:       example(disruption(`consolidate_after = "5m"`, budget(`nodes = "1"`, `reasons = ["Underutilised"]`))),
		Good:      example(disruption(`consolidate_after = "5m"`, budget(`nodes = "1"`, `reasons = ["Underutilized"]`))),
	})
	ruleBudgetsTooMany = rules.Register(rules.Rule{
		ID: "nodepool-budgets-too-many", Severity: rules.Error, Category: Category,
		Title:     "more than 50 disruption budgets",
		Behaviour: "The CRD sets maxItems: 50 on disruption.budgets; the API server rejects the NodePool (\"Too many: 51: must have at most 50 items\").",
		Source:    srcCRD + " disruption.budgets maxItems",
		Bad:       example(disruption(`consolidate_after = "5m"`, rules.Block(`dynamic "budgets"`, `for_each = range(51)`, rules.Block("content", `nodes = "1"`)))),
		Good:      example(disruption(`consolidate_after = "5m"`, budget(`nodes = "1"`))),
	})
)

// Sizing and static pools.
var (
	ruleWeight = rules.Register(rules.Rule{
		ID: "nodepool-weight-out-of-range", Severity: rules.Error, Category: Category,
		Title:     "weight outside 1..100",
		Behaviour: "The CRD bounds weight to minimum 1, maximum 100; the API server rejects other values. Leave weight unset for the lowest priority (Karpenter treats it as 0).",
		Source:    srcCRD + " weight minimum/maximum",
		Bad:       example(`weight = 0`),
		Good:      example(`weight = 10`),
	})
	ruleLimitInvalid = rules.Register(rules.Rule{
		ID: "nodepool-limit-invalid", Severity: rules.Error, Category: Category,
		Title:     "limit is not a Kubernetes quantity",
		Behaviour: "limits values must match the CRD's quantity pattern and parse as a resource.Quantity (\"1000\", \"500m\", \"1000Gi\"); the API server rejects anything else.",
		Source:    srcCRD + " limits additionalProperties pattern; k8s.io/apimachinery pkg/api/resource ParseQuantity",
		Bad:       example(`limits = { cpu = "1000 cores" }`),
		Good:      example(`limits = { cpu = "1000" }`),
	})
	ruleLimitNegative = rules.Register(rules.Rule{
		ID: "nodepool-limit-negative", Severity: rules.Error, Category: Category,
		Title:     "negative limit",
		Behaviour: "The quantity pattern allows a sign, so the API server accepts \"-1\"; but any usage exceeds a negative limit, so Karpenter never launches a node for the pool (\"all available instance types exceed limits for nodepool\"). Use \"0\" to pause a pool on purpose.",
		Source:    "kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling (NodePool limits ExceededBy)",
		Bad:       example(`limits = { memory = "-1Gi" }`),
		Good:      example(`limits = { memory = "1000Gi" }`),
	})
	ruleLimitResource = rules.Register(rules.Rule{
		ID: "nodepool-limit-unknown-resource", Severity: rules.Warning, Category: Category,
		Title:     "limit on a resource no node has",
		Behaviour: "Karpenter compares limits with the summed capacity of the pool's nodes by resource name. Resource names without a domain are Kubernetes' own (cpu, memory, ephemeral-storage, pods, hugepages-<size>; nodes counts nodes); any other unprefixed name is never reached, so the limit silently limits nothing. A name one typo from one of them is the error nodepool-limit-misspelled; this warning is for other names, such as an extended resource written without its domain.",
		Source:    "k8s.io/api core/v1 ResourceName (standard resources); kubernetes-sigs/karpenter NodePool limits",
		Bad:       example(`limits = { gpu = "16" }`),
		Good:      example(`limits = { "nvidia.com/gpu" = "16" }`),
	})
	ruleLimitMisspelled = rules.Register(rules.Rule{
		ID: "nodepool-limit-misspelled", Severity: rules.Error, Category: Category, Acknowledgeable: true,
		Title:     "limit on a resource name one typo away from a Kubernetes resource",
		Behaviour: "Karpenter compares limits with the summed capacity of the pool's nodes by resource name, and no node has a resource named like a typo of cpu, memory, ephemeral-storage, pods or nodes. The API server accepts any name, so `memroy = \"4000Gi\"` is stored and the pool has no memory cap at all: it grows until the account's EC2 quota stops it.",
		Source:    "k8s.io/api core/v1 ResourceName (standard resources); kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling (NodePool limits ExceededBy)",
		Bad:       example(`limits = { cpu = "1000", memroy = "4000Gi" }`),
		Good:      example(`limits = { cpu = "1000", memory = "4000Gi" }`),
		BadYAML:   rules.NodePoolYAML("  limits:\n    cpu: \"1000\"\n    memroy: 4000Gi\n", "      requirements: []\n"),
		GoodYAML:  rules.NodePoolYAML("  limits:\n    cpu: \"1000\"\n    memory: 4000Gi\n", "      requirements: []\n"),
	})
	ruleReplicasNegative = rules.Register(rules.Rule{
		ID: "nodepool-replicas-negative", Severity: rules.Error, Category: Category,
		Title:     "negative replicas",
		Behaviour: "The CRD sets minimum: 0 on replicas; the API server rejects the NodePool.",
		Source:    srcCRD + " replicas minimum",
		Bad:       example(`replicas = -1`),
		Good:      example(`replicas = 0`),
	})
	ruleStaticVersion = rules.Register(rules.Rule{
		ID: "nodepool-static-before-1-8", Severity: rules.Error, Category: Category,
		Title:     "replicas (static NodePools) need Karpenter 1.8",
		Behaviour: "Static NodePools (replicas) arrived in Karpenter 1.8.0 as an alpha feature (kubernetes-sigs/karpenter#2521). Older CRDs do not know the field: the API server prunes it and the pool silently becomes a dynamic one that scales with pending pods.",
		Source:    "kubernetes-sigs/karpenter#2521 (v1.8.0): pkg/apis/v1/nodepool.go NodePoolSpec.Replicas and its CRD rules",
		Bad:       atVersion("1.7", example(`replicas = 3`)),
		Good:      atVersion("1.8", example(`replicas = 3`)),
	})
	ruleStaticLimits = rules.Register(rules.Rule{
		ID: "nodepool-static-limits", Severity: rules.Error, Category: Category,
		Title:     "static NodePool with limits other than nodes",
		Behaviour: "The CRD rejects the NodePool: \"only 'limits.nodes' is supported on static NodePools\".",
		Source:    srcCRD + " spec x-kubernetes-validations",
		Bad:       example(`replicas = 3`, `limits = { cpu = "100" }`),
		Good:      example(`replicas = 3`, `limits = { nodes = "5" }`),
	})
	ruleStaticWeight = rules.Register(rules.Rule{
		ID: "nodepool-static-weight", Severity: rules.Error, Category: Category,
		Title:     "static NodePool with a weight",
		Behaviour: "The CRD rejects the NodePool: \"'weight' is not supported on static NodePools\".",
		Source:    srcCRD + " spec x-kubernetes-validations",
		Bad:       example(`replicas = 3`, `weight = 10`),
		Good:      example(`replicas = 3`),
	})
	ruleStaticDisruption = rules.Register(rules.Rule{
		ID: "nodepool-static-disruption-ignored", Severity: rules.Warning, Category: Category,
		Title:     "consolidation settings on a static NodePool are ignored",
		Behaviour: "With replicas set, Karpenter keeps exactly that many nodes and ignores disruption.consolidationPolicy and consolidateAfter (the CRD description: \"When replicas is set, ConsolidationPolicy is simply ignored\"); budgets still apply to drift and expiration.",
		Source:    srcCRD + " disruption field descriptions; kubernetes-sigs/karpenter#2521",
		Bad:       example(`replicas = 3`, disruption(`consolidation_policy = "WhenEmpty"`, `consolidate_after = "5m"`)),
		Good:      example(`replicas = 3`, disruption(`consolidate_after = "0s"`, budget(`nodes = "1"`))),
	})
)
