package scheduling

import (
	"bufio"
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"sync"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

//go:generate go run ./internal/pricegen prices.txt

// prices.txt is the static on-demand price table karpenter-provider-aws
// ships (pkg/providers/pricing zz_generated.pricing_*.go), written by
// internal/pricegen. Karpenter starts from it and replaces it with the
// Pricing API's answers and spot price history at run time; a plan cannot
// know those, so the prediction orders instance types by the static table,
// with spot priced as on-demand, as Karpenter does until its first spot
// price update (pricing.go populateInitialSpotPricing).
//
//go:embed prices.txt
var pricesText string

var priceTables = sync.OnceValue(func() map[string]map[string]float64 {
	t, err := parsePrices(pricesText)
	if err != nil {
		panic(err) // the embedded file is part of the build; tests cover it
	}
	return t
})

func parsePrices(text string) (map[string]map[string]float64, error) {
	out := map[string]map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for line := 1; sc.Scan(); line++ {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if len(f) != 3 {
			return nil, fmt.Errorf("prices.txt:%d: want <region> <type> <price>", line)
		}
		p, err := strconv.ParseFloat(f[2], 64)
		if err != nil {
			return nil, fmt.Errorf("prices.txt:%d: %w", line, err)
		}
		if out[f[0]] == nil {
			out[f[0]] = map[string]float64{}
		}
		out[f[0]][f[1]] = p
	}
	return out, sc.Err()
}

// Prices are the on-demand prices of one region, Karpenter's static table.
type Prices struct {
	Region string
	table  map[string]float64
}

// PricesFor is the static table of a region; a region without one gets
// us-east-1's, as Karpenter's pricing provider does (Reset).
func PricesFor(region string) Prices {
	t, ok := priceTables()[region]
	if !ok {
		return Prices{Region: "us-east-1", table: priceTables()["us-east-1"]}
	}
	return Prices{Region: region, table: t}
}

// OnDemand is a type's on-demand price; a type without one has no
// offering Karpenter can launch.
func (p Prices) OnDemand(instanceType string) (float64, bool) {
	v, ok := p.table[instanceType]
	return v, ok
}

// OnDemandPrice is Karpenter's pricing provider's on-demand question
// (pkg/providers/pricing Provider.OnDemandPrice) on the static table.
func (p Prices) OnDemandPrice(it ec2types.InstanceType) (float64, bool) {
	return p.OnDemand(string(it))
}

// SpotPrice is the static table's answer for spot: the on-demand figure in
// every zone, as Karpenter answers before its first spot price update
// (pricing.go populateInitialSpotPricing, SpotPrice).
func (p Prices) SpotPrice(it ec2types.InstanceType, _ string) (float64, bool) {
	return p.OnDemand(string(it))
}

// StaticTableDate is when karpenter-provider-aws generated the table
// (zz_generated.pricing_aws.go "generated at"); internal/differential holds
// it equal to the pinned module's.
const StaticTableDate = "2026-07-06"

// Pricer answers the two questions Karpenter's offerings are priced with:
// karpenter-provider-aws pkg/providers/pricing's Provider (its
// DefaultProvider satisfies it), or the static table (Prices).
type Pricer interface {
	OnDemandPrice(ec2types.InstanceType) (float64, bool)
	SpotPrice(ec2types.InstanceType, string) (float64, bool)
}

// PriceSource is what a decision is priced with and how to say so.
type PriceSource struct {
	Pricer Pricer
	// Source names where the figures come from (the Pricing API and spot
	// price history, or the static table and its date) and what they
	// leave out; it becomes Cost.Source.
	Source string
}

// LeftOut is what no figure of the decision includes.
const LeftOut = "Not included: Savings Plans, Reserved Instance and EDP discounts, EBS volumes, data transfer, " +
	"the EKS cluster fee, and nodes that already run."

// StaticSource prices with the table Karpenter ships for the region (a
// region without one gets us-east-1's, as Karpenter does); why says why
// the live prices are not used ("" says nothing).
func StaticSource(region, why string) PriceSource {
	p := PricesFor(region)
	s := fmt.Sprintf("Karpenter's static price table (karpenter-provider-aws %s, generated %s, %s on-demand prices; "+
		"spot priced at the on-demand figure, as Karpenter does before its first spot price update)", karpenterAWSVersion, StaticTableDate, p.Region)
	if why != "" {
		s += ": " + why
	}
	return PriceSource{Pricer: p, Source: s + ". " + LeftOut}
}

// karpenterAWSVersion is the karpenter-provider-aws release the static
// table is from (go.mod).
const karpenterAWSVersion = "v1.14.1"

// PriceRead is how one of Karpenter's two price updates went, for the
// source text: Live when it replaced the static figures, else Why not.
type PriceRead struct {
	Live bool
	Why  string
}

// LiveSource names prices from Karpenter's pricing provider after its
// updates (UpdateOnDemandPricing, UpdateSpotPricing) in region: each half
// from AWS, or the static table and why.
func LiveSource(p Pricer, region string, onDemand, spot PriceRead) PriceSource {
	table := fmt.Sprintf("Karpenter's static price table (karpenter-provider-aws %s, generated %s)", karpenterAWSVersion, StaticTableDate)
	var b strings.Builder
	if onDemand.Live {
		fmt.Fprintf(&b, "On-demand: the AWS Price List API (pricing:GetProducts, Linux, shared tenancy and bare metal, %s), as Karpenter reads it.", region)
	} else {
		fmt.Fprintf(&b, "On-demand: %s, %s: %s.", table, PricesFor(region).Region, onDemand.Why)
	}
	if spot.Live {
		b.WriteString(" Spot: ec2:DescribeSpotPriceHistory, the latest Linux/UNIX price per instance type and zone, as Karpenter reads it; " +
			"a zone without a price has no spot offering.")
	} else {
		fmt.Fprintf(&b, " Spot: the static table's on-demand figure in every zone, as Karpenter before its first spot price update: %s.", spot.Why)
	}
	return PriceSource{Pricer: p, Source: b.String() + " " + LeftOut}
}

// OfferingPrice is the hourly price Karpenter's offerings give an
// instance type (BaseResolver, ReservedCapacityResolver): on-demand from
// OnDemandPrice; spot from SpotPrice of the zone, the cheapest of zones
// when several are given; reserved a ten-millionth of on-demand. ok is
// false when Karpenter has no price, so no offering.
func OfferingPrice(p Pricer, instanceType, capacityType string, zones ...string) (price float64, ok bool) {
	it := ec2types.InstanceType(instanceType)
	switch capacityType {
	case karpv1.CapacityTypeSpot:
		for _, z := range zones {
			if v, has := p.SpotPrice(it, z); has && (!ok || v < price) {
				price, ok = v, true
			}
		}
		return price, ok
	case karpv1.CapacityTypeReserved:
		od, has := p.OnDemandPrice(it)
		return od / 10_000_000.0, has
	default:
		return p.OnDemandPrice(it)
	}
}
