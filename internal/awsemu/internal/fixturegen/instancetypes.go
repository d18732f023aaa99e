package main

import (
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// itSpec holds the facts of one instance type. vCPU, memory, GPU,
// accelerator, hypervisor and bare-metal facts are cross-checked against
// ../shared/data/instance-types.csv by a test in package awsemu; ENI counts
// are those of Karpenter's zz_generated.vpclimits.go (v1.14.1). The facts
// Karpenter derives labels and resources from (also clock speeds, GPU and
// accelerator memory, EFA, encryption in transit, EBS bandwidth, local
// NVMe) agree with AWS's DescribeInstanceTypes output as moto 5.2.1 ships
// it; internal/awsclient's contract test compares them when moto_server is
// installed. Network performance strings and storage sizes agree too.
// Flags Karpenter does not read (hibernation, Nitro Enclaves, NitroTPM, boot
// modes, dedicated hosts, auto recovery) are plausible, not verified.
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
	{name: "u7i-12tb.224xlarge", archs: x86, vcpus: 896, cores: 448, memMiB: 12582912, clockGHz: 1.9, manufacturer: "Intel", enis: 15, ipv4: 50, netPerf: "100 Gigabit", efaMax: 1,
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
		storage: &storageSpec{1, 250, ec2types.DiskTypeSsd}, gpu: &deviceSpec{"A10G", "NVIDIA", 1, 22888}},
	{name: "g5g.xlarge", archs: arm, vcpus: 4, cores: 4, memMiB: 8192, clockGHz: 2.5, manufacturer: "AWS", enis: 4, ipv4: 15, netPerf: "Up to 10 Gigabit",
		gpu: &deviceSpec{"T4g", "NVIDIA", 1, 16384}},
	{name: "g4dn.xlarge", archs: x86, vcpus: 4, cores: 2, memMiB: 16384, clockGHz: 2.5, manufacturer: "Intel", enis: 3, ipv4: 10, netPerf: "Up to 25 Gigabit",
		storage: &storageSpec{1, 125, ec2types.DiskTypeSsd}, gpu: &deviceSpec{"T4", "NVIDIA", 1, 16384}},
	{name: "g4ad.xlarge", archs: x86, vcpus: 4, cores: 2, memMiB: 16384, clockGHz: 3.0, manufacturer: "AMD", enis: 2, ipv4: 4, netPerf: "Up to 10 Gigabit",
		storage: &storageSpec{1, 150, ec2types.DiskTypeSsd}, gpu: &deviceSpec{"Radeon Pro V520", "AMD", 1, 8192}},
	{name: "p4d.24xlarge", archs: x86, vcpus: 96, cores: 48, memMiB: 1179648, clockGHz: 3.0, manufacturer: "Intel", enis: 60, ipv4: 50, cards: 4, netPerf: "4x 100 Gigabit", efaMax: 4,
		storage: &storageSpec{8, 1000, ec2types.DiskTypeSsd}, gpu: &deviceSpec{"A100", "NVIDIA", 8, 40960},
		usage: []ec2types.UsageClassType{ec2types.UsageClassTypeOnDemand, ec2types.UsageClassTypeSpot, ec2types.UsageClassTypeCapacityBlock}},
	{name: "inf1.xlarge", archs: x86, vcpus: 4, cores: 2, memMiB: 8192, clockGHz: 2.5, manufacturer: "Intel", enis: 4, ipv4: 10, netPerf: "Up to 25 Gigabit",
		neuron: &neuronSpec{"Inferentia", 1, 4, 1, 8192}, inference: &deviceSpec{"Inferentia", "AWS", 1, 8192}},
	{name: "inf2.xlarge", archs: x86, vcpus: 4, cores: 2, memMiB: 16384, clockGHz: 3.6, manufacturer: "AMD", enis: 4, ipv4: 15, netPerf: "Up to 15 Gigabit",
		neuron: &neuronSpec{"Inferentia2", 1, 2, 2, 32768}, inference: &deviceSpec{"Inferentia2", "AWS", 1, 32768}},
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

// encryptionInTransit: the types whose NetworkInfo has
// EncryptionInTransitSupported true in AWS's DescribeInstanceTypes output (as
// moto 5.2.1 ships it). Not every Nitro type: Graviton2 (m6g, c6g, t4g, r6g,
// x2gd, g5g), a1 and the Intel m5/c5/t3 sizes here do not encrypt; g4ad and
// inf1 do.
var encryptionInTransit = map[string]bool{
	"c7g.large": true, "g4ad.xlarge": true, "g4dn.xlarge": true, "g5.xlarge": true, "inf1.xlarge": true,
	"inf2.xlarge": true, "m7i-flex.large": true, "p4d.24xlarge": true, "trn1.2xlarge": true,
	"u7i-12tb.224xlarge": true,
}

// ebsSpec is EbsInfo.EbsOptimizedInfo: bandwidth in Mbps, throughput in MB/s.
type ebsSpec struct {
	baselineMbps, baselineIOPS int32
	baselineMBps               float64
	maximumMbps, maximumIOPS   int32
	maximumMBps                float64
}

// ebsOptimized holds the EBS-optimized figures of every EBS-optimized type,
// as AWS's DescribeInstanceTypes reports them (the values of moto 5.2.1's
// catalogue, which is AWS's output). Karpenter's
// karpenter.k8s.aws/instance-ebs-bandwidth label is maximumMbps. Throughput is
// not always bandwidth/8 (m7i-flex.large: 312 Mbps, 39.0625 MB/s), so all six
// are listed. m1.small (legacy) is not EBS-optimized and has none.
var ebsOptimized = map[string]ebsSpec{
	"m5.large":           {650, 3600, 81.25, 4750, 18750, 593.75},
	"m5.xlarge":          {1150, 6000, 143.75, 4750, 18750, 593.75},
	"m5.metal":           {19000, 80000, 2375, 19000, 80000, 2375},
	"c5.large":           {650, 4000, 81.25, 4750, 20000, 593.75},
	"t3.micro":           {87, 500, 10.875, 2085, 11800, 260.625},
	"m7i-flex.large":     {312, 2500, 39.0625, 10000, 40000, 1250},
	"u7i-12tb.224xlarge": {100000, 560000, 12500, 100000, 560000, 12500},
	"m6g.large":          {630, 3600, 78.75, 4750, 20000, 593.75},
	"m6g.xlarge":         {1188, 6000, 148.5, 4750, 20000, 593.75},
	"c6g.metal":          {19000, 80000, 2375, 19000, 80000, 2375},
	"c7g.large":          {630, 3600, 78.75, 10000, 40000, 1250},
	"t4g.medium":         {347, 2000, 43.375, 2085, 11800, 260.625},
	"r6g.large":          {630, 3600, 78.75, 4750, 20000, 593.75},
	"x2gd.large":         {630, 3600, 78.75, 4750, 20000, 593.75},
	"a1.large":           {525, 4000, 65.625, 3500, 20000, 437.5},
	"g5.xlarge":          {700, 3000, 87.5, 3500, 15000, 437.5},
	"g5g.xlarge":         {1188, 6000, 148.5, 4750, 20000, 593.75},
	"g4dn.xlarge":        {950, 3000, 118.75, 3500, 20000, 437.5},
	"g4ad.xlarge":        {400, 1700, 50, 3170, 13333, 396.25},
	"p4d.24xlarge":       {19000, 80000, 2375, 19000, 80000, 2375},
	"inf1.xlarge":        {1190, 4000, 148.75, 4750, 20000, 593.75},
	"inf2.xlarge":        {1250, 6000, 156.25, 10000, 40000, 1250},
	"trn1.2xlarge":       {5000, 16250, 625, 20000, 65000, 2500},
	"mac1.metal":         {14000, 80000, 1750, 14000, 80000, 1750},
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
	if !s.legacy {
		e, ok := ebsOptimized[s.name]
		if !ok {
			panic("instance type " + s.name + " has no ebsOptimized entry")
		}
		it.EbsInfo.EbsOptimizedInfo = &ec2types.EbsOptimizedInfo{
			BaselineBandwidthInMbps:  ptr(e.baselineMbps),
			BaselineIops:             ptr(e.baselineIOPS),
			BaselineThroughputInMBps: ptr(e.baselineMBps),
			MaximumBandwidthInMbps:   ptr(e.maximumMbps),
			MaximumIops:              ptr(e.maximumIOPS),
			MaximumThroughputInMBps:  ptr(e.maximumMBps),
		}
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
