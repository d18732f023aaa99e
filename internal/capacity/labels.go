package capacity

import (
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/requirements"
)

// Offering is where and how a node runs.
type Offering struct {
	// Region, and Zone with its ZoneID; "" when not known (the labels are
	// then left out).
	Region, Zone, ZoneID string
	// CapacityType is "on-demand", "spot" or "reserved".
	CapacityType string
}

// Requirements are the instance type's requirements as Karpenter's
// computeRequirements gives them for a class of family f: the OS and
// Windows build the family gives the type, the offering's region, and its
// zone when known.
func Requirements(t instancetype.Type, f amifamily.Family, o Offering) requirements.Requirements {
	m := f.Model()
	p := instancetype.Placement{WindowsBuild: m.WindowsBuild(), Region: o.Region, Reserved: o.CapacityType == "reserved"}
	if m.SupportsArch(t.Architecture) {
		p.OS = []string{m.OS()}
	}
	if o.Zone != "" {
		p.Zones = []instancetype.Zone{{Name: o.Zone, ID: o.ZoneID}}
	}
	return t.Placed(p)
}

// InstanceLabels are the labels Karpenter's cloud provider gives the
// NodeClaim of a node of type t on family f in offering o
// (pkg/cloudprovider/cloudprovider.go instanceToNodeClaim): every
// requirement of the type with exactly one value, except the capacity
// reservation ones, then the zone and zone ID, the capacity type and the
// tenancy of the instance ("default"). Keys whose value is not known (the
// zone without o.Zone) are left out.
func InstanceLabels(t instancetype.Type, f amifamily.Family, o Offering) map[string]string {
	out := map[string]string{}
	reqs := Requirements(t, f, o)
	for _, key := range reqs.Keys() {
		r := reqs[key]
		if r.Operator() != requirements.In || r.Len() != 1 || reservationLabels[key] {
			continue
		}
		out[key] = r.Values()[0]
	}
	if o.Zone != "" {
		out[requirements.LabelZone] = o.Zone
	}
	if o.ZoneID != "" {
		out[requirements.LabelZoneID] = o.ZoneID
	}
	if o.CapacityType != "" {
		out[requirements.LabelCapacityType] = o.CapacityType
	}
	out[requirements.LabelInstanceTenancy] = "default"
	return out
}

// reservationLabels are set from the reservation an instance launched
// into, never from the type.
var reservationLabels = map[string]bool{
	requirements.LabelCapacityReservationID:            true,
	requirements.LabelCapacityReservationType:          true,
	requirements.LabelCapacityReservationInterruptible: true,
}

// Karpenter's registration labels: the node joined, and its startup
// taints and initialization are done.
const (
	LabelRegistered  = "karpenter.sh/registered"
	LabelInitialized = "karpenter.sh/initialized"
)

// NodeLabels are the labels of the initialized node: the cloud provider's
// (InstanceLabels) overridden by the node's own (the NodeClaim's: the
// pool's template labels, karpenter.sh/nodepool, the node class label and
// the custom labels resolved from requirements, PopulateNodeClaimDetails;
// and those the kubelet registers with from the userData), plus the
// registration labels.
func NodeLabels(instance, claim map[string]string) map[string]string {
	out := make(map[string]string, len(instance)+len(claim)+2)
	for k, v := range instance {
		out[k] = v
	}
	for k, v := range claim {
		out[k] = v
	}
	out[LabelRegistered] = "true"
	out[LabelInitialized] = "true"
	return out
}
