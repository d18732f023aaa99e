package nodepool

import (
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata/lint"
)

// Cross-checks between a NodePool and its EC2NodeClass. Rules other packages
// own are reused where the check is the same: ami.RuleArm64GPU,
// ami.RuleNonAliasGPU, ami.RuleAMDGPU, ami.RuleNoCompatibleImage,
// ami.RuleVariantSwap, ami.RuleFirstMatchBug, userdata/lint's
// unregistered-taint-missing, and instancetype's admission rules.
var (
	ruleFactsUnknown = rules.Register(rules.Rule{
		ID: "nodepool-node-class-facts-unknown", Severity: rules.Warning, Category: ClassCategory,
		Title:     "node_class names a class managed elsewhere: cross-checks skipped",
		Behaviour: "node_class carries only a name, so the provider does not know the class's AMIs, family or userData: architecture, GPU image, Windows and Custom-taint checks cannot run, and ami_assignments stays empty. Karpenter itself still applies them at launch.",
		Source:    "this provider: karpenter_nodepool node_class (a literal { name = ... } carries no class facts)",
		Bad:       exampleFull("default", `{ name = "default" }`),
		Good:      exampleFull("default", "karpenter_ec2nodeclass.default.node_class"),
	})
	ruleArchMismatch = rules.Register(rules.Rule{
		ID: "nodepool-architecture-mismatch", Severity: rules.Error, Category: ClassCategory,
		Title:     "the pool admits no architecture the class has an image for",
		Behaviour: "Karpenter maps every candidate instance type to the first compatible image; when none of the pool's instance types matches any image of the class it fails every launch with \"no instance types satisfy requirements of amis [ami-...]\" and the pods stay pending.",
		Source:    "aws/karpenter-provider-aws pkg/providers/amifamily/resolver.go DefaultResolver.Resolve; ami.go MapToInstanceTypes; A #7211",
		Bad:       exampleOn("custom_amd64", reqs(req("kubernetes.io/arch", "In", "arm64"))),
		Good:      exampleOn("custom_amd64", reqs(req("kubernetes.io/arch", "In", "amd64"))),
	})
	ruleMixedArch = rules.Register(rules.Rule{
		ID: "nodepool-mixed-architectures", Severity: rules.Warning, Category: ClassCategory,
		Title:     "the pool mixes architectures",
		Behaviour: "Karpenter picks among all admitted instance types by price and availability. Types of an architecture the class has no image for are dropped at launch (so part of the pool's requirements is dead); and when the pool lists amd64 and arm64 families without a kubernetes.io/arch requirement, a pod without an arch nodeSelector can land on either, so every image it runs must be multi-arch.",
		Source:    "aws/karpenter-provider-aws pkg/providers/amifamily/resolver.go Resolve; pkg/providers/instancetype/types.go getArchitecture",
		Bad:       exampleOn("custom_amd64", families("m5", "m6g")),
		Good:      exampleOn("custom_amd64", families("m5", "c5")),
	})
	ruleWindowsArm64 = rules.Register(rules.Rule{
		ID: "nodepool-windows-arm64", Severity: rules.Error, Category: ClassCategory,
		Title:     "Windows class with only arm64 instance types",
		Behaviour: "Windows images are amd64 only: under a Windows family Karpenter gives arm64 instance types no kubernetes.io/os value (getOS), no Windows image is compatible with them, and launches fail with \"no instance types satisfy requirements of amis [...]\".",
		Source:    "aws/karpenter-provider-aws pkg/providers/instancetype/types.go getOS; amifamily/windows.go",
		Bad:       exampleOn("windows", families("m6g")),
		Good:      exampleOn("windows", families("m5")),
	})
	ruleOSMismatch = rules.Register(rules.Rule{
		ID: "nodepool-os-family-mismatch", Severity: rules.Error, Category: ClassCategory,
		Title:     "kubernetes.io/os requirement contradicts the class's family",
		Behaviour: "Instance types get kubernetes.io/os=windows under a Windows family and linux under every other family; a pool requiring the other OS admits no instance type of this class, and its pods stay pending.",
		Source:    "aws/karpenter-provider-aws pkg/providers/instancetype/types.go getOS",
		Bad:       exampleOn("al2023", reqs(req("kubernetes.io/os", "In", "windows"))),
		Good:      exampleOn("windows", reqs(req("kubernetes.io/os", "In", "windows"))),
	})
	ruleA1 = rules.Register(rules.Rule{
		ID: "nodepool-a1-al2023", Severity: rules.Error, Category: ClassCategory,
		Title:     "a1 is the only family, but AL2023 does not support a1",
		Behaviour: "Karpenter removes a1 instance types for AL2023 classes (amiFamilyCheck: \"a1 instance types are not supported with al2023s\"), so a pool of a1 only has no instance type left and launches nothing.",
		Source:    "aws/karpenter-provider-aws pkg/providers/instancetype/compatibility/compatibility.go amiFamilyCheck",
		Bad:       exampleOn("al2023", families("a1")),
		Good:      exampleOn("al2023", families("m6g")),
	})
	ruleBottlerocketNeuron = rules.Register(rules.Rule{
		ID: "nodepool-bottlerocket-neuron-before-1-3", Severity: rules.Warning, Category: ClassCategory,
		Title:     "Bottlerocket alias with Neuron families before Karpenter 1.3",
		Behaviour: "Before 1.3.0 Karpenter had no Neuron mapping for Bottlerocket: 1.0.x gave Neuron instances the NVIDIA image, 1.1-1.2 no image at all (they are dropped at launch). From 1.3.0 they get the standard x86_64 image (PR #7722).",
		Source:    "aws/karpenter-provider-aws pkg/providers/amifamily/bottlerocket.go; PRs #7304, #7722",
		Bad:       atVersion("1.2", exampleOn("bottlerocket", families("inf2"))),
		Good:      atVersion("1.3", exampleOn("bottlerocket", families("inf2"))),
	})
	ruleStartupNotRegistered = rules.Register(rules.Rule{
		ID: "nodepool-startup-taints-not-registered", Severity: rules.Warning, Category: ClassCategory,
		Title:     "Custom userData does not register the pool's startup taints",
		Behaviour: "Karpenter injects nothing into Custom userData; it adds the pool's startup taints to the Node only when it syncs the Node after registration. By then the agent that should remove the taint may already have run, so the taint stays, the NodeClaim stays Initialized=Unknown (StartupTaintsExist) and pods that do not tolerate it never land.",
		Source:    "kubernetes-sigs/karpenter pkg/controllers/nodeclaim/lifecycle/registration.go syncNode, initialization.go StartupTaintsRemoved; aws/karpenter-provider-aws pkg/providers/amifamily/bootstrap/custom.go",
		Bad:       exampleOn("custom", taint("startup_taints", "example.com/agent-not-ready", "", "NoExecute")),
		Good:      exampleOn("custom_agent", taint("startup_taints", "example.com/agent-not-ready", "", "NoExecute")),
	})
)

// Reused rules (registered by ami, userdata/lint and instancetype).
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
