package scheduling

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/fields"
	"sigs.k8s.io/controller-runtime/pkg/client"
	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot"
)

// InstanceTypes are the instance types Karpenter's AWS provider lists for
// each NodePool the provisioner would schedule with (the pools Decide
// admits, NodeOverlays applied), by pool name, for Karpenter's controllers
// other than the provisioner's own Schedule (package disruption's
// consolidation). The findings say why a pool is left out.
func (p *Parsed) InstanceTypes(ctx context.Context, f Facts) (map[string][]*cloudprovider.InstanceType, []Finding) {
	ctx = decisionContext(ctx)
	d := &Decision{Findings: p.Findings()}
	pools, its, facts := p.admitPools(ctx, f, d)
	its = p.applyOverlays(ctx, f, d, pools, its, facts)
	out := map[string][]*cloudprovider.InstanceType{}
	for _, np := range pools {
		if skipped(d, np.Name) {
			continue
		}
		out[np.Name] = its[np.Name]
	}
	return out, d.Findings
}

// skipped reports whether admitPools reported the pool as left out.
func skipped(d *Decision, pool string) bool {
	for _, r := range d.NodePools {
		if r.Name == pool && r.Skipped != "" {
			return true
		}
	}
	return false
}

// DecisionContext is the context Karpenter's scheduler and controllers run
// in for a decision: the defaults of Karpenter's flags, its logs discarded.
func DecisionContext(ctx context.Context) context.Context { return decisionContext(ctx) }

// ClusterClient is the read-only API server of a running cluster as
// Karpenter's disruption controller reads it: the snapshot's nodes, pods
// (bound and pending), PodDisruptionBudgets, DaemonSets and NodeClaims, and
// the NodePools given. Nothing can be written.
func ClusterClient(snap *snapshot.Snapshot, pools []*v1.NodePool) client.Client {
	k := newKube(nil, snap.Nodes, snap.Pods)
	for _, p := range snap.Pods {
		if p.Spec.NodeName == "" {
			k.pending = append(k.pending, p)
		}
	}
	k.pdbs, k.daemonSets, k.nodeClaims, k.nodePools = snap.PDBs, snap.DaemonSets, snap.NodeClaims, pools
	return k
}

// listMore lists the kinds only ClusterClient holds; ok is false for
// another kind.
func (k *kube) listMore(list client.ObjectList, o *client.ListOptions) bool {
	switch l := list.(type) {
	case *policyv1.PodDisruptionBudgetList:
		l.Items = nil
		for _, p := range k.pdbs {
			if o.Namespace == "" || p.Namespace == o.Namespace {
				l.Items = append(l.Items, *p.DeepCopy())
			}
		}
	case *appsv1.DaemonSetList:
		l.Items = nil
		for _, d := range k.daemonSets {
			if o.Namespace == "" || d.Namespace == o.Namespace {
				l.Items = append(l.Items, *d.DeepCopy())
			}
		}
	case *v1.NodePoolList:
		l.Items = nil
		for _, np := range k.nodePools {
			l.Items = append(l.Items, *np.DeepCopy())
		}
	case *v1.NodeClaimList:
		l.Items = nil
		for _, nc := range k.nodeClaims {
			l.Items = append(l.Items, *nc.DeepCopy())
		}
	default:
		return false
	}
	return true
}

// podsFor are the pods a List of pods looks at: the bound ones, and the
// pending ones when the client holds them (ClusterClient); only those on
// one node when the field selector names it (Karpenter lists a node's
// pods for every candidate: without the index, candidates times pods).
func (k *kube) podsFor(sel fields.Selector) []*corev1.Pod {
	if sel != nil {
		if node, ok := sel.RequiresExactMatch("spec.nodeName"); ok {
			if node == "" {
				return k.pending
			}
			k.byNodeOnce.Do(func() {
				k.byNode = map[string][]*corev1.Pod{}
				for _, p := range k.pods {
					k.byNode[p.Spec.NodeName] = append(k.byNode[p.Spec.NodeName], p)
				}
			})
			return k.byNode[node]
		}
	}
	if len(k.pending) == 0 {
		return k.pods
	}
	return append(k.pods[:len(k.pods):len(k.pods)], k.pending...)
}
