package instancetype

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/requirements"
)

func info(name string, archs ...ec2types.ArchitectureType) ec2types.InstanceTypeInfo {
	return ec2types.InstanceTypeInfo{
		InstanceType:  ec2types.InstanceType(name),
		ProcessorInfo: &ec2types.ProcessorInfo{SupportedArchitectures: archs, Manufacturer: aws.String("AWS"), SustainedClockSpeedInGhz: aws.Float64(2.5)},
		VCpuInfo:      &ec2types.VCpuInfo{DefaultVCpus: aws.Int32(4)},
		MemoryInfo:    &ec2types.MemoryInfo{SizeInMiB: aws.Int64(8192)},
		Hypervisor:    ec2types.InstanceTypeHypervisorNitro,
		NetworkInfo:   &ec2types.NetworkInfo{EncryptionInTransitSupported: aws.Bool(true)},
	}
}

func label(t Type, key string) string { return t.Requirements().Get(key).String() }

// The labels Karpenter's computeRequirements gives, per case.
func TestFromEC2Labels(t *testing.T) {
	g5g := info("g5g.xlarge", ec2types.ArchitectureTypeArm64)
	g5g.GpuInfo = &ec2types.GpuInfo{Gpus: []ec2types.GpuDeviceInfo{{Name: aws.String("T4g"), Manufacturer: aws.String("NVIDIA"), Count: aws.Int32(1), MemoryInfo: &ec2types.GpuDeviceMemoryInfo{SizeInMiB: aws.Int32(16384)}}}}

	twoGPUKinds := info("x9.large", ec2types.ArchitectureTypeX8664)
	twoGPUKinds.GpuInfo = &ec2types.GpuInfo{Gpus: []ec2types.GpuDeviceInfo{{Name: aws.String("A")}, {Name: aws.String("B")}}}

	inf2 := info("inf2.xlarge", ec2types.ArchitectureTypeX8664)
	inf2.NeuronInfo = &ec2types.NeuronInfo{NeuronDevices: []ec2types.NeuronDeviceInfo{{Name: aws.String("Inferentia2"), Count: aws.Int32(1)}}}
	// Neuron wins over an inference-accelerator entry.
	inf2.InferenceAcceleratorInfo = &ec2types.InferenceAcceleratorInfo{Accelerators: []ec2types.InferenceDeviceInfo{{Name: aws.String("ignored"), Count: aws.Int32(9)}}}

	dl2q := info("dl2q.24xlarge", ec2types.ArchitectureTypeX8664)
	dl2q.InferenceAcceleratorInfo = &ec2types.InferenceAcceleratorInfo{Accelerators: []ec2types.InferenceDeviceInfo{{Name: aws.String("Qualcomm AI100"), Manufacturer: aws.String("Qualcomm"), Count: aws.Int32(8)}}}

	metal := info("m5.metal", ec2types.ArchitectureTypeX8664)
	metal.Hypervisor = ""
	metal.BareMetal = aws.Bool(true)
	metal.InstanceStorageInfo = &ec2types.InstanceStorageInfo{NvmeSupport: ec2types.EphemeralNvmeSupportRequired, TotalSizeInGB: aws.Int64(3600)}
	metal.EbsInfo = &ec2types.EbsInfo{EbsOptimizedSupport: ec2types.EbsOptimizedSupportDefault, EbsOptimizedInfo: &ec2types.EbsOptimizedInfo{MaximumBandwidthInMbps: aws.Int32(19000)}}

	legacy := info("m1.small", "i386", ec2types.ArchitectureTypeX8664)

	cases := []struct {
		in   ec2types.InstanceTypeInfo
		want map[string]string
	}{
		{g5g, map[string]string{
			requirements.LabelArch:                              "kubernetes.io/arch In [arm64]",
			requirements.LabelOS:                                "kubernetes.io/os In [linux]",
			requirements.LabelInstanceGPUName:                   "karpenter.k8s.aws/instance-gpu-name In [t4g]",
			requirements.LabelInstanceGPUManufacturer:           "karpenter.k8s.aws/instance-gpu-manufacturer In [nvidia]",
			requirements.LabelInstanceGPUCount:                  "karpenter.k8s.aws/instance-gpu-count In [1]",
			requirements.LabelInstanceGPUMemory:                 "karpenter.k8s.aws/instance-gpu-memory In [16384]",
			requirements.LabelInstanceAcceleratorCount:          "karpenter.k8s.aws/instance-accelerator-count DoesNotExist",
			requirements.LabelInstanceCategory:                  "karpenter.k8s.aws/instance-category In [g]",
			requirements.LabelInstanceGeneration:                "karpenter.k8s.aws/instance-generation In [5]",
			requirements.LabelInstanceCPUManufacturer:           "karpenter.k8s.aws/instance-cpu-manufacturer In [aws]",
			requirements.LabelInstanceCPUSustainedClockSpeedMhz: "karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz In [2500]",
			requirements.LabelInstanceLocalNVME:                 "karpenter.k8s.aws/instance-local-nvme DoesNotExist",
			requirements.LabelInstanceCapabilityFlex:            "karpenter.k8s.aws/instance-capability-flex In [false]",
			requirements.LabelInstanceHypervisor:                "karpenter.k8s.aws/instance-hypervisor In [nitro]",
			requirements.LabelInstanceEncryptionInTransit:       "karpenter.k8s.aws/instance-encryption-in-transit-supported In [true]",
		}},
		{twoGPUKinds, map[string]string{
			requirements.LabelInstanceGPUCount: "karpenter.k8s.aws/instance-gpu-count DoesNotExist",
			requirements.LabelOS:               "kubernetes.io/os In [linux windows]",
		}},
		{inf2, map[string]string{
			requirements.LabelInstanceAcceleratorName:         "karpenter.k8s.aws/instance-accelerator-name In [inferentia2]",
			requirements.LabelInstanceAcceleratorManufacturer: "karpenter.k8s.aws/instance-accelerator-manufacturer In [aws]",
			requirements.LabelInstanceAcceleratorCount:        "karpenter.k8s.aws/instance-accelerator-count In [1]",
			requirements.LabelInstanceGPUCount:                "karpenter.k8s.aws/instance-gpu-count DoesNotExist",
		}},
		{dl2q, map[string]string{
			requirements.LabelInstanceAcceleratorName:         "karpenter.k8s.aws/instance-accelerator-name In [qualcomm-ai100]",
			requirements.LabelInstanceAcceleratorManufacturer: "karpenter.k8s.aws/instance-accelerator-manufacturer In [qualcomm]",
		}},
		{metal, map[string]string{
			requirements.LabelInstanceHypervisor:   "karpenter.k8s.aws/instance-hypervisor In []",
			requirements.LabelInstanceLocalNVME:    "karpenter.k8s.aws/instance-local-nvme In [3600]",
			requirements.LabelInstanceEBSBandwidth: "karpenter.k8s.aws/instance-ebs-bandwidth In [19000]",
			requirements.LabelInstanceSize:         "karpenter.k8s.aws/instance-size In [metal]",
		}},
		{legacy, map[string]string{
			requirements.LabelArch:           "kubernetes.io/arch In [amd64]",
			requirements.LabelInstanceFamily: "karpenter.k8s.aws/instance-family In [m1]",
			requirements.LabelInstanceCPU:    "karpenter.k8s.aws/instance-cpu In [4]",
			requirements.LabelInstanceMemory: "karpenter.k8s.aws/instance-memory In [8192]",
		}},
	}
	for _, c := range cases {
		typ, ok := FromEC2(c.in)
		if !ok {
			t.Fatalf("%s not offered", c.in.InstanceType)
		}
		for key, want := range c.want {
			if got := label(typ, key); got != want {
				t.Errorf("%s: %s, want %s", typ.Name, got, want)
			}
		}
	}
	// Bare metal's hypervisor is the empty string, a value: In [""] holds it.
	m, _ := FromEC2(metal)
	if !m.Requirements().Get(requirements.LabelInstanceHypervisor).Has("") || !m.BareMetal {
		t.Error("metal hypervisor must be the empty value")
	}
}

func TestFromEC2SkipsWhatKarpenterNeverOffers(t *testing.T) {
	for _, in := range []ec2types.InstanceTypeInfo{
		info("mac1.metal", ec2types.ArchitectureTypeX8664Mac),
		info("mac2.metal", ec2types.ArchitectureTypeArm64Mac),
		{InstanceType: "x.large"},
	} {
		if _, ok := FromEC2(in); ok {
			t.Errorf("%s must be left out", in.InstanceType)
		}
	}
}

// The live labels of every emulator fixture agree with the offline family
// facts: the two sources answer the same family-level questions alike.
func TestLiveAgreesWithEmbeddedOnFixtures(t *testing.T) {
	f, err := awsemu.DefaultFixtures()
	if err != nil {
		t.Fatal(err)
	}
	live := NewLive(f.InstanceTypes)
	if len(live.Types()) == 0 {
		t.Fatal("no fixtures")
	}
	for _, lt := range live.Types() {
		fam, err := LookupFamily(lt.Family)
		if err != nil {
			t.Errorf("%s: %v", lt.Name, err)
			continue
		}
		if lt.Architecture != fam.Architecture || lt.GPUManufacturer != fam.GPUManufacturer || lt.AcceleratorManufacturer != fam.AcceleratorManufacturer {
			t.Errorf("%s: live %s/%q/%q, embedded %s/%q/%q", lt.Name, lt.Architecture, lt.GPUManufacturer, lt.AcceleratorManufacturer,
				fam.Architecture, fam.GPUManufacturer, fam.AcceleratorManufacturer)
		}
		if _, ok := Embedded().Type(lt.Name); !ok {
			t.Errorf("%s is live but not in the embedded list", lt.Name)
		}
	}
	if _, ok := live.Type("mac1.metal"); ok {
		t.Error("mac1.metal must not be offered")
	}
	t.Logf("compared %d fixture types", len(live.Types()))
}
