package differential

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	kdisruption "sigs.k8s.io/karpenter/pkg/controllers/disruption"
	nodeclaimdisruption "sigs.k8s.io/karpenter/pkg/controllers/nodeclaim/disruption"
	nodepoolhash "sigs.k8s.io/karpenter/pkg/controllers/nodepool/hash"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
	"sigs.k8s.io/karpenter/pkg/utils/pdb"
	sigsyaml "sigs.k8s.io/yaml"

	awscloudprovider "github.com/aws/karpenter-provider-aws/pkg/cloudprovider"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/crd"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/disruption"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/drift"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot/snapshottest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// staticDrift is karpenter-provider-aws's cloud provider with its own
// drift checks (images, subnets, security groups, capacity reservations,
// placement group: the instance's facts, which a snapshot does not hold)
// answered "not drifted", so that Karpenter's NodeClaim disruption
// controller decides what the prediction decides: core's static and
// requirements drift and its instance-type check.
type staticDrift struct {
	*awscloudprovider.CloudProvider
}

func (staticDrift) IsDrifted(context.Context, *karpv1.NodeClaim) (cloudprovider.DriftReason, error) {
	return "", nil
}

// storedPool is a NodePool as the API server stores it (the CRD's
// defaults), in Karpenter's type.
func storedPool(t *testing.T, doc string) *karpv1.NodePool {
	t.Helper()
	var m manifest.NodePool
	if err := sigsyaml.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatal(err)
	}
	o, err := manifest.Object(m)
	if err != nil {
		t.Fatal(err)
	}
	res, err := crd.NodePool.Validate(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	np := &karpv1.NodePool{}
	mustDecode(t, mustJSON(t, res.Object), np)
	return np
}

// refDisruption is what Karpenter's controllers decide on the snapshot:
// the Drifted condition's reason per NodeClaim (the NodePool hash
// controller having annotated the pool), the allowed drift disruptions
// per pool (BuildDisruptionBudgetMapping), and per drifted node whether
// it may be disrupted (StateNode ValidateNodeDisruptable and
// ValidatePodsDisruptable with pdb.NewLimits).
type refDisruption struct {
	drifted map[string]string // NodeClaim -> reason
	allowed map[string]int
	blocked map[string]bool // NodeClaim -> not disruptable
}

func (k *karpenter) disruption(t *testing.T, pool string, class string, snap string, at time.Time) refDisruption {
	t.Helper()
	ctx := k.ctx
	kube := fakeKube()
	cp := k.cloudProvider(kube)
	k.reconcileClass(t, kube, cp, []byte(class))
	np := storedPool(t, pool)
	// On a running cluster the pool carries the hash version already
	// (else the hash controller re-hashes every NodeClaim first).
	np.Annotations = map[string]string{karpv1.NodePoolHashVersionAnnotationKey: karpv1.NodePoolHashVersion}
	must(t, kube.Create(ctx, np))
	if _, err := nodepoolhash.NewController(kube, cp).Reconcile(ctx, np); err != nil {
		t.Fatal(err)
	}
	clk := clocktesting.NewFakeClock(at)
	cluster := state.NewCluster(clk, kube, cp)
	loadSnapshot(t, ctx, kube, cp, cluster, snap)
	for _, p := range snapshot.Parse(snap).PDBs {
		must(t, kube.Create(ctx, p.DeepCopy()))
	}
	ref := refDisruption{drifted: map[string]string{}, blocked: map[string]bool{}}
	controller := nodeclaimdisruption.NewController(clk, kube, staticDrift{cp})
	var claims karpv1.NodeClaimList
	must(t, kube.List(ctx, &claims))
	for i := range claims.Items {
		nc := &claims.Items[i]
		// The controller sets the condition on nc before it patches.
		if _, err := controller.Reconcile(ctx, nc); err != nil {
			t.Fatalf("NodeClaim %s: %v", nc.Name, err)
		}
		if c := nc.StatusConditions().Get(karpv1.ConditionTypeDrifted); c.IsTrue() {
			ref.drifted[nc.Name] = c.Reason
		}
	}
	limits, err := pdb.NewLimits(ctx, kube)
	must(t, err)
	for n := range cluster.Nodes() {
		if n.NodeClaim == nil || ref.drifted[n.NodeClaim.Name] == "" {
			continue
		}
		err := n.ValidateNodeDisruptable(clk)
		if err == nil {
			_, err = n.ValidatePodsDisruptable(ctx, kube, limits, clk, k.recorder)
		}
		ref.blocked[n.NodeClaim.Name] = err != nil
	}
	ref.allowed, err = kdisruption.BuildDisruptionBudgetMapping(ctx, cluster, clk, kube, cp, k.recorder, karpv1.DisruptionReasonDrifted)
	must(t, err)
	return ref
}

type disruptionScenario struct {
	name  string
	pool  string
	nodes []snapshottest.Node
	pods  []snapshottest.Pod
	pdbs  []snapshottest.PDB
	at    time.Time
	// want is what the scenario is about, on the prediction: drifted
	// NodeClaims, candidates, allowed at once.
	drifted, candidates, allowed int
}

func disruptionScenarios(t *testing.T) []disruptionScenario {
	pool := func(budgets, reqs string) string {
		p := nodePool("general", "default", budgets, reqs)
		return p
	}
	families := func(fs ...string) string { return requirement("karpenter.k8s.aws/instance-family", "In", fs...) }
	var m manifest.NodePool
	base := pool("", families("m5", "c5"))
	if err := sigsyaml.Unmarshal([]byte(base), &m); err != nil {
		t.Fatal(err)
	}
	hash, err := drift.NodePoolHash(m.Spec, versions.DefaultKarpenter)
	if err != nil {
		t.Fatal(err)
	}
	node := func(name, it, h string) snapshottest.Node {
		return snapshottest.Node{Name: name, Pool: "general", Class: "default", InstanceType: it, Zone: "us-east-1a", CPU: "1930m", Memory: "7Gi", Pods: 29, PoolHash: h}
	}
	fleet := func(n int, it, h string) []snapshottest.Node {
		var out []snapshottest.Node
		for i := range n {
			out = append(out, node(fmt.Sprintf("n%02d", i), it, h))
		}
		return out
	}
	saturday := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	monday := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	budgets := func(b string) string { return "  disruption:\n    consolidateAfter: 0s\n    budgets:\n" + b }
	window := budgets("      - nodes: \"3\"\n      - nodes: \"0\"\n        schedule: \"0 9 * * mon-fri\"\n        duration: 8h\n")
	driftOnly := budgets("      - nodes: \"0\"\n        reasons: [Drifted]\n      - nodes: \"100%\"\n")
	pct := budgets("      - nodes: \"25%\"\n")
	return []disruptionScenario{
		{name: "nothing drifted", pool: base, nodes: fleet(4, "m5.large", hash), at: saturday, allowed: 1},
		{name: "hash drift, default budget 10%", pool: base, nodes: fleet(10, "m5.large", "1"), at: saturday, drifted: 10, candidates: 10, allowed: 1},
		{name: "hash drift, default budget rounds up", pool: base, nodes: fleet(11, "m5.large", "1"), at: saturday, drifted: 11, candidates: 11, allowed: 2},
		{name: "requirements drift", pool: base, nodes: append(fleet(3, "m5.large", hash), node("r", "r5.large", hash)), at: saturday, drifted: 1, candidates: 1, allowed: 1},
		{name: "hash version differs: no hash drift", pool: base, nodes: []snapshottest.Node{{Name: "v", Pool: "general", Class: "default", InstanceType: "m5.large", Zone: "us-east-1a", CPU: "1", Memory: "1Gi", Pods: 10,
			PoolHash: "1", Annotations: map[string]string{karpv1.NodePoolHashVersionAnnotationKey: "v2"}}}, at: saturday, allowed: 1},
		{name: "budget window closed", pool: pool(window, families("m5", "c5")), nodes: fleet(6, "m5.large", "1"), at: monday, drifted: 6, candidates: 6, allowed: 0},
		{name: "budget window open", pool: pool(window, families("m5", "c5")), nodes: fleet(6, "m5.large", "1"), at: saturday, drifted: 6, candidates: 6, allowed: 3},
		{name: "budget for drift only", pool: pool(driftOnly, families("m5", "c5")), nodes: fleet(4, "m5.large", "1"), at: saturday, drifted: 4, candidates: 4, allowed: 0},
		{name: "percentage budget", pool: pool(pct, families("m5", "c5")), nodes: fleet(8, "m5.large", "1"), at: saturday, drifted: 8, candidates: 8, allowed: 2},
		{name: "pdb blocks one", pool: base, nodes: fleet(3, "m5.large", "1"), at: saturday, drifted: 3, candidates: 2, allowed: 1,
			pods: []snapshottest.Pod{{Namespace: "db", Name: "db-0", Node: "n01", CPU: "1", Memory: "1Gi", Labels: map[string]string{"app": "db"}}},
			pdbs: []snapshottest.PDB{{Namespace: "db", Name: "db", Labels: map[string]string{"app": "db"}}}},
		{name: "pdb with room blocks none", pool: base, nodes: fleet(3, "m5.large", "1"), at: saturday, drifted: 3, candidates: 3, allowed: 1,
			pods: []snapshottest.Pod{{Namespace: "db", Name: "db-0", Node: "n01", CPU: "1", Memory: "1Gi", Labels: map[string]string{"app": "db"}}},
			pdbs: []snapshottest.PDB{{Namespace: "db", Name: "db", Labels: map[string]string{"app": "db"}, MaxUnavailable: 1, DisruptionsAllowed: 1}}},
		{name: "do-not-disrupt pod", pool: base, nodes: fleet(2, "m5.large", "1"), at: saturday, drifted: 2, candidates: 1, allowed: 1,
			pods: []snapshottest.Pod{{Namespace: "batch", Name: "train", Node: "n00", CPU: "1", Memory: "1Gi", Annotations: map[string]string{karpv1.DoNotDisruptAnnotationKey: "true"}}}},
		{name: "do-not-disrupt node", pool: base, at: saturday, drifted: 2, candidates: 1, allowed: 1,
			nodes: []snapshottest.Node{node("a", "m5.large", "1"), {Name: "b", Pool: "general", Class: "default", InstanceType: "m5.large", Zone: "us-east-1a", CPU: "1", Memory: "1Gi", Pods: 10,
				PoolHash: "1", Annotations: map[string]string{karpv1.DoNotDisruptAnnotationKey: "true"}}}},
		{name: "hash and requirements drift together", pool: base, nodes: []snapshottest.Node{node("a", "r5.large", "1"), node("b", "m5.large", "1"), node("c", "m5.large", hash)},
			at: saturday, drifted: 2, candidates: 2, allowed: 1},
		{name: "requirements narrowed to one family", pool: pool("", families("c5")), nodes: append(fleet(5, "m5.large", ""), node("c", "c5.large", "")),
			at: saturday, drifted: 5, candidates: 5, allowed: 1},
	}
}

// TestDisruptionMatchesKarpenter: on 15 snapshots the drift set (NodeClaim
// and reason), the drifted nodes Karpenter may disrupt and the drift budget
// at the instant equal what Karpenter v1.14.1's NodeClaim disruption
// controller, cluster state and BuildDisruptionBudgetMapping decide.
func TestDisruptionMatchesKarpenter(t *testing.T) {
	url, _ := awsemutest.Start(t)
	class := nodeClass("default", "al2023@latest", "")
	for _, sc := range disruptionScenarios(t) {
		t.Run(sc.name, func(t *testing.T) {
			l := &snapshottest.List{}
			for _, n := range sc.nodes {
				l.Add(n)
			}
			for _, p := range sc.pods {
				l.AddPod(p)
			}
			for _, p := range sc.pdbs {
				l.AddPDB(p)
			}
			snap := l.YAML()
			ref := newKarpenter(t, url).disruption(t, sc.pool, class, snap, sc.at)
			plan := disruption.Decide(disruption.Input{Karpenter: []string{sc.pool, class}, Cluster: snapshot.Parse(snap), At: sc.at, Version: versions.DefaultKarpenter})
			if len(plan.Findings) > 0 || len(plan.Pools) != 1 {
				t.Fatalf("%v %v", plan.Findings, plan.Pools)
			}
			pp := plan.Pools[0]
			got, blocked := map[string]string{}, map[string]bool{}
			for _, d := range pp.Drifted {
				got[d.NodeClaim] = d.Reason
				blocked[d.NodeClaim] = d.Blocked != ""
			}
			if !maps.Equal(got, ref.drifted) {
				t.Errorf("drifted:\n engine    %v\n Karpenter %v", sortedPairs(got), sortedPairs(ref.drifted))
			}
			if !maps.Equal(blocked, ref.blocked) {
				t.Errorf("blocked:\n engine    %v\n Karpenter %v", blocked, ref.blocked)
			}
			if pp.Allowed != ref.allowed["general"] {
				t.Errorf("allowed at once: engine %d, Karpenter %d", pp.Allowed, ref.allowed["general"])
			}
			if len(pp.Drifted) != sc.drifted || pp.Candidates != sc.candidates || pp.Allowed != sc.allowed {
				t.Errorf("drifted %d candidates %d allowed %d, want %d %d %d", len(pp.Drifted), pp.Candidates, pp.Allowed, sc.drifted, sc.candidates, sc.allowed)
			}
		})
	}
}

func sortedPairs(m map[string]string) string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, k+"="+m[k])
	}
	return strings.Join(out, " ")
}
