package ami

import (
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// Well-known label keys the image requirements use.
const (
	LabelArch             = "kubernetes.io/arch"
	LabelOS               = "kubernetes.io/os"
	LabelWindowsBuild     = "node.kubernetes.io/windows-build"
	LabelGPUCount         = "karpenter.k8s.aws/instance-gpu-count"
	LabelAcceleratorCount = "karpenter.k8s.aws/instance-accelerator-count"
)

// Requirement operators used on images.
const (
	OpIn           = "In"
	OpExists       = "Exists"
	OpDoesNotExist = "DoesNotExist"
)

// Requirement is one node selector requirement attached to an image.
type Requirement struct {
	Key      string
	Operator string
	Values   []string
}

// variantRequirements returns the variant's requirements (types.go
// Variant.Requirements): standard excludes GPUs and accelerators, nvidia
// needs a GPU (of any manufacturer), neuron needs an accelerator. Karpenter
// 1.0.0-1.0.2 had nvidia and neuron swapped (PR #6976, fixed in 1.0.3).
func variantRequirements(v amifamily.Variant, kv versions.Karpenter) []Requirement {
	gpu := Requirement{Key: LabelGPUCount, Operator: OpExists}
	accel := Requirement{Key: LabelAcceleratorCount, Operator: OpExists}
	if variantsSwapped(kv) {
		gpu, accel = accel, gpu
	}
	switch v {
	case amifamily.Standard:
		return []Requirement{
			{Key: LabelAcceleratorCount, Operator: OpDoesNotExist},
			{Key: LabelGPUCount, Operator: OpDoesNotExist},
		}
	case amifamily.NVIDIA:
		return []Requirement{gpu}
	case amifamily.Neuron:
		return []Requirement{accel}
	}
	return nil
}

func variantsSwapped(kv versions.Karpenter) bool { return kv.Minor == 0 && !kv.AtLeast(0, 3) }
