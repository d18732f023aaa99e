package ami

import (
	"fmt"
	"slices"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// Instance is what AMI mapping needs to know about an instance type. The GPU
// labels exist when GPUManufacturer is set (Karpenter sets them whenever EC2
// reports one kind of GPU, even with a count of 0 for fractional GPUs), the
// accelerator labels when AcceleratorName is set; counts of 0 with a
// manufacturer or name mean "not known" (offline facts) or fractional.
type Instance struct {
	Name             string // e.g. "g5g.xlarge"; may be empty for a bare architecture question
	Architecture     string // amd64 or arm64
	GPUCount         int
	GPUManufacturer  string // nvidia, amd
	GPUName          string // e.g. t4g
	AcceleratorCount int
	AcceleratorName  string // e.g. inferentia2
}

func (in Instance) hasGPU() bool         { return in.GPUCount > 0 || in.GPUManufacturer != "" }
func (in Instance) hasAccelerator() bool { return in.AcceleratorCount > 0 || in.AcceleratorName != "" }

// Labels are the instance type's values of the labels image requirements
// use; a label that is absent counts as DoesNotExist, as in Karpenter's
// computeRequirements. The OS labels depend on the AMI family: Windows
// families give amd64 types os=windows and the family's build, and arm64
// types no OS at all (A:pkg/providers/instancetype/types.go getOS).
func (in Instance) Labels(f amifamily.Family) map[string]string {
	l := map[string]string{LabelArch: in.Architecture}
	if m := f.Model(); m.SupportsArch(in.Architecture) {
		l[LabelOS] = m.OS()
		if b := m.WindowsBuild(); b != "" {
			l[LabelWindowsBuild] = b
		}
	}
	if in.hasGPU() {
		l[LabelGPUCount] = fmt.Sprint(in.GPUCount)
	}
	if in.hasAccelerator() {
		l[LabelAcceleratorCount] = fmt.Sprint(in.AcceleratorCount)
	}
	return l
}

// Compatible reports whether labels satisfy every requirement, strictly: an
// Exists or In requirement on a label the instance does not have fails
// (scheduling.Requirements.Compatible without AllowUndefinedWellKnownLabels,
// used by MapToInstanceTypes since 1.4.0 / karpenter#7925).
func Compatible(reqs []Requirement, labels map[string]string) bool {
	for _, r := range reqs {
		v, has := labels[r.Key]
		switch r.Operator {
		case OpIn:
			if !has || !slices.Contains(r.Values, v) {
				return false
			}
		case "NotIn":
			if has && slices.Contains(r.Values, v) {
				return false
			}
		case OpExists:
			if !has {
				return false
			}
		case OpDoesNotExist:
			if has {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// String describes the instance for messages: "g5g.xlarge (arm64, 1 NVIDIA t4g)".
func (in Instance) String() string {
	name := in.Name
	if name == "" {
		name = "an instance"
	}
	parts := []string{in.Architecture}
	if in.hasGPU() {
		gpu := strings.TrimSpace(strings.ToUpper(in.GPUManufacturer) + " " + in.GPUName)
		if gpu == "" {
			gpu = "GPU"
		}
		if in.GPUCount > 0 {
			gpu = fmt.Sprintf("%d %s", in.GPUCount, gpu)
		}
		parts = append(parts, gpu)
	}
	if in.hasAccelerator() {
		acc := strings.TrimSpace(in.AcceleratorName)
		if acc == "" {
			acc = "accelerator"
		}
		if in.AcceleratorCount > 0 {
			acc = fmt.Sprintf("%d %s", in.AcceleratorCount, acc)
		}
		parts = append(parts, acc)
	}
	return fmt.Sprintf("%s (%s)", name, strings.Join(parts, ", "))
}

// Mapping is the context of an instance-to-image question.
type Mapping struct {
	Family     amifamily.Family
	Kubernetes versions.Kubernetes
	Karpenter  versions.Karpenter
}

// ForInstance returns the image Karpenter launches the instance with: the
// first entry of status.amis whose requirements the instance satisfies
// (A:pkg/providers/amifamily/ami.go MapToInstanceTypes, strict since 1.4.0).
// When none is compatible it returns an error finding that names the missing
// variant and the way out.
func ForInstance(res Result, in Instance, m Mapping) (AMI, rules.Findings) {
	labels := in.Labels(m.Family)
	for _, a := range res.AMIs {
		if !Compatible(a.Requirements, labels) {
			continue
		}
		var fs rules.Findings
		if res.Alias == nil && (in.hasGPU() || in.hasAccelerator()) {
			fs = append(fs, rules.New(RuleNonAliasGPU, TermsPath,
				"%s gets %s (%s), chosen by architecture only: without an alias Karpenter infers only an image's architecture, so the instance boots the same image as every other %s instance, usually without GPU/Neuron drivers. Use an alias (e.g. \"al2023@latest\", which has nvidia and neuron variants), or a separate EC2NodeClass whose images carry the drivers.",
				in, a.ID, a.Name, in.Architecture))
		}
		if res.Alias != nil && in.GPUManufacturer == "amd" {
			fs = append(fs, rules.New(RuleAMDGPU, TermsPath,
				"%s has an AMD GPU, but Karpenter's nvidia variant is keyed on instance-gpu-count Exists whatever the manufacturer: it boots %s (%s), the NVIDIA image, without AMD drivers. Use a custom AMI with AMD drivers in a separate EC2NodeClass.",
				in, a.ID, a.Name))
		}
		return a, fs
	}
	return AMI{}, rules.Findings{noImageFinding(res, in, m)}
}

func noImageFinding(res Result, in Instance, m Mapping) rules.Finding {
	var ids []string
	for _, a := range res.AMIs {
		if !slices.Contains(ids, a.ID) {
			ids = append(ids, a.ID)
		}
	}
	karpErr := fmt.Sprintf("no instance types satisfy requirements of amis [%s]", strings.Join(ids, " "))
	k := m.Kubernetes.String()
	if res.Alias != nil && in.Architecture == "arm64" && in.hasGPU() {
		am := res.Alias.Family.Model()
		if gap := am.Arm64GPUGap(m.Karpenter); gap != "" {
			return rules.New(RuleArm64GPU, TermsPath, "%s; %s cannot start with alias %s (Karpenter: %q). %s.",
				gap, in, res.Alias, karpErr, amifamily.Arm64GPUWayOut(am, m.Karpenter, k))
		}
		if where, retry := am.Arm64GPUReleaseNote(k); where != "" {
			return rules.New(RuleArm64GPU, TermsPath,
				"alias %s resolves no arm64 NVIDIA image for Kubernetes %s (%s); %s cannot start (Karpenter: %q). Use %s, or %s.",
				res.Alias, k, where, in, karpErr, retry, amifamily.Arm64GPUAlternatives(res.Alias.Family, k))
		}
	}
	if res.Alias != nil && in.hasAccelerator() {
		if gap := res.Alias.Family.Model().NeuronGap(m.Karpenter); gap != "" {
			return rules.New(RuleNoCompatibleImage, TermsPath,
				"%s: %s cannot start with alias %s (Karpenter: %q). Upgrade Karpenter to 1.3 or later, or use %s.",
				gap, in, res.Alias, karpErr, amifamily.NeuronAlternatives(res.Alias.Family)).WithFix(rules.KarpenterVersion(`"1.3"`))
		}
	}
	var have []string
	for _, a := range res.AMIs {
		have = append(have, fmt.Sprintf("%s (%s) requires %s", a.ID, a.Name, formatRequirements(a.Requirements)))
	}
	why := ""
	switch {
	case !m.Family.Model().SupportsArch(in.Architecture):
		why = " " + m.Family.Model().ArchGap() + "."
	case res.Alias == nil:
		why = fmt.Sprintf(" Without an alias only the image's architecture counts: select an %s image too, or restrict the NodePool to the architectures the images have.", in.Architecture)
	}
	return rules.New(RuleNoCompatibleImage, TermsPath,
		"%s matches none of the selected images, so Karpenter fails its launches with %q.%s Images: %s.",
		in, karpErr, why, strings.Join(have, "; "))
}

func formatRequirements(rs []Requirement) string {
	var parts []string
	for _, r := range rs {
		s := r.Key + " " + r.Operator
		if len(r.Values) > 0 {
			s += " [" + strings.Join(r.Values, ",") + "]"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// The rules the checks of this file emit.
var (
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
)
