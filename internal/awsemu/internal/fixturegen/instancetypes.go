package main

import (
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// itSpec holds the facts of one instance type. vCPU, memory, GPU,
// accelerator, hypervisor and bare-metal facts are cross-checked against
// ../shared/data/instance-types.csv by a test in package awsemu; ENI counts
// are those of Karpenter's zz_generated.vpclimits.go (v1.14.1); clock
// speeds, network performance strings and storage sizes are from the EC2
// instance type pages as remembered, i.e. plausible rather than verified.
type itSpec struct {
	name         string
	archs        []ec2types.ArchitectureType
	vcpus, cores int32
	memMiB       int64
	clockGHz     float64
	manufacturer string // processor
	hypervisor   ec2types.InstanceTypeHypervisor
	bareMetal    bool
	burstable    bool
	previousGen  bool
	freeTier     bool
	enis, ipv4   int32
	cards        int32 // network cards; enis are split evenly across them
	netPerf      string
	efaMax       int32 // EFA interfaces; 0 = no EFA
	storage      *storageSpec
	gpu          *deviceSpec
	neuron       *neuronSpec
	inference    *deviceSpec // InferenceAcceleratorInfo (inf1 has both)
	usage        []ec2types.UsageClassType
	hibernation  bool
	mac          bool
	legacy       bool // paravirtual-capable Xen generation: no ENA, NVMe, UEFI
}

type storageSpec struct {
	count  int32
	sizeGB int64
	disk   ec2types.DiskType
}

type deviceSpec struct {
	name, manufacturer string
	count, memMiB      int32
}

type neuronSpec struct {
	name                              string
	count, cores, coreVersion, memMiB int32
}

var (
	x86    = []ec2types.ArchitectureType{ec2types.ArchitectureTypeX8664}
	arm    = []ec2types.ArchitectureType{ec2types.ArchitectureTypeArm64}
	spotOD = []ec2types.UsageClassType{ec2types.UsageClassTypeOnDemand, ec2types.UsageClassTypeSpot}
)

var instanceTypeSpecs = []itSpec{
	{name: "m5.large", archs: x86, vcpus: 2, cores: 1, memMiB: 8192, clockGHz: 3.1, manufacturer: "Intel", enis: 3, ipv4: 10, netPerf: "Up to 10 Gigabit", hibernation: true},
	{name: "m5.xlarge", archs: x86, vcpus: 4, cores: 2, memMiB: 16384, clockGHz: 3.1, manufacturer: "Intel", enis: 4, ipv4: 15, netPerf: "Up to 10 Gigabit", hibernation: true},
	{name: "m5.metal", archs: x86, vcpus: 96, cores: 48, memMiB: 393216, clockGHz: 3.1, manufacturer: "Intel", bareMetal: true, enis: 15, ipv4: 50, netPerf: "25 Gigabit"},
	{name: "c5.large", archs: x86, vcpus: 2, cores: 1, memMiB: 4096, clockGHz: 3.4, manufacturer: "Intel", enis: 3, ipv4: 10, netPerf: "Up to 10 Gigabit", hibernation: true},
	{name: "t3.micro", archs: x86, vcpus: 2, cores: 1, memMiB: 1024, clockGHz: 2.5, manufacturer: "Intel", burstable: true, freeTier: true, enis: 2, ipv4: 2, netPerf: "Up to 5 Gigabit", hibernation: true},
	{name: "m7i-flex.large", archs: x86, vcpus: 2, cores: 1, memMiB: 8192, clockGHz: 3.2, manufacturer: "Intel", enis: 3, ipv4: 10, netPerf: "Up to 12.5 Gigabit", hibernation: true},
	{name: "u7i-12tb.224xlarge", archs: x86, vcpus: 896, cores: 448, memMiB: 12582912, clockGHz: 2.9, manufacturer: "Intel", enis: 15, ipv4: 50, netPerf: "100 Gigabit",
		usage: []ec2types.UsageClassType{ec2types.UsageClassTypeOnDemand}},
	{name: "m6g.large", archs: arm, vcpus: 2, cores: 2, memMiB: 8192, clockGHz: 2.5, manufacturer: "AWS", enis: 3, ipv4: 10, netPerf: "Up to 10 Gigabit"},
	{name: "m6g.xlarge", archs: arm, vcpus: 4, cores: 4, memMiB: 16384, clockGHz: 2.5, manufacturer: "AWS", enis: 4, ipv4: 15, netPerf: "Up to 10 Gigabit"},
	{name: "c6g.metal", archs: arm, vcpus: 64, cores: 64, memMiB: 131072, clockGHz: 2.5, manufacturer: "AWS", bareMetal: true, enis: 15, ipv4: 50, netPerf: "25 Gigabit"},
	{name: "c7g.large", archs: arm, vcpus: 2, cores: 2, memMiB: 4096, clockGHz: 2.6, manufacturer: "AWS", enis: 3, ipv4: 10, netPerf: "Up to 12.5 Gigabit"},
	{name: "t4g.medium", archs: arm, vcpus: 2, cores: 2, memMiB: 4096, clockGHz: 2.5, manufacturer: "AWS", burstable: true, enis: 3, ipv4: 6, netPerf: "Up to 5 Gigabit"},
	{name: "r6g.large", archs: arm, vcpus: 2, cores: 2, memMiB: 16384, clockGHz: 2.5, manufacturer: "AWS", enis: 3, ipv4: 10, netPerf: "Up to 10 Gigabit"},
	{name: "x2gd.large", archs: arm, vcpus: 2, cores: 2, memMiB: 32768, clockGHz: 2.5, manufacturer: "AWS", enis: 3, ipv4: 10, netPerf: "Up to 10 Gigabit",
		storage: &storageSpec{1, 118, ec2types.DiskTypeSsd}},
	{name: "a1.large", archs: arm, vcpus: 2, cores: 2, memMiB: 4096, clockGHz: 2.3, manufacturer: "AWS", enis: 3, ipv4: 10, netPerf: "Up to 10 Gigabit"},
	{name: "g5.xlarge", archs: x86, vcpus: 4, cores: 2, memMiB: 16384, clockGHz: 3.3, manufacturer: "AMD", enis: 4, ipv4: 15, netPerf: "Up to 10 Gigabit",
		storage: &storageSpec{1, 250, ec2types.DiskTypeSsd}, gpu: &deviceSpec{"A10G", "NVIDIA", 1, 24576}},
	{name: "g5g.xlarge", archs: arm, vcpus: 4, cores: 4, memMiB: 8192, clockGHz: 2.5, manufacturer: "AWS", enis: 4, ipv4: 15, netPerf: "Up to 10 Gigabit",
		gpu: &deviceSpec{"T4g", "NVIDIA", 1, 16384}},
	{name: "g4dn.xlarge", archs: x86, vcpus: 4, cores: 2, memMiB: 16384, clockGHz: 2.5, manufacturer: "Intel", enis: 3, ipv4: 10, netPerf: "Up to 25 Gigabit",
		storage: &storageSpec{1, 125, ec2types.DiskTypeSsd}, gpu: &deviceSpec{"T4", "NVIDIA", 1, 16384}},
	{name: "g4ad.xlarge", archs: x86, vcpus: 4, cores: 2, memMiB: 16384, clockGHz: 3.0, manufacturer: "AMD", enis: 2, ipv4: 4, netPerf: "Up to 10 Gigabit",
		storage: &storageSpec{1, 150, ec2types.DiskTypeSsd}, gpu: &deviceSpec{"Radeon Pro V520", "AMD", 1, 8192}},
	{name: "p4d.24xlarge", archs: x86, vcpus: 96, cores: 48, memMiB: 1179648, clockGHz: 3.0, manufacturer: "Intel", enis: 60, ipv4: 50, cards: 4, netPerf: "4x 100 Gigabit", efaMax: 4,
		storage: &storageSpec{8, 1000, ec2types.DiskTypeSsd}, gpu: &deviceSpec{"A100", "NVIDIA", 8, 40960},
		usage: []ec2types.UsageClassType{ec2types.UsageClassTypeOnDemand, ec2types.UsageClassTypeSpot, ec2types.UsageClassTypeCapacityBlock}},
	{name: "inf1.xlarge", archs: x86, vcpus: 4, cores: 2, memMiB: 8192, clockGHz: 3.0, manufacturer: "Intel", enis: 4, ipv4: 10, netPerf: "Up to 25 Gigabit",
		neuron: &neuronSpec{"Inferentia", 1, 4, 1, 8192}, inference: &deviceSpec{"Inferentia", "AWS", 1, 8192}},
	{name: "inf2.xlarge", archs: x86, vcpus: 4, cores: 2, memMiB: 16384, clockGHz: 3.6, manufacturer: "AMD", enis: 4, ipv4: 15, netPerf: "Up to 15 Gigabit",
		neuron: &neuronSpec{"Inferentia2", 1, 2, 2, 32768}},
	{name: "trn1.2xlarge", archs: x86, vcpus: 8, cores: 4, memMiB: 32768, clockGHz: 3.5, manufacturer: "Intel", enis: 4, ipv4: 15, netPerf: "Up to 12.5 Gigabit",
		storage: &storageSpec{1, 474, ec2types.DiskTypeSsd}, neuron: &neuronSpec{"Trainium", 1, 2, 2, 32768}},
	// Must be filtered out by Karpenter's processor-info.supported-architecture filter.
	{name: "mac1.metal", archs: []ec2types.ArchitectureType{ec2types.ArchitectureTypeX8664Mac}, vcpus: 12, cores: 6, memMiB: 32768, clockGHz: 3.2, manufacturer: "Intel",
		bareMetal: true, enis: 8, ipv4: 30, netPerf: "25 Gigabit", mac: true, usage: []ec2types.UsageClassType{ec2types.UsageClassTypeOnDemand}},
	// Previous generation Xen type: i386 + x86_64, hvm + paravirtual.
	{name: "m1.small", archs: []ec2types.ArchitectureType{ec2types.ArchitectureTypeI386, ec2types.ArchitectureTypeX8664}, vcpus: 1, cores: 1, memMiB: 1740, manufacturer: "Intel",
		hypervisor: ec2types.InstanceTypeHypervisorXen, previousGen: true, enis: 2, ipv4: 4, netPerf: "Low",
		storage: &storageSpec{1, 160, ec2types.DiskTypeHdd}, legacy: true},
}

// encryptionInTransit: the Nitro generations that encrypt traffic between
// instances (plausible, not verified per type).
var encryptionInTransit = map[string]bool{
	"c7g.large": true, "g4dn.xlarge": true, "g5.xlarge": true, "inf2.xlarge": true, "m7i-flex.large": true,
	"p4d.24xlarge": true, "trn1.2xlarge": true, "u7i-12tb.224xlarge": true, "x2gd.large": true,
}

func instanceTypes() []ec2types.InstanceTypeInfo {
	out := make([]ec2types.InstanceTypeInfo, 0, len(instanceTypeSpecs))
	for _, s := range instanceTypeSpecs {
		out = append(out, s.info())
	}
	return out
}

func (s itSpec) info() ec2types.InstanceTypeInfo {
	graviton := s.manufacturer == "AWS"
	threads := s.vcpus / s.cores
	it := ec2types.InstanceTypeInfo{
		InstanceType:                  ec2types.InstanceType(s.name),
		AutoRecoverySupported:         ptr(!s.bareMetal && s.storage == nil && !s.legacy),
		BareMetal:                     ptr(s.bareMetal),
		BurstablePerformanceSupported: ptr(s.burstable),
		CurrentGeneration:             ptr(!s.previousGen),
		DedicatedHostsSupported:       ptr(true),
		FreeTierEligible:              ptr(s.freeTier),
		HibernationSupported:          ptr(s.hibernation),
		InstanceStorageSupported:      ptr(s.storage != nil),
		MemoryInfo:                    &ec2types.MemoryInfo{SizeInMiB: ptr(s.memMiB)},
		PlacementGroupInfo: &ec2types.PlacementGroupInfo{SupportedStrategies: []ec2types.PlacementGroupStrategy{
			ec2types.PlacementGroupStrategyCluster, ec2types.PlacementGroupStrategyPartition, ec2types.PlacementGroupStrategySpread,
		}},
		ProcessorInfo: &ec2types.ProcessorInfo{
			Manufacturer:           ptr(s.manufacturer),
			SupportedArchitectures: s.archs,
		},
		SupportedRootDeviceTypes:     []ec2types.RootDeviceType{ec2types.RootDeviceTypeEbs},
		SupportedUsageClasses:        s.usage,
		SupportedVirtualizationTypes: []ec2types.VirtualizationType{ec2types.VirtualizationTypeHvm},
		VCpuInfo: &ec2types.VCpuInfo{
			DefaultCores:          ptr(s.cores),
			DefaultThreadsPerCore: ptr(threads),
			DefaultVCpus:          ptr(s.vcpus),
		},
		EbsInfo: &ec2types.EbsInfo{
			EbsOptimizedSupport: ec2types.EbsOptimizedSupportDefault,
			EncryptionSupport:   ec2types.EbsEncryptionSupportSupported,
			NvmeSupport:         ec2types.EbsNvmeSupportRequired,
		},
	}
	if s.clockGHz > 0 {
		it.ProcessorInfo.SustainedClockSpeedInGhz = ptr(s.clockGHz)
	}
	if it.SupportedUsageClasses == nil {
		it.SupportedUsageClasses = spotOD
	}
	// Nitro unless bare metal (no hypervisor at all) or set explicitly.
	it.Hypervisor = s.hypervisor
	if it.Hypervisor == "" && !s.bareMetal {
		it.Hypervisor = ec2types.InstanceTypeHypervisorNitro
	}
	switch {
	case s.legacy:
		it.SupportedBootModes = []ec2types.BootModeType{ec2types.BootModeTypeLegacyBios}
	case graviton:
		it.SupportedBootModes = []ec2types.BootModeType{ec2types.BootModeTypeUefi}
	case s.mac:
		it.SupportedBootModes = []ec2types.BootModeType{ec2types.BootModeTypeUefi}
	default:
		it.SupportedBootModes = []ec2types.BootModeType{ec2types.BootModeTypeLegacyBios, ec2types.BootModeTypeUefi}
	}
	if !s.legacy {
		it.NitroEnclavesSupport = ec2types.NitroEnclavesSupportSupported
		it.NitroTpmSupport = ec2types.NitroTpmSupportSupported
		if s.bareMetal || s.burstable || s.mac || s.vcpus < 4 {
			it.NitroEnclavesSupport = ec2types.NitroEnclavesSupportUnsupported
		}
	}

	cards := max(s.cards, 1)
	net := &ec2types.NetworkInfo{
		DefaultNetworkCardIndex:      ptr(int32(0)),
		EfaSupported:                 ptr(s.efaMax > 0),
		EnaSupport:                   ec2types.EnaSupportRequired,
		EncryptionInTransitSupported: ptr(encryptionInTransit[s.name]),
		Ipv4AddressesPerInterface:    ptr(s.ipv4),
		Ipv6AddressesPerInterface:    ptr(s.ipv4),
		Ipv6Supported:                ptr(true),
		MaximumNetworkCards:          ptr(cards),
		MaximumNetworkInterfaces:     ptr(s.enis),
		NetworkPerformance:           ptr(s.netPerf),
	}
	for i := range cards {
		net.NetworkCards = append(net.NetworkCards, ec2types.NetworkCardInfo{
			NetworkCardIndex:         ptr(i),
			MaximumNetworkInterfaces: ptr(s.enis / cards),
			NetworkPerformance:       ptr(s.netPerf),
		})
	}
	if s.efaMax > 0 {
		net.EfaInfo = &ec2types.EfaInfo{MaximumEfaInterfaces: ptr(s.efaMax)}
	}
	if s.legacy {
		net.EnaSupport = ec2types.EnaSupportUnsupported
		net.Ipv6AddressesPerInterface = ptr(int32(0))
		net.Ipv6Supported = ptr(false)
		it.SupportedRootDeviceTypes = append(it.SupportedRootDeviceTypes, ec2types.RootDeviceTypeInstanceStore)
		it.SupportedVirtualizationTypes = append(it.SupportedVirtualizationTypes, ec2types.VirtualizationTypeParavirtual)
		it.EbsInfo = &ec2types.EbsInfo{
			EbsOptimizedSupport: ec2types.EbsOptimizedSupportUnsupported,
			EncryptionSupport:   ec2types.EbsEncryptionSupportSupported,
			NvmeSupport:         ec2types.EbsNvmeSupportUnsupported,
		}
	}
	it.NetworkInfo = net

	if st := s.storage; st != nil {
		nvme := ec2types.EphemeralNvmeSupportRequired
		if st.disk == ec2types.DiskTypeHdd {
			nvme = ec2types.EphemeralNvmeSupportUnsupported
		}
		it.InstanceStorageInfo = &ec2types.InstanceStorageInfo{
			Disks:             []ec2types.DiskInfo{{Count: ptr(st.count), SizeInGB: ptr(st.sizeGB), Type: st.disk}},
			EncryptionSupport: ec2types.InstanceStorageEncryptionSupportRequired,
			NvmeSupport:       nvme,
			TotalSizeInGB:     ptr(int64(st.count) * st.sizeGB),
		}
		if st.disk == ec2types.DiskTypeHdd {
			it.InstanceStorageInfo.EncryptionSupport = ec2types.InstanceStorageEncryptionSupportUnsupported
		}
	}
	if g := s.gpu; g != nil {
		it.GpuInfo = &ec2types.GpuInfo{
			Gpus: []ec2types.GpuDeviceInfo{{
				Count:        ptr(g.count),
				Manufacturer: ptr(g.manufacturer),
				MemoryInfo:   &ec2types.GpuDeviceMemoryInfo{SizeInMiB: ptr(g.memMiB)},
				Name:         ptr(g.name),
			}},
			TotalGpuMemoryInMiB: ptr(g.count * g.memMiB),
		}
	}
	if n := s.neuron; n != nil {
		it.NeuronInfo = &ec2types.NeuronInfo{
			NeuronDevices: []ec2types.NeuronDeviceInfo{{
				Count:      ptr(n.count),
				CoreInfo:   &ec2types.NeuronDeviceCoreInfo{Count: ptr(n.cores), Version: ptr(n.coreVersion)},
				MemoryInfo: &ec2types.NeuronDeviceMemoryInfo{SizeInMiB: ptr(n.memMiB)},
				Name:       ptr(n.name),
			}},
			TotalNeuronDeviceMemoryInMiB: ptr(n.count * n.memMiB),
		}
	}
	if a := s.inference; a != nil {
		it.InferenceAcceleratorInfo = &ec2types.InferenceAcceleratorInfo{
			Accelerators: []ec2types.InferenceDeviceInfo{{
				Count:        ptr(a.count),
				Manufacturer: ptr(a.manufacturer),
				MemoryInfo:   &ec2types.InferenceDeviceMemoryInfo{SizeInMiB: ptr(a.memMiB)},
				Name:         ptr(a.name),
			}},
			TotalInferenceMemoryInMiB: ptr(a.count * a.memMiB),
		}
	}
	return it
}
