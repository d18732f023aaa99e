// Package capacity is the node Karpenter would launch for an instance type on
// an EC2NodeClass, as far as resources go: capacity, the overhead Karpenter
// subtracts (VM memory, kube-reserved, system-reserved, the hard eviction
// threshold), allocatable and the pod capacity, computed exactly as
// aws/karpenter-provider-aws v1.14.1 pkg/providers/instancetype/types.go
// NewInstanceType does, and the labels such a node carries (labels.go).
//
// The facts come from package instancetype (DescribeInstanceTypes, plus
// Karpenter's generated VPC-limits and bandwidth tables) and the family
// facts from package amifamily. internal/differential holds the answers
// equal to Karpenter's own code on every type of the reference catalogue.
//
// What it does not model: once a node of a type has run, Karpenter replaces
// the computed memory capacity by the memory the node reported
// (instancetype.go discoveredCapacityCache), and NodeOverlays change
// capacity and price; both are facts of a live cluster.
package capacity

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
)

// Extended resources NewInstanceType puts into a type's capacity
// (pkg/apis/v1/labels.go).
const (
	ResourceNVIDIAGPU          corev1.ResourceName = "nvidia.com/gpu"
	ResourceAMDGPU             corev1.ResourceName = "amd.com/gpu"
	ResourceAWSNeuron          corev1.ResourceName = "aws.amazon.com/neuron"
	ResourceAWSNeuronCore      corev1.ResourceName = "aws.amazon.com/neuroncore"
	ResourceHabanaGaudi        corev1.ResourceName = "habana.ai/gaudi"
	ResourceAWSPodENI          corev1.ResourceName = "vpc.amazonaws.com/pod-eni"
	ResourcePrivateIPv4Address corev1.ResourceName = "vpc.amazonaws.com/PrivateIPv4Address"
	ResourceEFA                corev1.ResourceName = "vpc.amazonaws.com/efa"
)

// Eviction signals that lower allocatable.
const (
	SignalMemoryAvailable = "memory.available"
	SignalNodeFSAvailable = "nodefs.available"
)

// Settings are the Karpenter controller settings (Helm values of the
// controller, one per cluster) that change a node's capacity.
type Settings struct {
	// VMMemoryOverheadPercent is VM_MEMORY_OVERHEAD_PERCENT: the share of
	// the type's memory taken off for the hypervisor.
	VMMemoryOverheadPercent float64
	// ReservedENIs is RESERVED_ENIS: ENIs the VPC CNI may not use for pods
	// (custom networking), taken off the ENI-limited pod count.
	ReservedENIs int
}

// DefaultSettings are Karpenter's defaults.
func DefaultSettings() Settings { return Settings{VMMemoryOverheadPercent: 0.075} }

// Validate reports a setting Karpenter refuses (a negative value) or that
// would leave nodes without memory (an overhead of 100 % or more), each
// named by Karpenter's flag.
func (s Settings) Validate() error {
	named := func(flag string, err error) error {
		if err == nil {
			return nil
		}
		return fmt.Errorf("%s %w", flag, err)
	}
	return errors.Join(named("vm-memory-overhead-percent", ValidateVMMemoryOverheadPercent(s.VMMemoryOverheadPercent)),
		named("reserved-enis", ValidateReservedENIs(s.ReservedENIs)))
}

// ValidateVMMemoryOverheadPercent: a fraction in [0, 1). The error starts
// with the value; the caller names the setting in its user's terms.
func ValidateVMMemoryOverheadPercent(p float64) error {
	if p >= 0 && p < 1 {
		return nil
	}
	return fmt.Errorf("%v is outside [0, 1): Karpenter's vm-memory-overhead-percent is the fraction of each instance type's memory it takes off for the hypervisor (VM_MEMORY_OVERHEAD_PERCENT, default 0.075 = 7.5 %%). Karpenter refuses a negative value (\"vm-memory-overhead-percent cannot be negative\"), and 1 or more leaves every node with no memory, so no pod would schedule. Write the controller's value, e.g. 0.075", p)
}

// ValidateReservedENIs: not negative; the error starts with the value, as
// ValidateVMMemoryOverheadPercent's.
func ValidateReservedENIs(n int) error {
	if n >= 0 {
		return nil
	}
	return fmt.Errorf("%d is negative: Karpenter refuses it (\"reserved-enis cannot be negative\"). Write 0 (the default), or the number of ENIs VPC CNI custom networking keeps from pods (RESERVED_ENIS, usually 1)", n)
}

// Class is what NewInstanceType reads from an EC2NodeClass.
type Class struct {
	// Family is the class's resolved amiFamily.
	Family amifamily.Family
	// Kubelet is spec.kubelet (nil when unset).
	Kubelet *manifest.Kubelet
	// BlockDeviceMappings is spec.blockDeviceMappings.
	BlockDeviceMappings []manifest.BlockDeviceMapping
	// InstanceStorePolicy is spec.instanceStorePolicy ("" or "RAID0").
	InstanceStorePolicy string
	// NetworkInterfaces is spec.networkInterfaces; nil when unset (then
	// the type's own EFA count is its vpc.amazonaws.com/efa capacity).
	NetworkInterfaces []manifest.NetworkInterface
}

// ClassOf is the Class of an EC2NodeClass spec whose family is f.
func ClassOf(f amifamily.Family, spec manifest.EC2NodeClassSpec) Class {
	return Class{Family: f, Kubelet: spec.Kubelet, BlockDeviceMappings: spec.BlockDeviceMappings,
		InstanceStorePolicy: spec.InstanceStorePolicy, NetworkInterfaces: spec.NetworkInterfaces}
}

// Overhead is what Karpenter subtracts from capacity (cloudprovider
// InstanceTypeOverhead).
type Overhead struct {
	KubeReserved, SystemReserved, EvictionThreshold corev1.ResourceList
}

// Total is the three summed per resource, in Karpenter's order.
func (o Overhead) Total() corev1.ResourceList {
	out := corev1.ResourceList{}
	for _, l := range []corev1.ResourceList{o.KubeReserved, o.SystemReserved, o.EvictionThreshold} {
		for name, q := range l {
			sum := out[name]
			sum.Add(q)
			out[name] = sum
		}
	}
	return out
}

// Node is the resource model of one instance type on one class.
type Node struct {
	// Capacity is every resource NewInstanceType lists, zeros included.
	Capacity corev1.ResourceList
	// Allocatable is capacity less the overhead, for the resources in
	// capacity (cloudprovider InstanceType.Allocatable).
	Allocatable corev1.ResourceList
	// VMMemoryOverhead is the memory taken off capacity for the VM
	// (already out of Capacity; not part of Overhead).
	VMMemoryOverhead resource.Quantity
	Overhead         Overhead
	// MaxPods is the pod capacity, what Karpenter writes as the kubelet's
	// maxPods when the class sets none.
	MaxPods int64
}

// FactsError means the type lacks a fact the answer needs (an offline
// catalogue has no per-type figures).
type FactsError struct {
	Type    string
	Missing []string
}

func (e *FactsError) Error() string {
	return fmt.Sprintf("instance type %s: the capacity needs %s from ec2:DescribeInstanceTypes, which the instance-type facts in use do not have", e.Type, strings.Join(e.Missing, ", "))
}

// Compute is NewInstanceType's capacity, overhead and allocatable for type
// t on class c under controller settings s. It fails with a *FactsError
// when t lacks facts (offline catalogue), and with a plain error for class
// values Karpenter could not parse (it would panic on them).
func Compute(t instancetype.Type, c Class, s Settings) (Node, error) {
	if !c.Family.Known() {
		return Node{}, fmt.Errorf("amiFamily %q is not a family Karpenter knows", c.Family)
	}
	if err := s.Validate(); err != nil {
		return Node{}, err
	}
	if missing := missingFacts(t, c); len(missing) > 0 {
		return Node{}, &FactsError{Type: t.Name, Missing: missing}
	}
	m := c.Family.Model()
	k := c.Kubelet
	if k == nil {
		k = &manifest.Kubelet{}
	}
	efaOnly := efaOnlyOnCardZero(c.NetworkInterfaces)
	pods, _ := t.Pods(instancetype.PodsOptions{MaxPods: k.MaxPods, PodsPerCore: k.PodsPerCore,
		ENILimited: m.ENILimitedPods(), PodsPerCoreEnabled: m.PodsPerCore(), ReservedENIs: s.ReservedENIs, EFAOnly: efaOnly})
	storage, err := ephemeralStorage(t, c)
	if err != nil {
		return Node{}, err
	}
	cpu := resource.MustParse(strconv.FormatInt(t.VCPU, 10))
	memory, vmOverhead := memoryCapacity(t, s)

	n := Node{MaxPods: pods, VMMemoryOverhead: vmOverhead}
	n.Capacity = corev1.ResourceList{
		corev1.ResourceCPU:              cpu,
		corev1.ResourceMemory:           memory,
		corev1.ResourceEphemeralStorage: storage,
		corev1.ResourcePods:             count(pods),
		ResourceAWSPodENI:               count(branchENIs(t)),
		ResourceNVIDIAGPU:               count(gpus(t, "NVIDIA")),
		ResourceAMDGPU:                  count(gpus(t, "AMD")),
		ResourceAWSNeuron:               count(neuronDevices(t)),
		ResourceAWSNeuronCore:           count(neuronCores(t)),
		ResourceHabanaGaudi:             count(gpus(t, "Habana")),
		ResourceEFA:                     count(efas(t, c.NetworkInterfaces)),
	}
	// Windows nodes advertise the secondary IPv4 addresses the VPC resource
	// controller hands to pods (only where getOS gives the type an OS).
	if m.OS() == "windows" && m.SupportsArch(t.Architecture) {
		n.Capacity[ResourcePrivateIPv4Address] = count(privateIPv4(t))
	}

	// kube-reserved memory is sized for the ENI-limited pod count, without
	// reserved ENIs, where the family says so, else for the pod capacity.
	reservedFor := pods
	if m.ENILimitedMemoryOverhead() {
		reservedFor, _ = t.ENILimitedPods(0, efaOnly)
	}
	if n.Overhead.KubeReserved, err = kubeReserved(cpu, reservedFor, k.KubeReserved); err != nil {
		return Node{}, err
	}
	if n.Overhead.SystemReserved, err = parseList("system_reserved", k.SystemReserved); err != nil {
		return Node{}, err
	}
	if n.Overhead.EvictionThreshold, err = evictionThreshold(memory, storage, k.EvictionHard); err != nil {
		return Node{}, err
	}
	n.Allocatable = subtract(n.Capacity, n.Overhead.Total())
	return n, nil
}

// missingFacts names the facts Compute would need that t does not have.
func missingFacts(t instancetype.Type, c Class) []string {
	var out []string
	if !t.Exact || t.VCPU == 0 {
		out = append(out, "vCPUs")
	}
	if !t.Exact || t.MemoryMiB == 0 {
		out = append(out, "memory")
	}
	m := c.Family.Model()
	maxPodsSet := c.Kubelet != nil && c.Kubelet.MaxPods != nil
	if t.Network == nil && (m.ENILimitedMemoryOverhead() || (m.ENILimitedPods() && !maxPodsSet)) {
		out = append(out, "network interfaces and IPv4 addresses per interface")
	}
	if t.Resources == nil {
		out = append(out, "architectures, GPUs, Neuron devices, EFA and instance storage")
	}
	return out
}

// memoryCapacity is the type's memory less Graviton's 64 MiB of CMA and
// less the VM overhead, which is returned too: the overhead is the percent
// of what is left, rounded up to a whole MiB.
func memoryCapacity(t instancetype.Type, s Settings) (resource.Quantity, resource.Quantity) {
	mib := t.MemoryMiB
	if t.Resources.FirstArchitecture == "arm64" {
		mib -= 64
	}
	mem := resource.MustParse(fmt.Sprintf("%dMi", mib))
	overhead := resource.MustParse(fmt.Sprintf("%dMi", int64(math.Ceil(float64(mem.Value())*s.VMMemoryOverheadPercent/1024/1024))))
	mem.Sub(overhead)
	return mem, overhead
}

// ephemeralStorage: with RAID0, the instance stores' total (decimal GB);
// else the root volume's size, else (Custom) the last mapping's, else the
// mapping of the family's ephemeral device; else the family's default
// mapping of that device; else Karpenter's default volume.
func ephemeralStorage(t instancetype.Type, c Class) (resource.Quantity, error) {
	if c.InstanceStorePolicy == "RAID0" && t.Resources.InstanceStorageGB != nil {
		return resource.MustParse(fmt.Sprintf("%dG", *t.Resources.InstanceStorageGB)), nil
	}
	m := c.Family.Model()
	device := m.EphemeralBlockDevice()
	if bdms := c.BlockDeviceMappings; len(bdms) > 0 {
		for i, b := range bdms {
			if b.RootVolume {
				if q, ok, err := volumeSize(i, b); ok || err != nil {
					return q, err
				}
				break // Karpenter looks at the first root volume only
			}
		}
		if device == "" {
			// The image's layout is unknown: Karpenter takes the last
			// mapping's size, or its default volume.
			last := len(bdms) - 1
			if q, ok, err := volumeSize(last, bdms[last]); ok || err != nil {
				return q, err
			}
			return gib(amifamily.DefaultVolumeGiB), nil
		}
		for i, b := range bdms {
			if b.DeviceName == device {
				if q, ok, err := volumeSize(i, b); ok || err != nil {
					return q, err
				}
				break
			}
		}
	}
	for _, d := range m.DefaultBlockDevices() {
		if d.Device == device {
			return gib(d.GiB), nil
		}
	}
	return gib(amifamily.DefaultVolumeGiB), nil
}

// volumeSize is a mapping's ebs.volumeSize; ok is false when it has none.
func volumeSize(i int, b manifest.BlockDeviceMapping) (resource.Quantity, bool, error) {
	if b.EBS == nil || b.EBS.VolumeSize == "" {
		return resource.Quantity{}, false, nil
	}
	q, err := resource.ParseQuantity(b.EBS.VolumeSize)
	if err != nil {
		return q, false, fmt.Errorf("blockDeviceMappings[%d].ebs.volumeSize %q is not a Kubernetes quantity (e.g. \"200Gi\"): %v", i, b.EBS.VolumeSize, err)
	}
	return q, true, nil
}

func gib(n int64) resource.Quantity { return resource.MustParse(fmt.Sprintf("%dGi", n)) }

func count(n int64) resource.Quantity { return resource.MustParse(strconv.FormatInt(n, 10)) }

func gpus(t instancetype.Type, manufacturer string) int64 {
	var n int64
	for _, g := range t.Resources.GPUs {
		if g.Manufacturer == manufacturer {
			n += g.Count
		}
	}
	return n
}

func neuronDevices(t instancetype.Type) int64 {
	var n int64
	for _, d := range t.Resources.NeuronDevices {
		n += d.Count
	}
	return n
}

// neuronCores: Karpenter counts the cores of the first kind of device only.
func neuronCores(t instancetype.Type) int64 {
	if len(t.Resources.NeuronDevices) == 0 {
		return 0
	}
	d := t.Resources.NeuronDevices[0]
	return d.Count * d.Cores
}

// efas: the class's efa-only interfaces when it lists interfaces, else the
// type's EFA count.
func efas(t instancetype.Type, nics []manifest.NetworkInterface) int64 {
	if nics == nil {
		return t.Resources.EFAInterfaces
	}
	var n int64
	for _, nic := range nics {
		if nic.InterfaceType == efaOnly {
			n++
		}
	}
	return n
}

const efaOnly = "efa-only"

// efaOnlyOnCardZero counts the efa-only interfaces on network card 0: each
// takes an ENI the VPC CNI cannot use for pods.
func efaOnlyOnCardZero(nics []manifest.NetworkInterface) int {
	n := 0
	for _, nic := range nics {
		if nic.NetworkCardIndex == 0 && nic.InterfaceType == efaOnly {
			n++
		}
	}
	return n
}

func branchENIs(t instancetype.Type) int64 {
	l, _ := instancetype.VPCLimitsOf(t.Name)
	return l.BranchENIs
}

func privateIPv4(t instancetype.Type) int64 {
	if l, ok := instancetype.VPCLimitsOf(t.Name); ok {
		return l.IPv4PerENI - 1
	}
	return 0
}

// kubeReserved: 11 MiB per pod plus 255 MiB of memory, 1 GiB of ephemeral
// storage, and CPU by tiers of the type's millicores (6 % of the first
// core, 1 % of the second, 0.5 % of the next two, 0.25 % above), each
// replaced by the class's kube_reserved value when set.
func kubeReserved(cpus resource.Quantity, pods int64, set map[string]string) (corev1.ResourceList, error) {
	out := corev1.ResourceList{
		corev1.ResourceMemory:           resource.MustParse(fmt.Sprintf("%dMi", 11*pods+255)),
		corev1.ResourceEphemeralStorage: resource.MustParse("1Gi"),
	}
	milli := cpus.MilliValue()
	for _, tier := range cpuTiers {
		if milli < tier.start {
			continue
		}
		span := float64(tier.end - tier.start)
		if milli < tier.end {
			span = float64(milli - tier.start)
		}
		sum := out.Cpu()
		sum.Add(*resource.NewMilliQuantity(int64(span*tier.share), resource.DecimalSI))
		out[corev1.ResourceCPU] = *sum
	}
	own, err := parseList("kube_reserved", set)
	for name, q := range own {
		out[name] = q
	}
	return out, err
}

// cpuTiers are Karpenter's kube-reserved CPU shares, in millicores
// (after Bottlerocket's and the EKS AMI's formula).
var cpuTiers = []struct {
	start, end int64
	share      float64
}{
	{0, 1000, 0.06},
	{1000, 2000, 0.01},
	{2000, 4000, 0.005},
	{4000, 1 << 31, 0.0025},
}

// evictionThreshold: 100 MiB of memory and 10 % of ephemeral storage,
// replaced by eviction_hard's memory.available and nodefs.available (a
// percentage of capacity, rounded up to a byte, or a quantity). Soft
// thresholds do not lower allocatable.
func evictionThreshold(memory, storage resource.Quantity, hard map[string]string) (corev1.ResourceList, error) {
	out := corev1.ResourceList{
		corev1.ResourceMemory:           resource.MustParse("100Mi"),
		corev1.ResourceEphemeralStorage: resource.MustParse(fmt.Sprint(math.Ceil(float64(storage.Value()) / 100 * 10))),
	}
	for signal, name := range map[string]corev1.ResourceName{SignalMemoryAvailable: corev1.ResourceMemory, SignalNodeFSAvailable: corev1.ResourceEphemeralStorage} {
		v, ok := hard[signal]
		if !ok {
			continue
		}
		base := memory
		if name == corev1.ResourceEphemeralStorage {
			base = storage
		}
		q, err := evictionSignal(base, v)
		if err != nil {
			return nil, fmt.Errorf("evictionHard[%q] %q: %w", signal, v, err)
		}
		out[name] = q
	}
	return out, nil
}

// evictionSignal is a threshold as a quantity: a percentage of capacity
// (100 % disables the threshold, as for the kubelet) or a quantity.
func evictionSignal(capacity resource.Quantity, v string) (resource.Quantity, error) {
	if strings.HasSuffix(v, "%") {
		p, err := strconv.ParseFloat(strings.Trim(v, "%"), 64)
		if err != nil {
			return resource.Quantity{}, fmt.Errorf("not a percentage (e.g. \"10%%\")")
		}
		if p == 100 {
			p = 0
		}
		return resource.ParseQuantity(fmt.Sprint(math.Ceil(capacity.AsApproximateFloat64() / 100 * p)))
	}
	q, err := resource.ParseQuantity(v)
	if err != nil {
		return q, fmt.Errorf("not a quantity (e.g. \"500Mi\") or a percentage (e.g. \"10%%\")")
	}
	return q, nil
}

// parseList reads a kubelet map of resource quantities.
func parseList(attr string, m map[string]string) (corev1.ResourceList, error) {
	out := make(corev1.ResourceList, len(m))
	var errs []error
	for k, v := range m {
		q, err := resource.ParseQuantity(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s[%q] = %q is not a Kubernetes quantity (e.g. \"100m\", \"1Gi\")", attr, k, v))
			continue
		}
		out[corev1.ResourceName(k)] = q
	}
	return out, errors.Join(errs...)
}

// subtract is capacity less overhead, for the resources of capacity.
func subtract(capacity, overhead corev1.ResourceList) corev1.ResourceList {
	out := make(corev1.ResourceList, len(capacity))
	for name, q := range capacity {
		v := q.DeepCopy()
		if o, ok := overhead[name]; ok {
			v.Sub(o)
		}
		out[name] = v
	}
	return out
}
