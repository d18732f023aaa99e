package ami

import "github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype"

// InstanceFromType keeps what AMI mapping needs of an instance type. Offline
// types know their family's GPU manufacturer and accelerator but not the
// counts, which is all the variant requirements look at.
func InstanceFromType(t instancetype.Type) Instance {
	in := Instance{
		Name: t.Name, Architecture: t.Architecture,
		GPUCount: int(t.GPUCount), GPUManufacturer: t.GPUManufacturer, GPUName: t.GPUName,
		AcceleratorCount: int(t.AcceleratorCount), AcceleratorName: t.AcceleratorName,
	}
	if in.AcceleratorName == "" && t.AcceleratorManufacturer != "" {
		in.AcceleratorName = t.AcceleratorManufacturer + " accelerator"
	}
	return in
}
