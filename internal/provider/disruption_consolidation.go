package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/disruption"
)

// consolidationAttrTypes is the object type of one consolidation command.
var consolidationAttrTypes = map[string]attr.Type{
	"method":                     types.StringType,
	"reason":                     types.StringType,
	"decision":                   types.StringType,
	"node_pools":                 types.ListType{ElemType: types.StringType},
	"nodes":                      types.ListType{ElemType: types.StringType},
	"node_claims":                types.ListType{ElemType: types.StringType},
	"replacement_node_pool":      types.StringType,
	"replacement_instance_types": types.ListType{ElemType: types.StringType},
	"replacement_price":          types.Float64Type,
	"savings_per_hour":           types.Float64Type,
	"pods_moved":                 types.Int64Type,
}

// consolidationCommand is one element of consolidation.
type consolidationCommand struct {
	Method                   string   `tfsdk:"method"`
	Reason                   string   `tfsdk:"reason"`
	Decision                 string   `tfsdk:"decision"`
	NodePools                []string `tfsdk:"node_pools"`
	Nodes                    []string `tfsdk:"nodes"`
	NodeClaims               []string `tfsdk:"node_claims"`
	ReplacementNodePool      *string  `tfsdk:"replacement_node_pool"`
	ReplacementInstanceTypes []string `tfsdk:"replacement_instance_types"`
	ReplacementPrice         *float64 `tfsdk:"replacement_price"`
	SavingsPerHour           float64  `tfsdk:"savings_per_hour"`
	PodsMoved                int64    `tfsdk:"pods_moved"`
}

// consolidationAttribute is the computed list of the consolidation
// commands Karpenter would issue on the cluster state, in order (the data
// source karpenter_disruption's `consolidation`).
func consolidationAttribute() schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		Computed: true,
		Description: "What consolidation does next on `cluster_state`: the commands Karpenter v1.14's disruption controller issues one " +
			"after the other (its Emptiness, multi-node and single-node consolidation methods run on the snapshot at `at`, each command " +
			"applied before the next is decided, up to 50). Null when consolidation was not decided (no instance types for the pools).",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"method":   schema.StringAttribute{Computed: true, Description: "The method: `empty`, `multi` (multi-node) or `single` (single-node consolidation)."},
			"reason":   schema.StringAttribute{Computed: true, Description: "The disruption reason: `Empty` or `Underutilized`."},
			"decision": schema.StringAttribute{Computed: true, Description: "`delete` (the pods fit on the other nodes) or `replace` (one cheaper NodeClaim is launched first)."},
			"node_pools": schema.ListAttribute{ElementType: types.StringType, Computed: true,
				Description: "The NodePools of the nodes removed."},
			"nodes":       schema.ListAttribute{ElementType: types.StringType, Computed: true, Description: "The nodes removed."},
			"node_claims": schema.ListAttribute{ElementType: types.StringType, Computed: true, Description: "Their NodeClaims."},
			"replacement_node_pool": schema.StringAttribute{Computed: true,
				Description: "The NodePool of the replacement NodeClaim; null for `delete`."},
			"replacement_instance_types": schema.ListAttribute{ElementType: types.StringType, Computed: true,
				Description: "The replacement's instance types, cheapest first (at most 10); empty for `delete`."},
			"replacement_price": schema.Float64Attribute{Computed: true,
				Description: "The cheapest replacement's price in dollars per hour; null for `delete`."},
			"savings_per_hour": schema.Float64Attribute{Computed: true,
				Description: "Karpenter's estimated savings in dollars per hour: the removed nodes' prices less the replacement's."},
			"pods_moved": schema.Int64Attribute{Computed: true, Description: "How many pods of the removed nodes are rescheduled."},
		}},
	}
}

// consolidationValue is the consolidation attribute's value: null for a
// nil consolidation (not decided), else one object per command in order.
func consolidationValue(c *disruption.Consolidation) (types.List, diag.Diagnostics) {
	objType := types.ObjectType{AttrTypes: consolidationAttrTypes}
	if c == nil {
		return types.ListNull(objType), nil
	}
	cmds := make([]consolidationCommand, 0, len(c.Commands))
	for _, cmd := range c.Commands {
		m := consolidationCommand{Method: cmd.Method, Reason: cmd.Reason, Decision: cmd.Decision, NodePools: nonNil(cmd.Pools),
			Nodes: []string{}, NodeClaims: []string{}, ReplacementInstanceTypes: []string{}, SavingsPerHour: cmd.Savings, PodsMoved: int64(cmd.PodsMoved)}
		for _, cn := range cmd.Candidates {
			m.Nodes = append(m.Nodes, cn.Node)
			m.NodeClaims = append(m.NodeClaims, cn.NodeClaim)
		}
		for _, r := range cmd.Replacements {
			m.ReplacementNodePool, m.ReplacementPrice = &r.Pool, &r.Price
			m.ReplacementInstanceTypes = append(m.ReplacementInstanceTypes, r.InstanceTypes...)
		}
		cmds = append(cmds, m)
	}
	return types.ListValueFrom(context.Background(), objType, cmds)
}
