package scheduling

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"k8s.io/utils/clock"
	"sigs.k8s.io/karpenter/pkg/controllers/state"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot"
)

// clusterState is Karpenter's cluster state as its informers fill it
// (pkg/controllers/state/informer: NodeClaims, Nodes, then the pods bound
// to them) from the snapshot, and the nodes Provisioner.Schedule hands
// the scheduler: DeepCopyNodes().Active(). The scheduler orders them
// itself (initialized first, then by name: Scheduler.sortExistingNodes in
// pkg/controllers/provisioning/scheduling), so the order here only keeps
// the decision's own listing stable.
func clusterState(ctx context.Context, clk clock.Clock, k *kube, snap *snapshot.Snapshot) (*state.Cluster, []*state.StateNode, error) {
	cluster := state.NewCluster(clk, k, nil)
	if snap == nil {
		return cluster, nil, nil
	}
	for _, nc := range snap.NodeClaims {
		cluster.UpdateNodeClaim(nc.DeepCopy())
	}
	for _, n := range snap.Nodes {
		if err := cluster.UpdateNode(ctx, n.DeepCopy()); err != nil {
			return nil, nil, fmt.Errorf("cluster state, node %s: %w", n.Name, err)
		}
	}
	for _, p := range snap.Pods {
		if p.Spec.NodeName == "" {
			continue
		}
		// A pod bound to a node the snapshot lacks was reported by the
		// snapshot; Karpenter's state drops it the same way.
		_ = cluster.UpdatePod(ctx, p.DeepCopy())
	}
	nodes := cluster.DeepCopyNodes().Active()
	slices.SortFunc(nodes, func(a, b *state.StateNode) int {
		return cmp.Or(cmp.Compare(a.Name(), b.Name()), cmp.Compare(a.ProviderID(), b.ProviderID()))
	})
	return cluster, nodes, nil
}

// RuleClusterState: a cluster_state that cannot be read whole.
var RuleClusterState = rules.Register(rules.Rule{
	ID: "cluster-state-incomplete", Severity: rules.Warning, Category: Category,
	Title: "the cluster_state snapshot cannot be read whole",
	Behaviour: "`cluster_state` is the List `" + snapshot.Command + "` prints. An item that cannot be read, of another " +
		"kind, at an API version Karpenter v1 does not read, or that Karpenter's cluster state would not track (a NodePool's " +
		"node without `spec.providerID` or instance-type label, a node without `status.allocatable`) is left out and named; " +
		"references that leave the snapshot (a pod bound to a node it lacks, a NodePool's node without its NodeClaim) are " +
		"named too, so a partial snapshot is never read as a smaller cluster without saying so. Nothing is guessed: the " +
		"decision uses what was read.",
	Source: "kubernetes-sigs/karpenter pkg/controllers/state/cluster.go (UpdateNode, UpdateNodeClaim, UpdatePod)",
	Bad: example([]string{examplePool("default", "")}, []string{exampleClass}, []string{exampleDeployment("2", "500m", "")},
		"cluster_state = <<-EOT\n    apiVersion: v1\n    kind: List\n    items:\n      - apiVersion: v1\n        kind: Node\n"+
			"        metadata:\n          name: ip-10-0-1-7\n        spec:\n          providerID: aws:///us-east-1a/i-0abc\n  EOT"),
	Good: example([]string{examplePool("default", "")}, []string{exampleClass}, []string{exampleDeployment("2", "500m", "")},
		"cluster_state = <<-EOT\n    apiVersion: v1\n    kind: List\n    items:\n      - apiVersion: v1\n        kind: Node\n"+
			"        metadata:\n          name: ip-10-0-1-7\n        spec:\n          providerID: aws:///us-east-1a/i-0abc\n"+
			"        status:\n          allocatable:\n            cpu: 1930m\n            memory: 7Gi\n            pods: \"29\"\n  EOT"),
})

// clusterFindings are the snapshot's findings, as warnings at cluster_state.
func (p *Parsed) clusterFindings() []Finding {
	if p.cluster == nil {
		return nil
	}
	var out []Finding
	for _, f := range p.cluster.Findings {
		what := "left out of the cluster state"
		if !f.Dropped {
			what = "read as it is"
		}
		out = append(out, Finding{Finding: rules.New(RuleClusterState, rules.Root(ListCluster), "the cluster snapshot: %s (%s).", f, what),
			List: ListCluster, Input: 0, Position: Position{Document: 0, Line: f.Line}})
	}
	return out
}
