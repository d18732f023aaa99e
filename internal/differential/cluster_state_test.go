package differential

import (
	"context"
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
	"sigs.k8s.io/karpenter/pkg/controllers/state/informer"
	nodeclaimutils "sigs.k8s.io/karpenter/pkg/utils/nodeclaim"

	awscloudprovider "github.com/aws/karpenter-provider-aws/pkg/cloudprovider"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling/schedulingtest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot/snapshottest"
)

// loadSnapshot puts a snapshot's objects in the API server and fills
// Karpenter's cluster state from them as its informers do
// (pkg/controllers/state/informer: the NodeClaim controller's
// UpdateNodeClaim for the NodeClaims the cloud provider manages, the Node
// and Pod controllers' Reconcile). The reference reads the List with its
// own decoding, not package snapshot's.
func loadSnapshot(t *testing.T, ctx context.Context, kube client.Client, cp *awscloudprovider.CloudProvider, cluster *state.Cluster, snap string) {
	t.Helper()
	var list struct {
		Items []map[string]any `json:"items"`
	}
	mustDecode(t, []byte(snap), &list)
	var claims []*karpv1.NodeClaim
	var nodes, pods []types.NamespacedName
	for _, item := range list.Items {
		raw := mustJSON(t, item)
		switch item["kind"] {
		case "Node":
			n := &corev1.Node{}
			mustDecode(t, raw, n)
			must(t, kube.Create(ctx, n))
			nodes = append(nodes, types.NamespacedName{Name: n.Name})
		case "NodeClaim":
			nc := &karpv1.NodeClaim{}
			mustDecode(t, raw, nc)
			must(t, kube.Create(ctx, nc))
			claims = append(claims, nc)
		case "Pod":
			p := &corev1.Pod{}
			mustDecode(t, raw, p)
			must(t, kube.Create(ctx, p))
			pods = append(pods, types.NamespacedName{Namespace: p.Namespace, Name: p.Name})
		case "PodDisruptionBudget":
			// created by the caller that needs them
		default:
			t.Fatalf("the reference's snapshot reads no %v", item["kind"])
		}
	}
	for _, nc := range claims {
		if nodeclaimutils.IsManaged(nc, cp) {
			cluster.UpdateNodeClaim(nc)
		}
	}
	nodeController, podController := informer.NewNodeController(kube, cluster), informer.NewPodController(kube, cluster)
	for _, n := range nodes {
		if _, err := nodeController.Reconcile(ctx, reconcile.Request{NamespacedName: n}); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range pods {
		if _, err := podController.Reconcile(ctx, reconcile.Request{NamespacedName: p}); err != nil {
			t.Fatal(err)
		}
	}
}

// clusterScenario is a scheduling scenario on a running cluster.
type clusterScenario struct {
	schedulingScenario
	snapshot string
}

func clusterScenarios() []clusterScenario {
	xlarge := func(name, zone string, taints ...corev1.Taint) snapshottest.Node {
		return snapshottest.Node{Name: name, Pool: "default", Class: "default", InstanceType: "m5.xlarge", Zone: zone, CPU: "3920m", Memory: "14Gi", Pods: 58, Taints: taints}
	}
	class := nodeClass("default", "al2023@latest", "")
	pool := nodePool("default", "default", "", "")
	// Two nodes with room for 3 and 1 pods of 1 CPU.
	partly := (&snapshottest.List{}).Add(xlarge("ip-10-0-1-1", "us-east-1a")).Add(xlarge("ip-10-0-1-2", "us-east-1b")).
		AddPod(snapshottest.Pod{Namespace: "default", Name: "old-1", Node: "ip-10-0-1-2", CPU: "2500m", Memory: "1Gi"}).YAML()
	tainted := (&snapshottest.List{}).Add(xlarge("ip-10-0-1-1", "us-east-1a", corev1.Taint{Key: "dedicated", Value: "batch", Effect: corev1.TaintEffectNoSchedule})).YAML()
	full := (&snapshottest.List{}).Add(xlarge("ip-10-0-1-1", "us-east-1a")).
		AddPod(snapshottest.Pod{Namespace: "default", Name: "old-1", Node: "ip-10-0-1-1", CPU: "3500m", Memory: "1Gi"}).YAML()
	anti := (&snapshottest.List{}).Add(xlarge("ip-10-0-1-1", "us-east-1a")).Add(xlarge("ip-10-0-1-2", "us-east-1b")).
		AddPod(snapshottest.Pod{Namespace: "default", Name: "web-old", Node: "ip-10-0-1-1", CPU: "100m", Memory: "100Mi", Labels: map[string]string{"app": "web"}}).YAML()
	antiAffinity := "      affinity:\n        podAntiAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n" +
		"            - topologyKey: kubernetes.io/hostname\n              labelSelector:\n                matchLabels:\n                  app: web\n"
	existing := func(node string, n int) func(*testing.T, *scheduling.Decision) {
		return func(t *testing.T, d *scheduling.Decision) {
			t.Helper()
			got := 0
			for _, w := range d.Workloads {
				got += w.ExistingNodes[node]
			}
			if got != n {
				t.Errorf("%d pods on %s, want %d: %+v", got, node, n, d.Workloads)
			}
		}
	}
	return []clusterScenario{
		{schedulingScenario{name: "existing nodes first", pools: []string{pool}, classes: []string{class},
			workloads: []string{deployment("web", 6, "1", "100Mi", "")},
			check:     all(existing("ip-10-0-1-1", 3), existing("ip-10-0-1-2", 1), scheduled("default", 2))}, partly},
		{schedulingScenario{name: "tainted existing node", pools: []string{pool}, classes: []string{class},
			workloads: []string{deployment("web", 2, "1", "100Mi", "")},
			check:     all(existing("ip-10-0-1-1", 0), scheduled("default", 2))}, tainted},
		{schedulingScenario{name: "full existing node", pools: []string{pool}, classes: []string{class},
			workloads: []string{deployment("web", 2, "1", "100Mi", "")},
			check:     all(existing("ip-10-0-1-1", 0), scheduled("default", 2))}, full},
		{schedulingScenario{name: "zone selector off the existing node", pools: []string{pool}, classes: []string{class},
			workloads: []string{deployment("web", 2, "1", "100Mi", "      nodeSelector:\n        topology.kubernetes.io/zone: us-east-1b\n")},
			check:     all(existing("ip-10-0-1-1", 0), existing("ip-10-0-1-2", 1), scheduled("default", 1))}, partly},
		{schedulingScenario{name: "hostname anti-affinity with a running pod", pools: []string{pool}, classes: []string{class},
			workloads: []string{deployment("web", 3, "100m", "100Mi", antiAffinity)},
			check:     all(existing("ip-10-0-1-1", 0), existing("ip-10-0-1-2", 1), scheduled("default", 2))}, anti},
	}
}

// TestSchedulingOnClusterStateMatchesKarpenter: pods that fit on the
// snapshot's nodes make no NodeClaim, as Karpenter's provisioner decides
// with those nodes in its cluster state. Karpenter tries its existing
// nodes in Go map order: each scenario has one answer whatever the order.
func TestSchedulingOnClusterStateMatchesKarpenter(t *testing.T) {
	e := schedulingtest.Start(t, nil)
	for _, sc := range clusterScenarios() {
		t.Run(sc.name, func(t *testing.T) {
			ref := newKarpenter(t, e.URL).scheduleOn(t, sc.pools, sc.classes, sc.workloads, sc.snapshot)
			p := scheduling.Parse(scheduling.Input{NodePools: sc.pools, NodeClasses: sc.classes, Workloads: sc.workloads, ClusterState: sc.snapshot})
			d, err := p.Decide(context.Background(), e.Facts(t, p))
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range d.Findings {
				t.Errorf("finding: %s", f)
			}
			compareDecisions(t, d, ref)
			sc.check(t, d)
		})
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
