// Package requirements holds Karpenter's node-selector requirement algebra
// (In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte and minValues), the
// well-known labels it reasons about, and the validation the NodePool CRD and
// Karpenter's runtime apply to requirements, per Karpenter version.
//
// The semantics follow sigs.k8s.io/karpenter/pkg/scheduling (v1.14.1). That
// package is not imported: it pulls k8s.io/client-go and controller-runtime
// into the provider binary (see the package tests for the matrices that pin
// the behaviour to upstream's).
package requirements

import (
	"maps"
	"slices"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// Core well-known labels (kubernetes-sigs/karpenter pkg/apis/v1/labels.go).
const (
	LabelInstanceType = "node.kubernetes.io/instance-type"
	LabelArch         = "kubernetes.io/arch"
	LabelOS           = "kubernetes.io/os"
	LabelZone         = "topology.kubernetes.io/zone"
	LabelRegion       = "topology.kubernetes.io/region"
	LabelWindowsBuild = "node.kubernetes.io/windows-build"
	LabelHostname     = "kubernetes.io/hostname"
	LabelNodePool     = "karpenter.sh/nodepool"
	LabelCapacityType = "karpenter.sh/capacity-type"
)

// AWS well-known labels (aws/karpenter-provider-aws pkg/apis/v1/labels.go).
const (
	LabelInstanceCategory                  = "karpenter.k8s.aws/instance-category"
	LabelInstanceFamily                    = "karpenter.k8s.aws/instance-family"
	LabelInstanceGeneration                = "karpenter.k8s.aws/instance-generation"
	LabelInstanceSize                      = "karpenter.k8s.aws/instance-size"
	LabelInstanceCPU                       = "karpenter.k8s.aws/instance-cpu"
	LabelInstanceCPUManufacturer           = "karpenter.k8s.aws/instance-cpu-manufacturer"
	LabelInstanceCPUSustainedClockSpeedMhz = "karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz"
	LabelInstanceMemory                    = "karpenter.k8s.aws/instance-memory"
	LabelInstanceEBSBandwidth              = "karpenter.k8s.aws/instance-ebs-bandwidth"
	LabelInstanceNetworkBandwidth          = "karpenter.k8s.aws/instance-network-bandwidth"
	LabelInstanceGPUName                   = "karpenter.k8s.aws/instance-gpu-name"
	LabelInstanceGPUManufacturer           = "karpenter.k8s.aws/instance-gpu-manufacturer"
	LabelInstanceGPUCount                  = "karpenter.k8s.aws/instance-gpu-count"
	LabelInstanceGPUMemory                 = "karpenter.k8s.aws/instance-gpu-memory"
	LabelInstanceAcceleratorName           = "karpenter.k8s.aws/instance-accelerator-name"
	LabelInstanceAcceleratorManufacturer   = "karpenter.k8s.aws/instance-accelerator-manufacturer"
	LabelInstanceAcceleratorCount          = "karpenter.k8s.aws/instance-accelerator-count"
	LabelInstanceHypervisor                = "karpenter.k8s.aws/instance-hypervisor"
	LabelInstanceEncryptionInTransit       = "karpenter.k8s.aws/instance-encryption-in-transit-supported"
	LabelInstanceLocalNVME                 = "karpenter.k8s.aws/instance-local-nvme"
	LabelInstanceCapabilityFlex            = "karpenter.k8s.aws/instance-capability-flex"
	LabelInstanceTenancy                   = "karpenter.k8s.aws/instance-tenancy"
	LabelCapacityReservationID             = "karpenter.k8s.aws/capacity-reservation-id"
	LabelCapacityReservationType           = "karpenter.k8s.aws/capacity-reservation-type"
	LabelCapacityReservationInterruptible  = "karpenter.k8s.aws/capacity-reservation-interruptible"
	LabelPlacementGroupID                  = "karpenter.k8s.aws/placement-group-id"
	LabelPlacementGroupPartition           = "karpenter.k8s.aws/placement-group-partition"
	LabelZoneID                            = "topology.k8s.aws/zone-id"
	// LabelNodeClass passes the CRD allow-list but is not well known, so
	// Karpenter's runtime validation rejects it in requirements.
	LabelNodeClass = "karpenter.k8s.aws/ec2nodeclass"
)

// labelInfo is what the validator and the matcher need to know about a
// well-known label.
type labelInfo struct {
	// numeric: the values are integers, so Gt/Lt/Gte/Lte can match.
	numeric bool
	// sinceMinor is the first Karpenter 1.x minor whose CRD allow-list has
	// the label; 0 when it has been there since 1.0 or when the release
	// that added it is not pinned down (we never fail on a guess).
	sinceMinor int
}

// wellKnown is Karpenter's WellKnownLabels after the AWS provider's init():
// the keys a NodePool may constrain and that an instance type may leave
// undefined under AllowUndefinedWellKnownLabels.
var wellKnown = map[string]labelInfo{
	LabelNodePool:     {},
	LabelZone:         {},
	LabelRegion:       {},
	LabelInstanceType: {},
	LabelArch:         {},
	LabelOS:           {},
	LabelCapacityType: {},
	LabelWindowsBuild: {},

	// Capacity reservations (ODCRs) arrived in v1.3.0, capacity blocks
	// (the -type label) in v1.6.0, interruptible reservations in v1.10.0
	// (karpenter.sh docs, "Utilizing On-Demand Capacity Reservations").
	LabelCapacityReservationID:             {sinceMinor: 3},
	LabelCapacityReservationType:           {sinceMinor: 6},
	LabelCapacityReservationInterruptible:  {sinceMinor: 10},
	LabelInstanceHypervisor:                {},
	LabelInstanceEncryptionInTransit:       {},
	LabelInstanceCategory:                  {},
	LabelInstanceCapabilityFlex:            {},
	LabelInstanceFamily:                    {},
	LabelInstanceGeneration:                {numeric: true},
	LabelInstanceSize:                      {},
	LabelInstanceLocalNVME:                 {numeric: true},
	LabelInstanceCPU:                       {numeric: true},
	LabelInstanceCPUManufacturer:           {},
	LabelInstanceCPUSustainedClockSpeedMhz: {numeric: true},
	LabelInstanceMemory:                    {numeric: true},
	LabelInstanceEBSBandwidth:              {numeric: true},
	LabelInstanceNetworkBandwidth:          {numeric: true},
	LabelInstanceGPUName:                   {},
	LabelInstanceGPUManufacturer:           {},
	LabelInstanceGPUCount:                  {numeric: true},
	LabelInstanceGPUMemory:                 {numeric: true},
	LabelInstanceAcceleratorName:           {},
	LabelInstanceAcceleratorManufacturer:   {},
	LabelInstanceAcceleratorCount:          {numeric: true},
	LabelZoneID:                            {},
	LabelInstanceTenancy:                   {},
	// Placement groups arrived in v1.11.0 (aws/karpenter-provider-aws pkg/apis/v1/labels.go).
	LabelPlacementGroupID:        {sinceMinor: 11},
	LabelPlacementGroupPartition: {numeric: true, sinceMinor: 11},
}

// IsWellKnown reports whether Karpenter (with the AWS provider) knows the
// label: it may appear in requirements and instance types may leave it
// undefined under the lenient compatibility check.
func IsWellKnown(key string) bool {
	_, ok := wellKnown[key]
	return ok
}

// IsNumeric reports whether a well-known label's values are integers. Gt,
// Lt, Gte and Lte on any other well-known label match no instance type.
func IsNumeric(key string) bool { return wellKnown[key].numeric }

// WellKnownLabels returns the well-known label keys, sorted.
func WellKnownLabels() []string { return slices.Sorted(maps.Keys(wellKnown)) }

// normalized maps deprecated aliases to the keys Karpenter uses
// (NormalizedLabels): requirements on either spelling are the same
// requirement.
var normalized = map[string]string{
	"failure-domain.beta.kubernetes.io/zone":   LabelZone,
	"failure-domain.beta.kubernetes.io/region": LabelRegion,
	"beta.kubernetes.io/arch":                  LabelArch,
	"beta.kubernetes.io/os":                    LabelOS,
	"beta.kubernetes.io/instance-type":         LabelInstanceType,
}

// Normalize returns the key Karpenter uses for key.
func Normalize(key string) string {
	if n, ok := normalized[key]; ok {
		return n
	}
	return key
}

// knownValues are WellKnownValuesForRequirements: with In, at least one value
// must come from the set (and at least minValues of them).
var knownValues = map[string][]string{
	LabelCapacityType:    {"on-demand", "reserved", "spot"},
	LabelInstanceTenancy: {"dedicated", "default"},
}

// valueSince is the first Karpenter 1.x minor that knows a value of
// knownValues: "reserved" capacity came with capacity reservations, v1.3.0.
var valueSince = map[string]map[string]int{
	LabelCapacityType: {"reserved": 3},
}

// KnownValues returns the only values Karpenter kv accepts for key, sorted,
// or nil when any value is accepted.
func KnownValues(key string, kv versions.Karpenter) []string {
	var out []string
	for _, v := range knownValues[key] {
		if since, gated := valueSince[key][v]; !gated || kv.AtLeast(since, 0) {
			out = append(out, v)
		}
	}
	return out
}
