package instancetype

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/requirements"
)

// syntheticInfos builds n DescribeInstanceTypes entries over the known
// families, with made-up sizes and figures (GPU for GPU families).
func syntheticInfos(n int) []ec2types.InstanceTypeInfo {
	fams := Families()
	out := make([]ec2types.InstanceTypeInfo, 0, n)
	for i := 0; len(out) < n; i++ {
		f := fams[i%len(fams)]
		arch := ec2types.ArchitectureTypeX8664
		if f.Architecture == ARM64 {
			arch = ec2types.ArchitectureTypeArm64
		}
		cpu := int32(2 << (i / len(fams) % 7))
		in := ec2types.InstanceTypeInfo{
			InstanceType:          ec2types.InstanceType(fmt.Sprintf("%s.s%d", f.Name, i/len(fams))),
			ProcessorInfo:         &ec2types.ProcessorInfo{SupportedArchitectures: []ec2types.ArchitectureType{arch}, Manufacturer: aws.String("Intel")},
			VCpuInfo:              &ec2types.VCpuInfo{DefaultVCpus: aws.Int32(cpu)},
			MemoryInfo:            &ec2types.MemoryInfo{SizeInMiB: aws.Int64(int64(cpu) * 4096)},
			Hypervisor:            ec2types.InstanceTypeHypervisorNitro,
			SupportedUsageClasses: []ec2types.UsageClassType{ec2types.UsageClassTypeOnDemand, ec2types.UsageClassTypeSpot},
		}
		if f.HasGPU() {
			in.GpuInfo = &ec2types.GpuInfo{Gpus: []ec2types.GpuDeviceInfo{{Name: aws.String("X"), Manufacturer: aws.String(f.GPUManufacturer), Count: aws.Int32(1), MemoryInfo: &ec2types.GpuDeviceMemoryInfo{SizeInMiB: aws.Int32(1024)}}}}
		}
		out = append(out, in)
	}
	return out
}

// A typical NodePool: categories, generation, both architectures, a CPU
// range, some families excluded, min_values on the family.
var benchSpecs = []requirements.Spec{
	{Key: requirements.LabelInstanceCategory, Operator: "In", Values: []string{"c", "m", "r"}},
	{Key: requirements.LabelInstanceGeneration, Operator: "Gt", Values: []string{"5"}},
	{Key: requirements.LabelArch, Operator: "In", Values: []string{"amd64", "arm64"}},
	{Key: requirements.LabelCapacityType, Operator: "In", Values: []string{"spot", "on-demand"}},
	{Key: requirements.LabelInstanceCPU, Operator: "In", Values: []string{"4", "8", "16", "32"}},
	{Key: requirements.LabelInstanceFamily, Operator: "NotIn", Values: []string{"m7i-flex", "c7i-flex"}, MinValues: aws.Int(3)},
	{Key: requirements.LabelInstanceGPUCount, Operator: "DoesNotExist"},
}

// BenchmarkAdmit1000Types: one NodePool's question over 1,000 live types.
//
//	go test ./internal/instancetype -run '^$' -bench Admit -benchmem
func BenchmarkAdmit1000Types(b *testing.B) {
	cat := NewLive(syntheticInfos(1000))
	if len(cat.Types()) != 1000 {
		b.Fatalf("%d types", len(cat.Types()))
	}
	a := Admit(benchSpecs, cat)
	if len(a.Types) == 0 || len(a.Types) == 1000 {
		b.Fatalf("the benchmark must filter: %d admitted", len(a.Types))
	}
	reqs, _ := requirements.FromSpecs(benchSpecs)
	b.Run("matching", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			admitRequirements(reqs, cat)
		}
	})
	b.Run("remembered", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Admit(benchSpecs, cat)
		}
	})
}

// BenchmarkOverlaps1000Types: the bare matching loop (type labels against a
// prepared requirement set), without building the answer.
func BenchmarkOverlaps1000Types(b *testing.B) {
	cat := NewLive(syntheticInfos(1000))
	reqs, _ := requirements.FromSpecs(benchSpecs)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		n := 0
		for _, t := range cat.types {
			if t.labels.Overlaps(reqs) {
				n++
			}
		}
		if n == 0 {
			b.Fatal("nothing matched")
		}
	}
}

// BenchmarkNewLive1000Types: building the catalogue (once per process).
func BenchmarkNewLive1000Types(b *testing.B) {
	infos := syntheticInfos(1000)
	b.ReportAllocs()
	for b.Loop() {
		NewLive(infos)
	}
}
