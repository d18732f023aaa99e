package provider

import (
	"context"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/node"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling"
)

// decisionPrices are the prices a decision is made and costed with:
// Karpenter's pricing provider after its updates (read once per
// process), each half that AWS would not give on Karpenter's static
// table. A denied read is one price-read-denied warning per plan; any
// other failure is said in the source only, as Karpenter only logs it.
func decisionPrices(ctx context.Context, pd *ProviderData, region string, diags *diag.Diagnostics) *scheduling.PriceSource {
	p, err := pd.AWS.Prices(ctx)
	if err != nil {
		src := scheduling.StaticSource(region, "the prices could not be read ("+err.Error()+")")
		return &src
	}
	read := func(action string, r awsclient.PriceRead) scheduling.PriceRead {
		why, denied := r.Status(action)
		if denied != "" && (pd.reported == nil || pd.reported.claim("price-read-denied:"+denied)) {
			appendFindings(diags, path.Empty(), rules.Findings{pd.priceReadDenied(denied, r.Err)})
		}
		return scheduling.PriceRead{Live: r.Live, Why: why}
	}
	src := scheduling.LiveSource(p.Provider, p.Region, read("pricing:GetProducts", p.OnDemand), read("ec2:DescribeSpotPriceHistory", p.Spot))
	return &src
}

func nodePriceAttribute() schema.Float64Attribute {
	return schema.Float64Attribute{Computed: true, Description: "What Karpenter would pay for the node per hour (USD; CNY in the " +
		"China regions), for its capacity type and zone: on-demand, the type's on-demand price; spot, the zone's spot price (with " +
		"`zone` unset, the cheapest zone's); reserved, Karpenter's reserved price (a ten-millionth of on-demand). Prices as " +
		"`karpenter_scheduling`'s `cost.source` describes them: the Price List API and ec2:DescribeSpotPriceHistory as Karpenter " +
		"reads them, else Karpenter's static table. Null when Karpenter has no price for it (it would not launch it), or " +
		"without AWS. Not included: Savings Plans and other discounts, EBS, data transfer."}
}

// nodePrice is the node's hourly price, null when Karpenter has none.
func nodePrice(ctx context.Context, pd *ProviderData, n node.Node, instanceType, region string, diags *diag.Diagnostics) types.Float64 {
	if region == "" || pd.AWS == nil {
		return types.Float64Null()
	}
	src := decisionPrices(ctx, pd, region, diags)
	zones := []string{n.Zone}
	if n.Zone == "" {
		off, err := pd.AWS.OfferingsByZone(ctx)
		if err != nil {
			return types.Float64Null()
		}
		zones = zones[:0]
		for zone, offered := range off {
			if slices.Contains(offered, instanceType) {
				zones = append(zones, zone)
			}
		}
	}
	if p, ok := scheduling.OfferingPrice(src.Pricer, instanceType, n.CapacityType, zones...); ok {
		return types.Float64Value(p)
	}
	return types.Float64Null()
}

// priceReadDenied is the finding of a denied price read: a warning, an
// error with strict_readiness (as a denied readiness read).
func (d *ProviderData) priceReadDenied(action string, err error) rules.Finding {
	f := scheduling.PriceReadDenied(action, err)
	f.Detail += " With strict_readiness = true this is an error."
	if d.StrictReadiness {
		f.Severity = rules.Error
		f.Fix = nil // strict: the read is required, not to be acknowledged
	}
	return f
}
