package instancetype

import (
	"maps"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/requirements"
)

// Placement is what Karpenter's computeRequirements reads besides the
// DescribeInstanceTypes record (aws/karpenter-provider-aws v1.14.1
// pkg/providers/instancetype/types.go): what the EC2NodeClass's AMI family
// makes of the type, and where it can launch.
type Placement struct {
	// OS is the kubernetes.io/os the family gives the type (getOS); empty
	// when it gives none (arm64 under Windows).
	OS []string
	// WindowsBuild is node.kubernetes.io/windows-build ("" off Windows).
	WindowsBuild string
	// Region is topology.kubernetes.io/region; "" leaves it unconstrained.
	Region string
	// Zones are the zones the type can launch in (its offerings' zones
	// that the class has subnets in); nil leaves zone and zone ID
	// unconstrained.
	Zones []Zone
	// Reserved is set when the class selects a capacity reservation for
	// the type: only then is "reserved" a capacity type.
	Reserved bool
}

// Zone is an availability zone and its zone ID ("use1-az1"; "" when not
// known).
type Zone struct{ Name, ID string }

// Placed returns the type's requirements as Karpenter computes them for a
// placement: the type's own (Requirements) narrowed by the OS, Windows
// build, region, zones and the capacity types the placement allows.
func (t Type) Placed(p Placement) requirements.Requirements {
	r := maps.Clone(t.labels)
	n := requirements.New
	r.Add(n(requirements.LabelOS, requirements.In, p.OS...))
	if p.WindowsBuild != "" {
		r.Add(n(requirements.LabelWindowsBuild, requirements.In, p.WindowsBuild))
	} else {
		doesNotExist(r, requirements.LabelWindowsBuild)
	}
	if p.Region != "" {
		r.Add(n(requirements.LabelRegion, requirements.In, p.Region))
	}
	if p.Zones != nil {
		var names, ids []string
		for _, z := range p.Zones {
			names = append(names, z.Name)
			if z.ID != "" {
				ids = append(ids, z.ID)
			}
		}
		r.Add(n(requirements.LabelZone, requirements.In, names...))
		if len(ids) > 0 {
			r.Add(n(requirements.LabelZoneID, requirements.In, ids...))
		}
	}
	if !p.Reserved {
		r.Add(n(requirements.LabelCapacityType, requirements.NotIn, "reserved"))
		doesNotExist(r, requirements.LabelCapacityReservationID, requirements.LabelCapacityReservationType,
			requirements.LabelCapacityReservationInterruptible)
	}
	return r
}
