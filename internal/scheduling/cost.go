package scheduling

import (
	"maps"
	"math"
	"slices"

	instancefilter "github.com/aws/karpenter-provider-aws/pkg/providers/instance/filter"
	corev1 "k8s.io/api/core/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	scheduler "sigs.k8s.io/karpenter/pkg/controllers/provisioning/scheduling"
	kscheduling "sigs.k8s.io/karpenter/pkg/scheduling"
)

// HoursPerMonth is the month Cost.Monthly multiplies by (AWS's pricing
// pages use 730 hours).
const HoursPerMonth = 730

// Price is what Karpenter would pay for one NodeClaim per hour, in the
// price list's currency (USD; CNY in the China regions).
type Price struct {
	// CapacityType is the one Karpenter launches it as: reserved when a
	// reservation is admitted, else spot when a spot offering is, else
	// on-demand (karpenter-provider-aws instance.go getCapacityType).
	CapacityType string
	// Hourly is the cheapest offering CreateFleet may pick: on-demand's
	// lowest-price strategy takes it; spot's price-capacity-optimized does
	// not promise it, so spot has a range up to HourlyMax, the dearest
	// admitted spot offering. HourlyMax equals Hourly when there is no
	// range.
	Hourly, HourlyMax float64
	// Known is false when no offering was left to price (the NodeClaim
	// would fail to launch).
	Known bool
}

// IsRange reports whether the price is a range.
func (p Price) IsRange() bool { return p.HourlyMax != p.Hourly }

// priceOf prices a NodeClaim as karpenter-provider-aws launches it: the
// NodeClaim Karpenter creates (ToNodeClaim: at most MaxInstanceTypes
// types, the capacity types they offer), the launch filters of
// instance.go filterInstanceTypes (Karpenter's own), at most 60 types
// cheapest first, the capacity type getCapacityType picks, and the
// offerings of that capacity type its requirements admit.
func priceOf(nc *scheduler.NodeClaim) Price {
	tmpl := nc.NodeClaimTemplate
	tmpl.Requirements = kscheduling.NewRequirements(nc.Requirements.Values()...) // ToNodeClaim adds to them
	claim := tmpl.ToNodeClaim()
	reqs := kscheduling.NewNodeSelectorRequirementsWithMinValues(claim.Spec.Requirements...)
	names := reqs.Get("node.kubernetes.io/instance-type")
	var its []*cloudprovider.InstanceType
	for _, it := range nc.InstanceTypeOptions {
		if names.Has(it.Name) {
			// SpotOfferingFilter replaces a type's offerings: filter
			// copies, the decision's types are shared.
			its = append(its, &cloudprovider.InstanceType{Name: it.Name, Requirements: it.Requirements, Offerings: it.Offerings,
				Capacity: it.Capacity, DynamicResources: it.DynamicResources, Overhead: it.Overhead})
		}
	}
	for _, f := range []instancefilter.Filter{
		instancefilter.CompatibleAvailableFilter(reqs, claim.Spec.Resources.Requests),
		instancefilter.CapacityReservationTypeFilter(reqs),
		instancefilter.CapacityBlockFilter(reqs),
		instancefilter.ReservedOfferingFilter(reqs),
		instancefilter.ExoticInstanceTypeFilter(reqs),
		instancefilter.SpotOfferingFilter(reqs),
	} {
		if its, _ = f.FilterReject(its); len(its) == 0 {
			return Price{}
		}
	}
	sortByPrice(its, reqs)
	its = its[:min(len(its), launchMaxInstanceTypes)]

	ct := karpv1.CapacityTypeOnDemand
	for _, c := range []string{karpv1.CapacityTypeReserved, karpv1.CapacityTypeSpot} {
		if !reqs.Get(karpv1.CapacityTypeLabelKey).Has(c) {
			continue
		}
		r := kscheduling.NewRequirements(reqs.Values()...)
		r.Add(kscheduling.NewRequirement(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, c))
		if slices.ContainsFunc(its, func(it *cloudprovider.InstanceType) bool { return len(it.Offerings.Available().Compatible(r)) > 0 }) {
			ct = c
			break
		}
	}
	r := kscheduling.NewRequirements(reqs.Values()...)
	r.Add(kscheduling.NewRequirement(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, ct))
	p := Price{CapacityType: ct, Hourly: math.Inf(1), HourlyMax: math.Inf(-1)}
	for _, it := range its {
		for _, o := range it.Offerings.Available().Compatible(r) {
			p.Known = true
			p.Hourly, p.HourlyMax = min(p.Hourly, o.Price), max(p.HourlyMax, o.Price)
		}
	}
	if !p.Known {
		return Price{CapacityType: ct}
	}
	if ct != karpv1.CapacityTypeSpot {
		p.HourlyMax = p.Hourly // lowest-price (on-demand), prioritized (reserved)
	}
	return p
}

// launchMaxInstanceTypes is how many instance types karpenter-provider-aws
// sends to CreateFleet (instance.go maxInstanceTypes).
const launchMaxInstanceTypes = 60

// Cost is what a decision's NodeClaims cost per hour: in total and per
// NodePool. Two decisions' difference is Sub.
type Cost struct {
	// Hourly and HourlyMax are the sums of the NodeClaims' prices (low
	// and high end; equal without spot).
	Hourly, HourlyMax float64
	// NodeClaims counts the NodeClaims priced; Unpriced those without an
	// offering left to price.
	NodeClaims, Unpriced int
	// NodePools is the same per NodePool that takes a NodeClaim.
	NodePools map[string]PoolCost
	// Source says where the prices come from and what they leave out.
	Source string
}

// PoolCost is one NodePool's part of a Cost.
type PoolCost struct {
	Hourly, HourlyMax    float64
	NodeClaims, Unpriced int
}

// Monthly is Hourly over HoursPerMonth.
func (c Cost) Monthly() float64 { return round(c.Hourly * HoursPerMonth) }

// MonthlyMax is HourlyMax over HoursPerMonth.
func (c Cost) MonthlyMax() float64 { return round(c.HourlyMax * HoursPerMonth) }

// Monthly is Hourly over HoursPerMonth.
func (c PoolCost) Monthly() float64 { return round(c.Hourly * HoursPerMonth) }

// MonthlyMax is HourlyMax over HoursPerMonth.
func (c PoolCost) MonthlyMax() float64 { return round(c.HourlyMax * HoursPerMonth) }

// costOf adds the NodeClaims' prices up per pool.
func costOf(claims []NodeClaim, source string) Cost {
	c := Cost{NodePools: map[string]PoolCost{}, Source: source}
	for _, nc := range claims {
		pc := c.NodePools[nc.NodePool]
		pc.NodeClaims++
		c.NodeClaims++
		if !nc.Price.Known {
			pc.Unpriced++
			c.Unpriced++
		}
		pc.Hourly += nc.Price.Hourly
		pc.HourlyMax += nc.Price.HourlyMax
		c.NodePools[nc.NodePool] = pc
	}
	for name, pc := range c.NodePools {
		pc.Hourly, pc.HourlyMax = round(pc.Hourly), round(pc.HourlyMax)
		c.NodePools[name] = pc
		c.Hourly += pc.Hourly
		c.HourlyMax += pc.HourlyMax
	}
	c.Hourly, c.HourlyMax = round(c.Hourly), round(c.HourlyMax)
	return c
}

// Sub is what changes from before to c (c minus before): per NodePool of
// either (a pool that takes no NodeClaim on one side counts zero there),
// and in total; negative figures are savings. Source is c's.
func (c Cost) Sub(before Cost) Cost {
	out := Cost{Hourly: round(c.Hourly - before.Hourly), HourlyMax: round(c.HourlyMax - before.HourlyMax),
		NodeClaims: c.NodeClaims - before.NodeClaims, Unpriced: c.Unpriced - before.Unpriced,
		NodePools: map[string]PoolCost{}, Source: c.Source}
	pools := maps.Clone(c.NodePools)
	maps.Copy(pools, before.NodePools)
	for name := range pools {
		a, b := c.NodePools[name], before.NodePools[name]
		out.NodePools[name] = PoolCost{Hourly: round(a.Hourly - b.Hourly), HourlyMax: round(a.HourlyMax - b.HourlyMax),
			NodeClaims: a.NodeClaims - b.NodeClaims, Unpriced: a.Unpriced - b.Unpriced}
	}
	return out
}

// round keeps the figures to a millionth of a dollar, so that sums of
// float prices print and compare as the price lists write them.
func round(v float64) float64 { return math.Round(v*1e6) / 1e6 }
