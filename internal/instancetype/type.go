package instancetype

import (
	"fmt"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/requirements"
)

// Type is one instance type with the well-known label values Karpenter gives
// it. Live types know every value; embedded (offline) types know the
// family-level ones, and their per-type numbers are zero.
type Type struct {
	Name, Family, Size string
	Architecture       string
	VCPU               int64
	MemoryMiB          int64
	// GPU labels exist only when EC2 reports exactly one kind of GPU
	// (Karpenter's rule); GPUCount can be 0 for fractional GPUs (g6f).
	GPUCount        int64
	GPUManufacturer string
	GPUName         string
	GPUMemoryMiB    int64
	// Accelerator labels come from NeuronInfo (manufacturer "aws") or a
	// single InferenceAcceleratorInfo entry.
	AcceleratorCount        int64
	AcceleratorManufacturer string
	AcceleratorName         string
	// Hypervisor is "nitro" or "xen", "" for bare metal (as EC2 reports it).
	Hypervisor string
	BareMetal  bool
	// Exact is true for live types: every label below is known.
	Exact bool
	// Network holds the pod-density facts; nil offline, or when EC2
	// reported none.
	Network *Network
	// Resources holds the other facts a node's capacity is computed from;
	// nil offline.
	Resources *Resources

	labels requirements.Requirements
}

// Requirements returns the type's labels as Karpenter's instance-type
// requirements: a well-known label the type does not define is
// DoesNotExist; offline, a label whose value is only known per type is
// Exists (defined, value unknown) or absent (may or may not be defined).
func (t Type) Requirements() requirements.Requirements { return t.labels }

// Undecided label keys: offline, these depend on per-type facts the
// embedded table does not hold; any requirement on them "may match".
var offlineUndecided = set(
	requirements.LabelCapacityType,
	requirements.LabelInstanceCPU, requirements.LabelInstanceMemory,
	requirements.LabelInstanceCPUManufacturer, requirements.LabelInstanceCPUSustainedClockSpeedMhz,
	requirements.LabelInstanceEncryptionInTransit, requirements.LabelInstanceEBSBandwidth,
	requirements.LabelInstanceLocalNVME, requirements.LabelInstanceHypervisor,
	requirements.LabelInstanceGPUCount, requirements.LabelInstanceGPUName, requirements.LabelInstanceGPUMemory,
	requirements.LabelInstanceAcceleratorCount, requirements.LabelInstanceAcceleratorName,
)

// notEvaluated are labels whose values depend on offerings or the
// EC2NodeClass rather than the instance type, so neither source evaluates
// them: zones and region (subnets), Windows build (AMI family),
// reservations and placement groups. Capacity type is evaluated live only
// (see FromEC2). Network bandwidth is evaluated from Karpenter's table
// (tables.go), by name, in both sources.
var notEvaluated = set(
	requirements.LabelZone, requirements.LabelRegion, requirements.LabelZoneID,
	requirements.LabelWindowsBuild,
	requirements.LabelCapacityReservationID, requirements.LabelCapacityReservationType,
	requirements.LabelCapacityReservationInterruptible,
	requirements.LabelPlacementGroupID, requirements.LabelPlacementGroupPartition,
)

// embeddedType builds an offline type from its family's facts.
func embeddedType(f Family, size string) Type {
	t := Type{
		Name: f.Name + "." + size, Family: f.Name, Size: size,
		Architecture:            f.Architecture,
		GPUManufacturer:         f.GPUManufacturer,
		AcceleratorManufacturer: f.AcceleratorManufacturer,
		BareMetal:               isMetal(size),
	}
	n := requirements.New
	r := commonLabels(t.Name, f.Name, size, f.Architecture)
	r.Add(n(requirements.LabelInstanceTenancy, requirements.In, "default", "dedicated"))
	exists := func(keys ...string) {
		for _, k := range keys {
			r.Add(n(k, requirements.Exists))
		}
	}
	exists(requirements.LabelInstanceCPU, requirements.LabelInstanceMemory,
		requirements.LabelInstanceCPUManufacturer, requirements.LabelInstanceCPUSustainedClockSpeedMhz,
		requirements.LabelInstanceEncryptionInTransit)
	if f.HasGPU() {
		r.Add(n(requirements.LabelInstanceGPUManufacturer, requirements.In, f.GPUManufacturer))
		exists(requirements.LabelInstanceGPUCount, requirements.LabelInstanceGPUName, requirements.LabelInstanceGPUMemory)
	} else {
		doesNotExist(r, requirements.LabelInstanceGPUManufacturer, requirements.LabelInstanceGPUCount,
			requirements.LabelInstanceGPUName, requirements.LabelInstanceGPUMemory)
	}
	if f.HasAcceleratorLabels() {
		r.Add(n(requirements.LabelInstanceAcceleratorManufacturer, requirements.In, f.AcceleratorManufacturer))
		exists(requirements.LabelInstanceAcceleratorCount, requirements.LabelInstanceAcceleratorName)
	} else {
		doesNotExist(r, requirements.LabelInstanceAcceleratorManufacturer, requirements.LabelInstanceAcceleratorCount,
			requirements.LabelInstanceAcceleratorName)
	}
	// Bare metal has no hypervisor (EC2 reports none; Karpenter's label value
	// is ""); other sizes have nitro or xen, which offline we cannot tell.
	if t.BareMetal {
		r.Add(n(requirements.LabelInstanceHypervisor, requirements.In, ""))
	} else {
		r.Add(n(requirements.LabelInstanceHypervisor, requirements.NotIn, ""))
	}
	networkBandwidth(r, t.Name)
	t.labels = r
	return t
}

// networkBandwidth adds the instance-network-bandwidth label from
// Karpenter's table; a type the table lacks does not have the label.
func networkBandwidth(r requirements.Requirements, name string) {
	if bw, ok := NetworkBandwidthMbps(name); ok {
		r.Add(requirements.New(requirements.LabelInstanceNetworkBandwidth, requirements.In, fmt.Sprint(bw)))
	} else {
		doesNotExist(r, requirements.LabelInstanceNetworkBandwidth)
	}
}

// commonLabels are the labels both sources derive from names alone.
func commonLabels(name, family, size, arch string) requirements.Requirements {
	n := requirements.New
	r := requirements.NewRequirements(
		n(requirements.LabelInstanceType, requirements.In, name),
		n(requirements.LabelArch, requirements.In, arch),
		n(requirements.LabelInstanceFamily, requirements.In, family),
		n(requirements.LabelInstanceSize, requirements.In, size),
		n(requirements.LabelInstanceCapabilityFlex, requirements.In, boolString(strings.Contains(family, "-flex"))),
	)
	// Karpenter's getOS: linux, or windows for an amd64 type under a Windows
	// AMI family. Without the EC2NodeClass both are possible; add the class's
	// kubernetes.io/os requirement to narrow it.
	if arch == AMD64 {
		r.Add(n(requirements.LabelOS, requirements.In, "linux", "windows"))
	} else {
		r.Add(n(requirements.LabelOS, requirements.In, "linux"))
	}
	if m := typeRE.FindStringSubmatch(name); m != nil {
		r.Add(n(requirements.LabelInstanceCategory, requirements.In, m[1]),
			n(requirements.LabelInstanceGeneration, requirements.In, m[3]))
	} else {
		doesNotExist(r, requirements.LabelInstanceCategory, requirements.LabelInstanceGeneration)
	}
	return r
}

func doesNotExist(r requirements.Requirements, keys ...string) {
	for _, k := range keys {
		r.Add(requirements.New(k, requirements.DoesNotExist))
	}
}

func isMetal(size string) bool { return strings.HasPrefix(size, "metal") }

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
