package scheduling

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	corev1 "k8s.io/api/core/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	kscheduling "sigs.k8s.io/karpenter/pkg/scheduling"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/capacity"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodeclass"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/requirements"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// Catalogue is the region's instance types as Karpenter's instance-type
// provider reads them: ec2:DescribeInstanceTypes with Karpenter's filters
// and ec2:DescribeInstanceTypeOfferings (location type availability-zone).
type Catalogue struct {
	Region string
	// Types are the DescribeInstanceTypes records; NewCatalogue sorts them
	// by name, so that types of equal price reach the scheduler in one
	// order (Karpenter builds its list from a Go map).
	Types []ec2types.InstanceTypeInfo
	// Offerings maps each zone to the types offered there.
	Offerings map[string][]string

	facts []instancetype.Type
	// zonesOf is, per type, the zones it is offered in.
	zonesOf map[string][]string
	// zones is every zone any type is offered in (Karpenter's allZones).
	zones []string
	// labels are, per type, its own labels as Karpenter requirements (the
	// class decides OS and capacity type), built once for every class.
	labels     []kscheduling.Requirements
	labelsOnce sync.Once
}

// CatalogueSource answers the reads a Catalogue is made from
// (awsclient.Cache).
type CatalogueSource interface {
	DescribeInstanceTypes(context.Context) ([]ec2types.InstanceTypeInfo, error)
	OfferingsByZone(context.Context) (map[string][]string, error)
}

// ReadCatalogue reads the region's instance types and the zones each is
// offered in, and indexes them.
func ReadCatalogue(ctx context.Context, region string, src CatalogueSource) (*Catalogue, error) {
	infos, err := src.DescribeInstanceTypes(ctx)
	if err != nil {
		return nil, err
	}
	offerings, err := src.OfferingsByZone(ctx)
	if err != nil {
		return nil, err
	}
	return NewCatalogue(region, infos, offerings), nil
}

// NewCatalogue indexes the AWS answers once; every class of a decision
// builds its instance types from it.
func NewCatalogue(region string, infos []ec2types.InstanceTypeInfo, offerings map[string][]string) *Catalogue {
	c := &Catalogue{Region: region, Offerings: offerings, zonesOf: map[string][]string{}}
	for _, info := range infos {
		t, ok := instancetype.FromEC2(info)
		if !ok {
			continue
		}
		c.Types = append(c.Types, info)
		c.facts = append(c.facts, t)
	}
	order := make([]int, len(c.Types))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		return strings.Compare(string(c.Types[a].InstanceType), string(c.Types[b].InstanceType))
	})
	types, facts := make([]ec2types.InstanceTypeInfo, len(order)), make([]instancetype.Type, len(order))
	for i, j := range order {
		types[i], facts[i] = c.Types[j], c.facts[j]
	}
	c.Types, c.facts = types, facts
	for zone, names := range offerings {
		c.zones = append(c.zones, zone)
		for _, n := range names {
			c.zonesOf[n] = append(c.zonesOf[n], zone)
		}
	}
	slices.Sort(c.zones)
	for n := range c.zonesOf {
		slices.Sort(c.zonesOf[n])
	}
	return c
}

// Zones is every zone of the region that offers an instance type.
func (c *Catalogue) Zones() []string { return c.zones }

// InstanceTypes are the instance types Karpenter's AWS provider lists for
// an EC2NodeClass in the status st, under the controller settings s, as the
// scheduler receives them (sorted by name). The class's amiFamily is read
// for Karpenter release kv (an alias names it when amiFamily is unset).
func (c *Catalogue) InstanceTypes(m manifest.EC2NodeClass, st ClassStatus, s capacity.Settings, kv versions.Karpenter) ([]*cloudprovider.InstanceType, error) {
	return c.PricedInstanceTypes(m, st, s, kv, PricesFor(c.Region))
}

// PricedInstanceTypes is InstanceTypes with the offerings priced by prices
// (Karpenter's pricing provider after its updates, or the static table).
func (c *Catalogue) PricedInstanceTypes(m manifest.EC2NodeClass, st ClassStatus, s capacity.Settings, kv versions.Karpenter, prices Pricer) ([]*cloudprovider.InstanceType, error) {
	family, ok := ami.ResolvedFamily(m.Spec.AMIFamily, nodeclass.Terms(m), kv)
	if !ok {
		return nil, fmt.Errorf("the amiFamily of EC2NodeClass %q cannot be resolved (no amiFamily and no alias term)", m.Metadata.Name)
	}
	its, _ := c.instanceTypes(class{name: m.Metadata.Name, family: family, spec: m.Spec, status: st}, s, prices)
	return its, nil
}

// class is an EC2NodeClass as the instance-type provider reads it, with its
// predicted status.
type class struct {
	name   string
	family amifamily.Family
	spec   manifest.EC2NodeClassSpec
	status ClassStatus
}

// instanceTypes is what karpenter-provider-aws's instance-type provider
// lists for a class (pkg/providers/instancetype: List, NewInstanceType,
// computeRequirements, and the offering resolvers of
// pkg/providers/instancetype/offering). Capacity and overhead come from
// package capacity. Types whose capacity cannot be computed are left out
// with the reason in skipped.
//
// Only available offerings are built: every consumer in the scheduler
// filters on Offering.Available (fits, OrderByPrice, ToNodeClaim, the
// reservation manager), and a region-sized catalogue has ~16,000
// unavailable ones per class.
func (c *Catalogue) instanceTypes(cl class, settings capacity.Settings, prices Pricer) (its []*cloudprovider.InstanceType, skipped []string) {
	model := cl.family.Model()
	capClass := capacity.ClassOf(cl.family, cl.spec)
	subnetZones := map[string]string{} // zone -> zone id
	for _, s := range cl.status.Subnets {
		if _, ok := subnetZones[s.Zone]; !ok || s.ZoneID < subnetZones[s.Zone] {
			subnetZones[s.Zone] = s.ZoneID
		}
	}
	shared := offeringRequirements{}
	for i, info := range c.Types {
		t := c.facts[i]
		name := t.Name
		node, err := capacity.Compute(t, capClass, settings)
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("%s: %v", name, err))
			continue
		}
		var reservations []Reservation
		for _, r := range cl.status.CapacityReservations {
			if r.InstanceType == name {
				reservations = append(reservations, r)
			}
		}
		var zones []string // offered here and in a subnet's zone
		for _, z := range c.zonesOf[name] {
			if _, ok := subnetZones[z]; ok {
				zones = append(zones, z)
			}
		}
		reqs := karpenterRequirements(c.typeLabels()[i], t, info, model, zones, subnetZones, c.Region, reservations)
		compatible := compatibleWithClass(info, t, cl.spec, model)
		it := &cloudprovider.InstanceType{
			Name:         name,
			Requirements: reqs,
			Capacity:     node.Capacity,
			Overhead: &cloudprovider.InstanceTypeOverhead{
				KubeReserved: node.Overhead.KubeReserved, SystemReserved: node.Overhead.SystemReserved,
				EvictionThreshold: node.Overhead.EvictionThreshold,
			},
		}
		if compatible {
			it.Offerings = offerings(name, reqs, zones, subnetZones, reservations, prices, shared)
		}
		its = append(its, it)
	}
	return its, skipped
}

// typeLabels converts each type's own labels (package instancetype) into
// Karpenter's requirements, once: classes share them (the scheduler never
// changes an instance type's requirements).
func (c *Catalogue) typeLabels() []kscheduling.Requirements {
	c.labelsOnce.Do(func() {
		c.labels = make([]kscheduling.Requirements, len(c.facts))
		for i, t := range c.facts {
			own := t.Requirements()
			r := kscheduling.NewRequirements()
			for _, key := range own.Keys() {
				switch key {
				case requirements.LabelOS, requirements.LabelCapacityType:
					continue // the class decides them
				}
				r.Add(karpenterRequirement(own.Get(key)))
			}
			c.labels[i] = r
		}
	})
	return c.labels
}

// karpenterRequirements are computeRequirements' labels: the type's own
// (typeLabels) and those the class, the offerings and the region decide.
func karpenterRequirements(own kscheduling.Requirements, t instancetype.Type, info ec2types.InstanceTypeInfo, model amifamily.Model, zones []string,
	subnetZones map[string]string, region string, reservations []Reservation) kscheduling.Requirements {
	out := make(kscheduling.Requirements, len(own)+16)
	for k, r := range own {
		out[k] = r
	}
	// getOS: the family's OS; a Windows family has no image for arm64, so
	// such types get no OS at all (an In with no value).
	var os []string
	if model.OS() != string(corev1.Windows) || t.Architecture == karpv1.ArchitectureAmd64 {
		os = []string{model.OS()}
	}
	out.Add(kscheduling.NewRequirement(corev1.LabelOSStable, corev1.NodeSelectorOpIn, os...))
	var capacityTypes []string
	for _, uc := range info.SupportedUsageClasses {
		if uc == ec2types.UsageClassTypeOnDemand || uc == ec2types.UsageClassTypeSpot {
			capacityTypes = append(capacityTypes, string(uc))
		}
	}
	if len(reservations) > 0 {
		capacityTypes = append(capacityTypes, karpv1.CapacityTypeReserved)
	}
	out.Add(kscheduling.NewRequirement(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, capacityTypes...))
	out.Add(kscheduling.NewRequirement(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, zones...))
	out.Add(kscheduling.NewRequirement(corev1.LabelTopologyRegion, corev1.NodeSelectorOpIn, region))
	if build := model.WindowsBuild(); build != "" {
		out.Add(kscheduling.NewRequirement(corev1.LabelWindowsBuild, corev1.NodeSelectorOpIn, build))
	} else {
		out.Add(kscheduling.NewRequirement(corev1.LabelWindowsBuild, corev1.NodeSelectorOpDoesNotExist))
	}
	if bw, ok := instancetype.NetworkBandwidthMbps(t.Name); ok {
		out.Add(kscheduling.NewRequirement(requirements.LabelInstanceNetworkBandwidth, corev1.NodeSelectorOpIn, strconv.FormatInt(bw, 10)))
	} else {
		out.Add(kscheduling.NewRequirement(requirements.LabelInstanceNetworkBandwidth, corev1.NodeSelectorOpDoesNotExist))
	}
	var zoneIDs []string
	for _, z := range zones {
		zoneIDs = append(zoneIDs, subnetZones[z])
	}
	if len(zoneIDs) > 0 {
		out.Add(kscheduling.NewRequirement(requirements.LabelZoneID, corev1.NodeSelectorOpIn, zoneIDs...))
	}
	if len(reservations) > 0 {
		var ids, kinds, interruptible []string
		for _, r := range reservations {
			ids = append(ids, r.ID)
			kinds = append(kinds, r.Type)
			interruptible = append(interruptible, strconv.FormatBool(r.Interruptible))
		}
		out.Add(kscheduling.NewRequirement(requirements.LabelCapacityReservationID, corev1.NodeSelectorOpIn, ids...),
			kscheduling.NewRequirement(requirements.LabelCapacityReservationType, corev1.NodeSelectorOpIn, kinds...),
			kscheduling.NewRequirement(requirements.LabelCapacityReservationInterruptible, corev1.NodeSelectorOpIn, interruptible...))
	} else {
		for _, key := range []string{requirements.LabelCapacityReservationID, requirements.LabelCapacityReservationType,
			requirements.LabelCapacityReservationInterruptible} {
			out.Add(kscheduling.NewRequirement(key, corev1.NodeSelectorOpDoesNotExist))
		}
	}
	return out
}

// karpenterRequirement converts one of package requirements' requirements
// (the same canonical form) into Karpenter's.
func karpenterRequirement(r *requirements.Requirement) *kscheduling.Requirement {
	switch r.Operator() {
	case requirements.In:
		return kscheduling.NewRequirement(r.Key, corev1.NodeSelectorOpIn, r.Values()...)
	case requirements.NotIn:
		return kscheduling.NewRequirement(r.Key, corev1.NodeSelectorOpNotIn, r.Values()...)
	case requirements.DoesNotExist:
		return kscheduling.NewRequirement(r.Key, corev1.NodeSelectorOpDoesNotExist)
	}
	out := kscheduling.NewRequirement(r.Key, corev1.NodeSelectorOpExists)
	gte, lte := r.Bounds()
	if gte != nil {
		out = out.Intersection(kscheduling.NewRequirement(r.Key, karpv1.NodeSelectorOpGte, strconv.Itoa(*gte)))
	}
	if lte != nil {
		out = out.Intersection(kscheduling.NewRequirement(r.Key, karpv1.NodeSelectorOpLte, strconv.Itoa(*lte)))
	}
	return out
}

// offerings are the available offerings of a type (BaseResolver and
// ReservedCapacityResolver): one per zone and capacity type where the type
// is offered, in a zone of the class's subnets, with a price; and one per
// capacity reservation of the class with instances left. On-demand is
// priced by OnDemandPrice, spot by SpotPrice of the zone (the static table
// gives the on-demand figure, as Karpenter before its first spot price
// update), reservations at a ten-millionth of on-demand.
func offerings(name string, reqs kscheduling.Requirements, zones []string, subnetZones map[string]string,
	reservations []Reservation, prices Pricer, shared offeringRequirements) cloudprovider.Offerings {
	var out cloudprovider.Offerings
	price, hasPrice := prices.OnDemandPrice(ec2types.InstanceType(name))
	for _, zone := range zones {
		for _, ct := range reqs.Get(karpv1.CapacityTypeLabelKey).Values() {
			var p float64
			var ok bool
			switch ct {
			case karpv1.CapacityTypeReserved:
				continue
			case karpv1.CapacityTypeSpot:
				p, ok = prices.SpotPrice(ec2types.InstanceType(name), zone)
			default:
				p, ok = price, hasPrice
			}
			if ok {
				out = append(out, &cloudprovider.Offering{Requirements: shared.get(zone, ct, subnetZones[zone]), Price: p, Available: true})
			}
		}
	}
	for _, r := range reservations {
		zoneID, inSubnets := subnetZones[r.Zone]
		if !inSubnets || !slices.Contains(zones, r.Zone) || r.Available == 0 || r.State == ReservationExpiring {
			continue
		}
		resPrice := 0.0
		if hasPrice {
			resPrice = price / 10_000_000.0
		}
		out = append(out, &cloudprovider.Offering{
			Requirements: kscheduling.NewRequirements(
				kscheduling.NewRequirement(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, karpv1.CapacityTypeReserved),
				kscheduling.NewRequirement(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, r.Zone),
				kscheduling.NewRequirement(cloudprovider.ReservationIDLabel, corev1.NodeSelectorOpIn, r.ID),
				kscheduling.NewRequirement(requirements.LabelCapacityReservationType, corev1.NodeSelectorOpIn, r.Type),
				kscheduling.NewRequirement(requirements.LabelCapacityReservationInterruptible, corev1.NodeSelectorOpIn, strconv.FormatBool(r.Interruptible)),
				kscheduling.NewRequirement(requirements.LabelZoneID, corev1.NodeSelectorOpIn, zoneID),
			),
			Price:               resPrice,
			Available:           true,
			ReservationCapacity: r.Available,
		})
	}
	return out
}

// offeringRequirements are the requirements of the on-demand and spot
// offerings of one class, per zone and capacity type: every instance type
// offered there has the same, and the scheduler only reads them, so the
// class's types share one map each.
type offeringRequirements map[[2]string]kscheduling.Requirements

func (m offeringRequirements) get(zone, capacityType, zoneID string) kscheduling.Requirements {
	k := [2]string{zone, capacityType}
	if r, ok := m[k]; ok {
		return r
	}
	r := kscheduling.NewRequirements(
		kscheduling.NewRequirement(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, capacityType),
		kscheduling.NewRequirement(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, zone),
		kscheduling.NewRequirement(cloudprovider.ReservationIDLabel, corev1.NodeSelectorOpDoesNotExist),
		kscheduling.NewRequirement(requirements.LabelCapacityReservationType, corev1.NodeSelectorOpDoesNotExist),
		kscheduling.NewRequirement(requirements.LabelCapacityReservationInterruptible, corev1.NodeSelectorOpDoesNotExist),
		kscheduling.NewRequirement(requirements.LabelZoneID, corev1.NodeSelectorOpIn, zoneID),
	)
	m[k] = r
	return r
}

// compatibleWithClass is compatibility.IsCompatibleWithNodeClass: a type
// the class's network interfaces, family, CPU options or connection
// tracking rule out keeps its labels but no offering. Placement groups are
// not modelled (see the package documentation).
func compatibleWithClass(info ec2types.InstanceTypeInfo, t instancetype.Type, spec manifest.EC2NodeClassSpec, model amifamily.Model) bool {
	if t.Family == "a1" && !model.SupportsA1() {
		return false
	}
	if nics := spec.NetworkInterfaces; nics != nil && !interfacesFit(info, nics) {
		return false
	}
	if o := spec.CPUOptions; o != nil && o.NestedVirtualization != nil && *o.NestedVirtualization == "enabled" {
		if info.ProcessorInfo == nil || !slices.Contains(info.ProcessorInfo.SupportedFeatures, ec2types.SupportedAdditionalProcessorFeatureNestedVirtualization) {
			return false
		}
	}
	if spec.ConnectionTracking != nil && info.Hypervisor != ec2types.InstanceTypeHypervisorNitro {
		return false
	}
	return true
}

// interfacesFit is networkInterfaceCompatibility: every interface needs its
// network card and device index, ENA, and the EFA-only ones an EFA each.
func interfacesFit(info ec2types.InstanceTypeInfo, nics []manifest.NetworkInterface) bool {
	ni := info.NetworkInfo
	if ni == nil || len(ni.NetworkCards) == 0 || ni.EnaSupport == ec2types.EnaSupportUnsupported {
		return false
	}
	efas := 0
	for _, nic := range nics {
		if len(ni.NetworkCards) <= int(nic.NetworkCardIndex) {
			return false
		}
		i := slices.IndexFunc(ni.NetworkCards, func(c ec2types.NetworkCardInfo) bool { return aws.ToInt32(c.NetworkCardIndex) == nic.NetworkCardIndex })
		if i < 0 || aws.ToInt32(ni.NetworkCards[i].MaximumNetworkInterfaces) <= nic.DeviceIndex {
			return false
		}
		if nic.InterfaceType == efaOnlyInterface {
			efas++
		}
	}
	if efas > 0 && (ni.EfaInfo == nil || ni.EfaInfo.MaximumEfaInterfaces == nil || efas > int(aws.ToInt32(ni.EfaInfo.MaximumEfaInterfaces))) {
		return false
	}
	return true
}

// efaOnlyInterface is the interfaceType of an EFA-only network interface.
const efaOnlyInterface = "efa-only"
