package ami

import (
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

const category = "AMI selection"

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

// Rules of AMI selection. Each cites where Karpenter (A = karpenter-provider-aws
// v1.14.1) or its CRD enforces the behaviour.
var (
	RuleTermsCount = rules.Register(rules.Rule{
		ID: "ami-terms-count", Severity: rules.Error, Category: category,
		Title:     "amiSelectorTerms must have 1 to 30 terms",
		Behaviour: "The EC2NodeClass CRD declares `minItems: 1` and `maxItems: 30` on `spec.amiSelectorTerms`; the API server rejects the object.",
		Source:    "A:pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml (amiSelectorTerms)",
		Bad:       nodeClass(),
		Good:      nodeClass(term(`alias = "al2023@v20251209"`)),
	})
	RuleTermEmpty = rules.Register(rules.Rule{
		ID: "ami-term-empty", Severity: rules.Error, Category: category,
		Title:     "an AMI selector term selects nothing",
		Behaviour: "CRD rule: \"expected at least one, got none, ['tags', 'id', 'name', 'alias', 'ssmParameter']\". A term with only `owner` (or nothing) is rejected by the API server.",
		Source:    "A:pkg/apis/v1/ec2nodeclass.go AMISelectorTerm (x-kubernetes-validations)",
		Bad:       custom(term(`owner = "self"`)),
		Good:      custom(term(`owner = "self"`, `name = "team-eks-node-*"`)),
	})
	RuleTermIDExclusive = rules.Register(rules.Rule{
		ID: "ami-term-id-exclusive", Severity: rules.Error, Category: category,
		Title:     "`id` cannot be combined with other fields of its term",
		Behaviour: "CRD rule: \"'id' is mutually exclusive, cannot be set with a combination of other fields in amiSelectorTerms\". The CEL rule forgets `ssmParameter`; Karpenter's DescribeImageQueries then uses `id` and silently ignores `ssmParameter`, so this provider rejects that pair too.",
		Source:    "A:pkg/apis/v1/ec2nodeclass.go (CEL), A:pkg/providers/amifamily/ami.go DescribeImageQueries (switch: id > ssmParameter > name/tags)",
		Bad:       custom(term(`id = "ami-0123456789abcdef0"`, `name = "team-*"`)),
		Good:      custom(term(`id = "ami-0123456789abcdef0"`), term(`name = "team-*"`)),
	})
	RuleTermAliasExclusive = rules.Register(rules.Rule{
		ID: "ami-term-alias-exclusive", Severity: rules.Error, Category: category,
		Title:     "an alias must be the only field and the only term",
		Behaviour: "CRD rules: \"'alias' is mutually exclusive, cannot be set with a combination of other fields in amiSelectorTerms\" and \"... with a combination of other amiSelectorTerms\". `ssmParameter` next to an alias passes CEL but is ignored, so it is rejected here as well.",
		Source:    "A:pkg/apis/v1/ec2nodeclass.go (CEL), EC2NodeClass.Alias()",
		Bad:       rules.Body(term(`alias = "al2023@latest"`), term(`name = "team-*"`)),
		Good:      term(`alias = "al2023@latest"`),
	})
	RuleTermSSMIgnoredFields = rules.Register(rules.Rule{
		ID: "ami-term-ssm-parameter-exclusive", Severity: rules.Error, Category: category,
		Title:     "`ssm_parameter` ignores the other fields of its term",
		Behaviour: "DescribeImageQueries resolves a term with `ssmParameter` to that parameter's image and never looks at its `name`, `tags` or `owner`; the CRD does not forbid the combination, so the fields are silently ignored.",
		Source:    "A:pkg/providers/amifamily/ami.go DescribeImageQueries",
		Bad:       custom(term(`ssm_parameter = "/platform/ami/al2023"`, `owner = "self"`)),
		Good:      custom(term(`ssm_parameter = "/platform/ami/al2023"`)),
	})
	RuleTermTagsEmpty = rules.Register(rules.Rule{
		ID: "ami-term-tags-invalid", Severity: rules.Error, Category: category,
		Title:     "selector tags must have non-empty keys and values, at most 20",
		Behaviour: "CRD rule: \"empty tag keys or values aren't supported\" and `maxProperties: 20` on selector tags.",
		Source:    "A:pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml (amiSelectorTerms[].tags)",
		Bad:       custom(term(`tags = { team = "" }`)),
		Good:      custom(term(`tags = { team = "*" }`)),
	})
	RuleTermIDPattern = rules.Register(rules.Rule{
		ID: "ami-term-id-invalid", Severity: rules.Error, Category: category,
		Title:     "an AMI id must look like ami-0123456789abcdef0",
		Behaviour: "The CRD pattern `ami-[0-9a-z]+` is unanchored, so `xami-1y` passes the API server and then matches no image (\"AMISelector did not match any AMIs\"). This provider checks the whole value.",
		Source:    "A:pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml (amiSelectorTerms[].id pattern)",
		Bad:       custom(term(`id = "ami-0123 "`)),
		Good:      custom(term(`id = "ami-0123456789abcdef0"`)),
	})
	RuleOwnerComma = rules.Register(rules.Rule{
		ID: "ami-term-owner-single", Severity: rules.Warning, Category: category,
		Title:     "`owner` is one owner, not a list",
		Behaviour: "Karpenter passes `owner` as a single element of DescribeImages `Owners`; it never splits on commas, so `\"self,amazon\"` asks EC2 for an owner literally named that and matches nothing.",
		Source:    "A:pkg/providers/amifamily/ami.go DescribeImageQueries",
		Bad:       custom(term(`name = "team-*"`, `owner = "self,123456789012"`)),
		Good:      custom(term(`name = "team-*"`, `owner = "self"`), term(`name = "team-*"`, `owner = "123456789012"`)),
	})
	RuleSSMParameterVersion = rules.Register(rules.Rule{
		ID: "ami-term-ssm-parameter-unsupported", Severity: rules.Error, Category: category,
		Title:     "`ssm_parameter` needs Karpenter 1.4",
		Behaviour: "`ssmParameter` was added in Karpenter 1.4.0 (PR #7341). Older CRDs prune the unknown field, which leaves an empty term that the API server rejects.",
		Source:    "A PR #7341 (v1.4.0)",
		Bad:       rules.WithProvider(custom(term(`ssm_parameter = "/platform/ami/al2023"`)), `karpenter_version = "1.3"`),
		Good:      rules.WithProvider(custom(term(`ssm_parameter = "/platform/ami/al2023"`)), `karpenter_version = "1.4"`),
	})
	RuleNameWithoutOwner = rules.Register(rules.Rule{
		ID: "ami-term-name-default-owners", Severity: rules.Warning, Category: category,
		Title:     "a name term without `owner` only searches your account and Amazon",
		Behaviour: "A term with `name` and no `owner` is sent with Owners [self, amazon], so an image shared from another account is never found even though its name matches. The provider warns when such a term matches no image while other terms do (when no term matches, `ami-not-found` gives the same advice).",
		Source:    "A:pkg/providers/amifamily/ami.go DescribeImageQueries",
		Bad:       custom("# the image is owned by account 111122223333", term(`name = "shared-eks-node-*"`)),
		Good:      custom(term(`name = "shared-eks-node-*"`, `owner = "111122223333"`)),
	})
	RuleKubernetesUnsupported = rules.Register(rules.Rule{
		ID: "kubernetes-version-unsupported", Severity: rules.Warning, Category: category,
		Title:     "a Kubernetes version outside the range Karpenter supports",
		Behaviour: "Karpenter supports Kubernetes 1.26 to 1.36 (MinK8sVersion, MaxK8sVersion); outside that range it logs \"karpenter is not compatible with kubernetes version\" and its behaviour is untested, and EKS-optimized images may not be published for the version.",
		Source:    "A:pkg/providers/version/version.go DefaultProvider.UpdateVersion",
		Bad:       rules.Block(`data "karpenter_amis" "x"`, `kubernetes_version = "1.25"`, term(`alias = "al2023@latest"`)),
		Good:      rules.Block(`data "karpenter_amis" "x"`, `kubernetes_version = "1.32"`, term(`alias = "al2023@latest"`)),
	})
	RuleMultipleTermsOneArch = rules.Register(rules.Rule{
		ID: "ami-terms-one-per-architecture", Severity: rules.Warning, Category: category,
		Title:     "only the newest image per architecture is used",
		Behaviour: "Without an alias Karpenter knows only an image's architecture, and keeps one image per requirement set: the newest non-deprecated amd64 image and the newest arm64 image. Other matches are discovered and never launched.",
		Source:    "A:pkg/providers/amifamily/ami.go DefaultProvider.amis / compareAMI",
		Bad:       custom("# both images are x86_64", term(`id = "ami-0aaaaaaaaaaaaaaaa"`), term(`id = "ami-0bbbbbbbbbbbbbbbb"`)),
		Good:      custom("# one image per architecture per EC2NodeClass; a second image needs a second EC2NodeClass", term(`id = "ami-0aaaaaaaaaaaaaaaa"`)),
	})
)

// Alias rules.
var (
	RuleAliasFormat = rules.Register(rules.Rule{
		ID: "alias-format", Severity: rules.Error, Category: category,
		Title:     "an alias must be family@version",
		Behaviour: "CRD rules: `maxLength: 30` and \"'alias' is improperly formatted, must match the format 'family@version'\" (`^[a-zA-Z0-9]+@.+$`).",
		Source:    "A:pkg/apis/v1/ec2nodeclass.go AMISelectorTerm.Alias",
		Bad:       term(`alias = "al2023-latest"`),
		Good:      term(`alias = "al2023@latest"`),
	})
	RuleAliasMultipleAt = rules.Register(rules.Rule{
		ID: "alias-multiple-at", Severity: rules.Error, Category: category,
		Title:     "an alias with more than one `@` crashes Karpenter",
		Behaviour: "`al2023@v1@x` passes the CRD pattern, but amiFamilyFromAlias/amiVersionFromAlias call log.Fatalf when the alias does not split into exactly two parts: the Karpenter controller process exits and restarts in a loop.",
		Source:    "A:pkg/apis/v1/ec2nodeclass.go amiFamilyFromAlias, amiVersionFromAlias",
		Bad:       term(`alias = "al2023@v20251209@x"`),
		Good:      term(`alias = "al2023@v20251209"`),
	})
	RuleAliasFamily = rules.Register(rules.Rule{
		ID: "alias-family-unsupported", Severity: rules.Error, Category: category,
		Title:     "the alias family is not one Karpenter knows",
		Behaviour: "CRD rule: \"family is not supported, must be one of the following: 'al2', 'al2023', 'bottlerocket', 'windows2019', 'windows2022', 'windows2025'\". The check is case-sensitive, and `windows2025` exists only from Karpenter 1.9.",
		Source:    "A:pkg/apis/v1/ec2nodeclass.go (CEL); A PR #8842 (windows2025, v1.9.0)",
		Bad:       term(`alias = "AL2023@latest"`),
		Good:      term(`alias = "al2023@latest"`),
	})
	RuleAliasWindowsVersion = rules.Register(rules.Rule{
		ID: "alias-windows-version", Severity: rules.Error, Category: category,
		Title:     "Windows aliases only take `latest`",
		Behaviour: "CRD rule: \"windows families may only specify version 'latest'\"; Karpenter reads only the ami-windows-latest SSM parameters.",
		Source:    "A:pkg/apis/v1/ec2nodeclass.go (CEL), A:pkg/providers/amifamily/windows.go",
		Bad:       term(`alias = "windows2022@2025.11.12"`),
		Good:      term(`alias = "windows2022@latest"`),
	})
	RuleAliasVersionShape = rules.Register(rules.Rule{
		ID: "alias-version-shape", Severity: rules.Warning, Category: category,
		Title:     "the pinned alias version has a shape SSM never publishes",
		Behaviour: "The version is spliced verbatim into the SSM parameter name: AL2/AL2023 releases are `vYYYYMMDD` (with the `v`), Bottlerocket releases `x.y.z` or `x.y.z-<commit>` (a leading `v` is trimmed). Any other shape resolves nothing and the EC2NodeClass never becomes ready.",
		Source:    "A:pkg/providers/amifamily/{al2,al2023,bottlerocket}.go DescribeImageQuery",
		Bad:       term(`alias = "al2023@20251209"`),
		Good:      term(`alias = "al2023@v20251209"`),
	})
	RuleAL2Kubernetes = rules.Register(rules.Rule{
		ID: "alias-al2-unsupported-kubernetes", Severity: rules.Error, Category: category,
		Title:     "AL2 aliases are refused on Kubernetes 1.33 and later",
		Behaviour: "Karpenter sets AMIsReady=False (UnsupportedAlias) with \"AL2 aliases are no longer supported on EKS 1.33+\"; EKS publishes no AL2 AMIs for 1.33+.",
		Source:    "A:pkg/providers/amifamily/ami.go DescribeImageQueries (AL2DeprecationError, PR #8151)",
		Bad:       rules.Body("# cluster on Kubernetes 1.33", term(`alias = "al2@latest"`)),
		Good:      term(`alias = "al2023@latest"`),
	})
	RuleWindows2025Kubernetes = rules.Register(rules.Rule{
		ID: "alias-windows2025-unsupported-kubernetes", Severity: rules.Error, Category: category,
		Title:     "Windows Server 2025 needs Kubernetes 1.35",
		Behaviour: "Karpenter sets AMIsReady=False (UnsupportedAlias): \"Windows Server 2025 requires EKS version 1.35 or higher, current version: <v>\".",
		Source:    "A:pkg/providers/amifamily/ami.go DescribeImageQueries (WS2025UnsupportedVersionError)",
		Bad:       rules.Body("# cluster on Kubernetes 1.32", term(`alias = "windows2025@latest"`)),
		Good:      term(`alias = "windows2022@latest"`),
	})
	RuleAliasNotPublished = rules.Register(rules.Rule{
		ID: "alias-not-published", Severity: rules.Error, Category: category,
		Title:     "the pinned alias release is not published for this Kubernetes version",
		Behaviour: "Pinned alias versions are per Kubernetes minor: none of the SSM parameters Karpenter reads exists, so it reports \"failed to discover any AMIs for alias\" and the EC2NodeClass never becomes ready (e.g. after a control-plane upgrade).",
		Source:    "A:pkg/providers/amifamily/al2023.go DescribeImageQuery",
		Bad:       rules.Body("# cluster on Kubernetes 1.32", term(`alias = "al2023@v20200101"`)),
		Good:      term(`alias = "al2023@v20251209"`),
	})
)

// Resolution rules.
var (
	RuleNotFound = rules.Register(rules.Rule{
		ID: "ami-not-found", Severity: rules.Error, Category: category,
		Title:     "the selector matches no image",
		Behaviour: "Karpenter sets AMIsReady=False with \"AMISelector did not match any AMIs\" and launches nothing for NodePools of this EC2NodeClass.",
		Source:    "A:pkg/controllers/nodeclass/ami.go AMI.Reconcile",
		Bad:       custom("# account 111122223333 has no image of that name", term(`name = "team-eks-node-al2023-*"`, `owner = "111122223333"`)),
		Good:      custom(term(`name = "team-eks-node-al2023-*"`, `owner = "self"`)),
	})
	RuleNotAvailable = rules.Register(rules.Rule{
		ID: "ami-not-available", Severity: rules.Error, Category: category,
		Title:     "the selector matches only images that are not available",
		Behaviour: "Karpenter asks DescribeImages for `state=available` only (since 1.3.0 / 1.2.2, PR #7672), so pending, failed or disabled images (a Packer build still running) are ignored; with nothing else matching the EC2NodeClass never becomes ready.",
		Source:    "A:pkg/providers/amifamily/types.go DescribeImagesInput; A #7652/#7672",
		Bad:       custom("# the only match is a pending Packer build", term(`name = "team-gpu-node-*"`)),
		Good:      custom("# wait for the build, or select a released image", term(`name = "team-eks-node-al2023-x86_64-*"`)),
	})
	RulePendingSelectable = rules.Register(rules.Rule{
		ID: "ami-pending-selectable", Severity: rules.Warning, Category: category,
		Title:     "this Karpenter release may launch images that are still pending",
		Behaviour: "Before 1.3.0 (and 1.2.2) Karpenter did not filter on `state=available`: a Packer image still being built can be selected, and its later completion shows as drift (A #7652).",
		Source:    "A #7652, fixed by PR #7672 in v1.3.0 and v1.2.2",
		Bad:       rules.WithProvider(custom(term(`name = "team-eks-node-*"`)), `karpenter_version = "1.2.0"`),
		Good:      rules.WithProvider(custom(term(`name = "team-eks-node-*"`)), `karpenter_version = "1.3"`),
	})
	RuleNoCompatibleImage = rules.Register(rules.Rule{
		ID: "ami-no-compatible-image", Severity: rules.Error, Category: category,
		Title:     "no selected image is compatible with the instance",
		Behaviour: "Karpenter maps each instance type to the first image whose requirements it satisfies (strictly, since 1.4.0 / #7925); with none it fails launches with \"no instance types satisfy requirements of amis [...]\".",
		Source:    "A:pkg/providers/amifamily/ami.go MapToInstanceTypes, resolver.go Resolve",
		Bad:       rules.Block(`data "karpenter_ami" "x"`, `ami_family = "AL2023"`, `instance_type = "m6g.large"`, "# an x86_64 image", term(`id = "ami-0aaaaaaaaaaaaaaaa"`)),
		Good:      rules.Block(`data "karpenter_ami" "x"`, `instance_type = "m6g.large"`, term(`alias = "al2023@latest"`)),
	})
	RuleArm64GPU = rules.Register(rules.Rule{
		ID: "arm64-gpu-no-image", Severity: rules.Error, Category: category,
		Title:     "the AMI family has no arm64 GPU image",
		Behaviour: "AL2 publishes no arm64 NVIDIA image, and Karpenter before 1.4 does not query AL2023's arm64 NVIDIA image (published since EKS AMI v20250403): g5g instances match no image and launches fail with \"no instance types satisfy requirements of amis [...]\".",
		Source:    "A:pkg/providers/amifamily/al2.go, al2023.go (PR #7996, v1.4.0); awslabs/amazon-eks-ami#853",
		Bad:       rules.Block(`data "karpenter_ami" "x"`, `instance_type = "g5g.xlarge"`, term(`alias = "al2@latest"`)),
		Good:      rules.Block(`data "karpenter_ami" "x"`, `instance_type = "g5g.xlarge"`, term(`alias = "al2023@latest"`)),
	})
	RuleNonAliasGPU = rules.Register(rules.Rule{
		ID: "ami-non-alias-gpu-instance", Severity: rules.Warning, Category: category,
		Title:     "a GPU or Neuron instance gets an image chosen by architecture only",
		Behaviour: "Without an alias Karpenter infers only the architecture of an image, so GPU and Neuron instances boot the same image as every other instance of that architecture, usually without drivers. The docs: \"use a separate EC2NodeClass\". A NodePool on such a class is warned when it selects GPU/Neuron families, and also when it does not keep them out (instance-gpu-count and instance-accelerator-count DoesNotExist): a pod requesting a GPU then makes Karpenter launch one with the driverless image.",
		Source:    "A:website/content/en/docs/concepts/nodeclasses.md §amiSelectorTerms; A:pkg/providers/amifamily/types.go RequirementsForImageWithArchitecture",
		Bad:       rules.Block(`data "karpenter_ami" "x"`, `ami_family = "AL2023"`, `instance_type = "g5.xlarge"`, term(`name = "team-eks-node-al2023-x86_64-*"`)),
		Good:      rules.Block(`data "karpenter_ami" "x"`, `instance_type = "g5.xlarge"`, term(`alias = "al2023@latest"`)),
	})
	RuleAMDGPU = rules.Register(rules.Rule{
		ID: "amd-gpu-nvidia-image", Severity: rules.Warning, Category: category,
		Title:     "AMD GPU instances get the NVIDIA image",
		Behaviour: "The nvidia variant is keyed on `instance-gpu-count Exists` whatever the manufacturer, so g4ad (AMD Radeon Pro V520) boots the NVIDIA image, without AMD drivers.",
		Source:    "A:pkg/providers/amifamily/types.go Variant.Requirements; pkg/providers/instancetype/types.go computeRequirements",
		Bad:       rules.Block(`data "karpenter_ami" "x"`, `instance_type = "g4ad.xlarge"`, term(`alias = "al2023@latest"`)),
		Good:      "# a custom AMI with AMD drivers, in its own EC2NodeClass\n" + rules.Block(`data "karpenter_ami" "x"`, `ami_family = "AL2023"`, `instance_type = "g4ad.xlarge"`, term(`name = "team-amd-gpu-*"`)),
	})
	RuleVariantSwap = rules.Register(rules.Rule{
		ID: "alias-variants-swapped", Severity: rules.Warning, Category: category,
		Title:     "Karpenter 1.0.0-1.0.2 swaps the NVIDIA and Neuron images",
		Behaviour: "In 1.0.0-1.0.2 the nvidia variant carried `instance-accelerator-count Exists` and the neuron variant `instance-gpu-count Exists`: NVIDIA instances booted the Neuron image and the reverse (fixed in 1.0.3).",
		Source:    "A PR #6976 (v1.0.3), A:pkg/providers/amifamily/types.go",
		Bad:       rules.WithProvider(rules.Block(`data "karpenter_ami" "x"`, `instance_type = "g5.xlarge"`, term(`alias = "al2023@latest"`)), `karpenter_version = "1.0.1"`),
		Good:      rules.Block(`provider "karpenter"`, `karpenter_version = "1.0.3"`),
	})
	RuleFirstMatchBug = rules.Register(rules.Rule{
		ID: "alias-first-match-capacity-bug", Severity: rules.Warning, Category: category,
		Title:     "before Karpenter 1.4 multi-variant aliases can confuse capacity learning",
		Behaviour: "Up to 1.3.x MapToInstanceTypes matched leniently; a node's synthetic instance type lacked the GPU keys, the first image (often the NVIDIA one) \"matched\" non-GPU nodes, the discovered-capacity cache was never filled and Karpenter kept launching nodes too small for the pod (#7925).",
		Source:    "A #7925, fixed by PR #7923 (v1.4.0)",
		Bad:       rules.WithProvider(term(`alias = "bottlerocket@latest"`), `karpenter_version = "1.3"`),
		Good:      rules.Block(`provider "karpenter"`, `karpenter_version = "1.4"`),
	})
)

// Family rules.
var (
	RuleFamilyUnsupported = rules.Register(rules.Rule{
		ID: "ami-family-unsupported", Severity: rules.Error, Category: category,
		Title:     "amiFamily is not in the CRD enum",
		Behaviour: "The CRD enum is AL2, AL2023, Bottlerocket, Custom, Windows2019, Windows2022 and (from 1.9.0) Windows2025; Ubuntu was dropped at v1.0.0. The API server rejects any other value.",
		Source:    "A:pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml (amiFamily enum)",
		Bad:       "ami_family = \"Ubuntu\"",
		Good:      "ami_family = \"AL2023\"",
	})
	RuleFamilyRequired = rules.Register(rules.Rule{
		ID: "ami-family-required", Severity: rules.Error, Category: category,
		Title:     "amiFamily is required without an alias",
		Behaviour: "CRD rule: \"must specify amiFamily if amiSelectorTerms does not contain an alias\". amiFamily decides the userData format; Karpenter cannot infer it from an image.",
		Source:    "A:pkg/apis/v1/ec2nodeclass.go (CEL on spec)",
		Bad:       term(`name = "team-eks-node-al2023-*"`),
		Good:      rules.Body(`ami_family = "AL2023"`, term(`name = "team-eks-node-al2023-*"`)),
	})
	RuleFamilyAliasMismatch = rules.Register(rules.Rule{
		ID: "ami-family-alias-mismatch", Severity: rules.Error, Category: category,
		Title:     "amiFamily must match the alias family or be Custom",
		Behaviour: "CRD rules: \"if set, amiFamily must be 'AL2023' or 'Custom' when using an AL2023 alias\" (one per family).",
		Source:    "A:pkg/apis/v1/ec2nodeclass.go (CEL on spec)",
		Bad:       rules.Body(`ami_family = "AL2"`, term(`alias = "al2023@latest"`)),
		Good:      rules.Body("# ami_family follows the alias", term(`alias = "al2023@latest"`)),
	})
)

// FamilyPath is the attribute of the amiFamily.
var FamilyPath = rules.Root("ami_family")
