package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	schema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot"
)

// clusterStateAttributes are the scheduling decision's running-cluster
// argument (a snapshot, as kubectl prints it) and result, kept apart from
// the rest of the schema.
func clusterStateAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"cluster_state": schema.StringAttribute{Optional: true,
			Description: "The running cluster, as the List `" + snapshot.Command + "` prints (`file(\"cluster.yaml\")`). " +
				"The workloads' pods then go first where Karpenter's scheduler places them on its nodes and launched NodeClaims " +
				"(Karpenter's cluster state filled from it: their allocatable less the pods bound to them and their DaemonSets), " +
				"and only the rest make `node_claims`; `existing_nodes` says which. Pods of the snapshot that are pending are " +
				"not scheduled again. Items that cannot be read are `cluster-state-incomplete` warnings. Without it the " +
				"cluster is empty."},
		"existing_nodes": schema.MapAttribute{ElementType: types.ListType{ElemType: types.StringType}, Computed: true,
			Description: "The nodes of `cluster_state` that take workload pods, by node name (a NodeClaim's name before its " +
				"node registers): the pods, `\"<namespace>/<kind>/<name>/<index>\"`. Karpenter tries its existing nodes " +
				"initialized first, then by name, and a pod takes the first that fits."},
	}
}

// clusterStateInput adds cluster_state to the input; false when it is
// not known yet.
func clusterStateInput(in *scheduling.Input, v types.String) bool {
	if v.IsUnknown() {
		return false
	}
	in.ClusterState = v.ValueString()
	return true
}

func existingNodesValue(nodes []scheduling.ExistingNode) (types.Map, diag.Diagnostics) {
	var diags diag.Diagnostics
	elems := make(map[string]attr.Value, len(nodes))
	for _, n := range nodes {
		l, d := types.ListValueFrom(context.Background(), types.StringType, n.Pods)
		diags.Append(d...)
		elems[n.Name] = l
	}
	m, d := types.MapValue(types.ListType{ElemType: types.StringType}, elems)
	diags.Append(d...)
	return m, diags
}
