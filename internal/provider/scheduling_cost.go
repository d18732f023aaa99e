package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	schema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling"
)

// The decision's cost (offerings priced as karpenter-provider-aws
// pkg/providers/pricing prices them) as Terraform values: the schema parts
// and the conversion, kept apart from the rest of the scheduling schema so
// that the data source and the resource share them.

var (
	poolCostAttrTypes = map[string]attr.Type{
		"hourly": types.Float64Type, "hourly_max": types.Float64Type, "monthly": types.Float64Type, "monthly_max": types.Float64Type,
		"node_claims": types.Int64Type,
	}
	costAttrTypes = map[string]attr.Type{
		"hourly": types.Float64Type, "hourly_max": types.Float64Type, "monthly": types.Float64Type, "monthly_max": types.Float64Type,
		"source": types.StringType, "node_pools": types.MapType{ElemType: types.ObjectType{AttrTypes: poolCostAttrTypes}},
	}
)

func nodeClaimPriceAttribute() schema.Float64Attribute {
	return schema.Float64Attribute{Computed: true, Description: "What Karpenter would pay for it per hour (USD; CNY in the China " +
		"regions), for the capacity type it launches as (reserved when a capacity reservation is admitted, else spot when a spot " +
		"offering is, else on-demand): on-demand, its cheapest admitted offering (CreateFleet's lowest-price); spot, the cheapest " +
		"admitted spot offering, the low end of a range (price-capacity-optimized does not promise it; see `hourly_price_max`); " +
		"reserved, Karpenter's reserved price (a ten-millionth of on-demand: the reservation is paid for anyway). Null when no " +
		"offering is left to price. `cost.source` says where the prices come from."}
}

func nodeClaimPriceMaxAttribute() schema.Float64Attribute {
	return schema.Float64Attribute{Computed: true, Description: "The high end of the price: for spot, the dearest admitted spot " +
		"offering among the (at most 60, cheapest first) instance types Karpenter sends to CreateFleet; else `hourly_price`."}
}

func costAttribute() schema.SingleNestedAttribute {
	num := func(desc string) schema.Float64Attribute {
		return schema.Float64Attribute{Computed: true, Description: desc}
	}
	return schema.SingleNestedAttribute{Computed: true,
		Description: "What the NodeClaims cost: the sums of `node_claims[*].hourly_price`, in total and per NodePool. New nodes " +
			"only, as Karpenter prices them: not Savings Plans, Reserved Instance or EDP discounts, EBS volumes, data transfer or the " +
			"EKS cluster fee.",
		Attributes: map[string]schema.Attribute{
			"hourly":      num("Per hour, the low end (every spot NodeClaim at its cheapest offering)."),
			"hourly_max":  num("Per hour, the high end (every spot NodeClaim at its dearest offering); `hourly` without spot."),
			"monthly":     num("`hourly` × 730 hours."),
			"monthly_max": num("`hourly_max` × 730 hours."),
			"source": schema.StringAttribute{Computed: true, Description: "Where the prices come from: with AWS, the Price List API " +
				"(pricing:GetProducts) for on-demand and ec2:DescribeSpotPriceHistory for spot, read as karpenter-provider-aws's " +
				"pricing provider reads them (once per run); offline, denied, or where the endpoint does not serve them, the " +
				"static table Karpenter ships, named with its date; and what no figure includes."},
			"node_pools": schema.MapNestedAttribute{Computed: true, Description: "Per NodePool that takes a NodeClaim.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"hourly": num("Per hour, low end."), "hourly_max": num("Per hour, high end."),
					"monthly": num("`hourly` × 730 hours."), "monthly_max": num("`hourly_max` × 730 hours."),
					"node_claims": schema.Int64Attribute{Computed: true, Description: "Its NodeClaims."},
				}}},
		},
	}
}

// priceValue is a NodeClaim's price, null when it has none.
func priceValue(p scheduling.Price, v float64) types.Float64 {
	if !p.Known {
		return types.Float64Null()
	}
	return types.Float64Value(v)
}

func costValue(c scheduling.Cost) (types.Object, diag.Diagnostics) {
	var diags diag.Diagnostics
	pools := make(map[string]attr.Value, len(c.NodePools))
	for name, pc := range c.NodePools {
		o, d := types.ObjectValue(poolCostAttrTypes, map[string]attr.Value{
			"hourly": types.Float64Value(pc.Hourly), "hourly_max": types.Float64Value(pc.HourlyMax),
			"monthly": types.Float64Value(pc.Monthly()), "monthly_max": types.Float64Value(pc.MonthlyMax()),
			"node_claims": types.Int64Value(int64(pc.NodeClaims)),
		})
		diags.Append(d...)
		pools[name] = o
	}
	pm, d := types.MapValue(types.ObjectType{AttrTypes: poolCostAttrTypes}, pools)
	diags.Append(d...)
	o, d := types.ObjectValue(costAttrTypes, map[string]attr.Value{
		"hourly": types.Float64Value(c.Hourly), "hourly_max": types.Float64Value(c.HourlyMax),
		"monthly": types.Float64Value(c.Monthly()), "monthly_max": types.Float64Value(c.MonthlyMax()),
		"source": types.StringValue(c.Source), "node_pools": pm,
	})
	diags.Append(d...)
	return o, diags
}
