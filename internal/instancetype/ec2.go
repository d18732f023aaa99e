package instancetype

import (
	"fmt"
	"math"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/requirements"
)

// awsToKube maps EC2 architectures to kubernetes.io/arch; Karpenter offers
// no other (mac, i386-only), see AWSToKubeArchitectures.
var awsToKube = map[ec2types.ArchitectureType]string{
	ec2types.ArchitectureTypeX8664: AMD64,
	ec2types.ArchitectureTypeArm64: ARM64,
}

// FromEC2 computes a type's labels as Karpenter's computeRequirements does
// (aws/karpenter-provider-aws v1.14.1 pkg/providers/instancetype/types.go).
// ok is false for a type Karpenter would not offer (no x86_64/arm64).
func FromEC2(info ec2types.InstanceTypeInfo) (Type, bool) {
	arch := ""
	if info.ProcessorInfo != nil {
		for _, a := range info.ProcessorInfo.SupportedArchitectures {
			if k, ok := awsToKube[a]; ok {
				arch = k
				break
			}
		}
	}
	if arch == "" {
		return Type{}, false
	}
	name := string(info.InstanceType)
	family, size, _ := SplitType(name)
	t := Type{
		Name: name, Family: family, Size: size, Architecture: arch, Exact: true,
		Hypervisor: string(info.Hypervisor),
		BareMetal:  aws.ToBool(info.BareMetal),
	}
	if info.VCpuInfo != nil {
		t.VCPU = int64(aws.ToInt32(info.VCpuInfo.DefaultVCpus))
	}
	if info.MemoryInfo != nil {
		t.MemoryMiB = aws.ToInt64(info.MemoryInfo.SizeInMiB)
	}
	if n, ok := networkFacts(info); ok {
		t.Network = &n
	}
	t.Resources = resourceFacts(info)
	n := requirements.New
	r := commonLabels(name, family, size, arch)
	// Karpenter labels family and size only for "family.size" names.
	// (Adding DoesNotExist intersects the In away.)
	if strings.Count(name, ".") != 1 {
		doesNotExist(r, requirements.LabelInstanceFamily, requirements.LabelInstanceSize)
	}
	r.Add(
		n(requirements.LabelInstanceCPU, requirements.In, fmt.Sprint(t.VCPU)),
		n(requirements.LabelInstanceMemory, requirements.In, fmt.Sprint(t.MemoryMiB)),
		n(requirements.LabelInstanceHypervisor, requirements.In, t.Hypervisor),
		n(requirements.LabelInstanceTenancy, requirements.In, "default", "dedicated"),
	)
	// Capacity types: what EC2 sells the type as (on-demand, spot), plus
	// reserved, which depends on the EC2NodeClass's capacity reservations
	// and is therefore always possible here.
	capacity := []string{"reserved"}
	for _, uc := range info.SupportedUsageClasses {
		if uc == ec2types.UsageClassTypeOnDemand || uc == ec2types.UsageClassTypeSpot {
			capacity = append(capacity, string(uc))
		}
	}
	r.Add(n(requirements.LabelCapacityType, requirements.In, capacity...))
	encryption := info.NetworkInfo != nil && aws.ToBool(info.NetworkInfo.EncryptionInTransitSupported)
	r.Add(n(requirements.LabelInstanceEncryptionInTransit, requirements.In, boolString(encryption)))

	if p := info.ProcessorInfo; p != nil {
		r.Add(n(requirements.LabelInstanceCPUManufacturer, requirements.In, kebab(aws.ToString(p.Manufacturer))),
			n(requirements.LabelInstanceCPUSustainedClockSpeedMhz, requirements.In,
				fmt.Sprint(int(math.Round(aws.ToFloat64(p.SustainedClockSpeedInGhz)*1000)))))
	} else {
		doesNotExist(r, requirements.LabelInstanceCPUManufacturer, requirements.LabelInstanceCPUSustainedClockSpeedMhz)
	}
	if s := info.InstanceStorageInfo; s != nil && s.NvmeSupport != ec2types.EphemeralNvmeSupportUnsupported && s.TotalSizeInGB != nil {
		r.Add(n(requirements.LabelInstanceLocalNVME, requirements.In, fmt.Sprint(aws.ToInt64(s.TotalSizeInGB))))
	} else {
		doesNotExist(r, requirements.LabelInstanceLocalNVME)
	}
	networkBandwidth(r, name)
	if e := info.EbsInfo; e != nil && e.EbsOptimizedInfo != nil && e.EbsOptimizedSupport == ec2types.EbsOptimizedSupportDefault {
		r.Add(n(requirements.LabelInstanceEBSBandwidth, requirements.In, fmt.Sprint(aws.ToInt32(e.EbsOptimizedInfo.MaximumBandwidthInMbps))))
	} else {
		doesNotExist(r, requirements.LabelInstanceEBSBandwidth)
	}

	// GPU labels only for exactly one kind of GPU.
	if g := info.GpuInfo; g != nil && len(g.Gpus) == 1 {
		gpu := g.Gpus[0]
		t.GPUCount = int64(aws.ToInt32(gpu.Count))
		t.GPUManufacturer = kebab(aws.ToString(gpu.Manufacturer))
		t.GPUName = kebab(aws.ToString(gpu.Name))
		if gpu.MemoryInfo != nil {
			t.GPUMemoryMiB = int64(aws.ToInt32(gpu.MemoryInfo.SizeInMiB))
		}
		r.Add(n(requirements.LabelInstanceGPUName, requirements.In, t.GPUName),
			n(requirements.LabelInstanceGPUManufacturer, requirements.In, t.GPUManufacturer),
			n(requirements.LabelInstanceGPUCount, requirements.In, fmt.Sprint(t.GPUCount)),
			n(requirements.LabelInstanceGPUMemory, requirements.In, fmt.Sprint(t.GPUMemoryMiB)))
	} else {
		doesNotExist(r, requirements.LabelInstanceGPUName, requirements.LabelInstanceGPUManufacturer,
			requirements.LabelInstanceGPUCount, requirements.LabelInstanceGPUMemory)
	}
	// Accelerators: a single inference accelerator when there is no Neuron
	// info, else the single Neuron device (manufacturer "aws").
	switch {
	case info.NeuronInfo != nil && len(info.NeuronInfo.NeuronDevices) == 1:
		d := info.NeuronInfo.NeuronDevices[0]
		t.AcceleratorName, t.AcceleratorManufacturer = kebab(aws.ToString(d.Name)), "aws"
		t.AcceleratorCount = int64(aws.ToInt32(d.Count))
	case info.InferenceAcceleratorInfo != nil && len(info.InferenceAcceleratorInfo.Accelerators) == 1 && info.NeuronInfo == nil:
		a := info.InferenceAcceleratorInfo.Accelerators[0]
		t.AcceleratorName, t.AcceleratorManufacturer = kebab(aws.ToString(a.Name)), kebab(aws.ToString(a.Manufacturer))
		t.AcceleratorCount = int64(aws.ToInt32(a.Count))
	}
	if t.AcceleratorManufacturer != "" {
		r.Add(n(requirements.LabelInstanceAcceleratorName, requirements.In, t.AcceleratorName),
			n(requirements.LabelInstanceAcceleratorManufacturer, requirements.In, t.AcceleratorManufacturer),
			n(requirements.LabelInstanceAcceleratorCount, requirements.In, fmt.Sprint(t.AcceleratorCount)))
	} else {
		doesNotExist(r, requirements.LabelInstanceAcceleratorName, requirements.LabelInstanceAcceleratorManufacturer,
			requirements.LabelInstanceAcceleratorCount)
	}
	t.labels = r
	return t, true
}

// kebab is Karpenter's lowerKabobCase.
func kebab(s string) string { return strings.ToLower(strings.ReplaceAll(s, " ", "-")) }
