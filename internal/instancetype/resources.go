package instancetype

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// Resources are the facts of DescribeInstanceTypes that Karpenter's
// computeCapacity reads besides vCPUs, memory and the network
// (aws/karpenter-provider-aws v1.14.1 pkg/providers/instancetype/types.go),
// as EC2 reports them: counts are summed by the capacity model, not here.
type Resources struct {
	// FirstArchitecture is ProcessorInfo.SupportedArchitectures[0] as EC2
	// spells it ("arm64", "x86_64"): Karpenter takes 64 MiB of CMA memory
	// off types whose first architecture is arm64.
	FirstArchitecture string
	// GPUs are GpuInfo.Gpus (manufacturer as EC2 spells it: "NVIDIA",
	// "AMD", "Habana").
	GPUs []Device
	// NeuronDevices are NeuronInfo.NeuronDevices; nil without NeuronInfo.
	NeuronDevices []NeuronDevice
	// EFAInterfaces is NetworkInfo.EfaInfo.MaximumEfaInterfaces (0 without
	// EFA).
	EFAInterfaces int64
	// InstanceStorageGB is InstanceStorageInfo.TotalSizeInGB; nil without
	// instance storage.
	InstanceStorageGB *int64
}

// Device is a kind of GPU and how many the type has.
type Device struct {
	Manufacturer string
	Count        int64
}

// NeuronDevice is a kind of Neuron device: how many, and the NeuronCores
// each has.
type NeuronDevice struct {
	Count, Cores int64
}

// resourceFacts reads Resources from DescribeInstanceTypes.
func resourceFacts(info ec2types.InstanceTypeInfo) *Resources {
	r := &Resources{}
	if p := info.ProcessorInfo; p != nil && len(p.SupportedArchitectures) > 0 {
		r.FirstArchitecture = string(p.SupportedArchitectures[0])
	}
	if info.GpuInfo != nil {
		for _, g := range info.GpuInfo.Gpus {
			r.GPUs = append(r.GPUs, Device{Manufacturer: aws.ToString(g.Manufacturer), Count: int64(aws.ToInt32(g.Count))})
		}
	}
	if info.NeuronInfo != nil {
		r.NeuronDevices = []NeuronDevice{}
		for _, d := range info.NeuronInfo.NeuronDevices {
			nd := NeuronDevice{Count: int64(aws.ToInt32(d.Count))}
			if d.CoreInfo != nil {
				nd.Cores = int64(aws.ToInt32(d.CoreInfo.Count))
			}
			r.NeuronDevices = append(r.NeuronDevices, nd)
		}
	}
	if n := info.NetworkInfo; n != nil && n.EfaInfo != nil {
		r.EFAInterfaces = int64(aws.ToInt32(n.EfaInfo.MaximumEfaInterfaces))
	}
	if s := info.InstanceStorageInfo; s != nil && s.TotalSizeInGB != nil {
		r.InstanceStorageGB = aws.Int64(*s.TotalSizeInGB)
	}
	return r
}
