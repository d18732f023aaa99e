package differential

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	kdisruption "sigs.k8s.io/karpenter/pkg/controllers/disruption"
	nodeclaimdisruption "sigs.k8s.io/karpenter/pkg/controllers/nodeclaim/disruption"
	nodepoolhash "sigs.k8s.io/karpenter/pkg/controllers/nodepool/hash"
	nodepoolreadiness "sigs.k8s.io/karpenter/pkg/controllers/nodepool/readiness"
	nodepoolvalidation "sigs.k8s.io/karpenter/pkg/controllers/nodepool/validation"
	"sigs.k8s.io/karpenter/pkg/controllers/provisioning"
	"sigs.k8s.io/karpenter/pkg/controllers/state"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/disruption"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling/schedulingtest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot/snapshottest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// consolidationCommand is a command, as both sides are compared: the
// method, the decision, the candidates' nodes, the replacement's instance
// types (cheapest first) and the estimated savings.
type consolidationCommand struct {
	method, decision string
	nodes            []string
	replacement      []string
	savings          float64
	// moves are where Karpenter's simulation put the candidates' pods on
	// existing nodes (pod name to node), the reference's only.
	moves map[string]string
}

func (c *consolidationCommand) String() string {
	if c == nil {
		return "no command"
	}
	return fmt.Sprintf("%s %s %v -> %v (savings $%.4f/h)", c.method, c.decision, c.nodes, c.replacement, c.savings)
}

func (c *consolidationCommand) equal(o *consolidationCommand) bool {
	if c == nil || o == nil {
		return c == o
	}
	return c.method == o.method && c.decision == o.decision && slices.Equal(c.nodes, o.nodes) && slices.Equal(c.replacement, o.replacement) &&
		math.Abs(c.savings-o.savings) < 1e-9
}

// consolidation is what Karpenter v1.14.1's disruption controller decides
// on the snapshot at at: the NodeClaim disruption controller sets the
// Consolidatable conditions, its informers fill cluster state, and one
// Reconcile of disruption.Controller (NewMethods: Emptiness, StaticDrift,
// Drift, MultiNodeConsolidation, SingleNodeConsolidation) starts the
// command in its queue, the fake clock stepped through the 15 s
// validation wait as Karpenter's own suite steps it.
func (k *karpenter) consolidation(t *testing.T, pool, class, snap string, at time.Time) *consolidationCommand {
	t.Helper()
	ctx := k.ctx
	kube := fakeKube()
	cp := k.cloudProvider(kube)
	k.reconcileClass(t, kube, cp, []byte(class))
	np := storedPool(t, pool)
	np.Annotations = map[string]string{karpv1.NodePoolHashVersionAnnotationKey: karpv1.NodePoolHashVersion}
	must(t, kube.Create(ctx, np))
	clk := clocktesting.NewFakeClock(at)
	for _, reconcile := range []func(context.Context, *karpv1.NodePool) error{
		func(ctx context.Context, np *karpv1.NodePool) error {
			_, err := nodepoolhash.NewController(kube, cp).Reconcile(ctx, np)
			return err
		},
		func(ctx context.Context, np *karpv1.NodePool) error {
			_, err := nodepoolvalidation.NewController(clk, kube, cp).Reconcile(ctx, np)
			return err
		},
		func(ctx context.Context, np *karpv1.NodePool) error {
			_, err := nodepoolreadiness.NewController(clk, kube, cp).Reconcile(ctx, np)
			return err
		},
	} {
		latest := &karpv1.NodePool{}
		must(t, kube.Get(ctx, client.ObjectKeyFromObject(np), latest))
		must(t, reconcile(ctx, latest))
	}
	cluster := state.NewCluster(clk, kube, cp)
	loadSnapshot(t, ctx, kube, cp, cluster, snap)
	for _, p := range snapshot.Parse(snap).PDBs {
		must(t, kube.Create(ctx, p.DeepCopy()))
	}
	ncController := nodeclaimdisruption.NewController(clk, kube, staticDrift{cp})
	var claims karpv1.NodeClaimList
	must(t, kube.List(ctx, &claims))
	for i := range claims.Items {
		nc := &claims.Items[i]
		if _, err := ncController.Reconcile(ctx, nc); err != nil {
			t.Fatalf("NodeClaim %s: %v", nc.Name, err)
		}
		// The controller sets the conditions on nc; the fake client has
		// no NodeClaim status subresource, so they are written whole.
		must(t, kube.Update(ctx, nc))
		cluster.UpdateNodeClaim(nc)
	}
	prov := provisioning.NewProvisioner(kube, k.recorder, cp, cluster, clk, nil, nil)
	queue := kdisruption.NewQueue(kube, k.recorder, cluster, clk, prov)
	controller := kdisruption.NewController(clk, kube, prov, cp, k.recorder, cluster, queue, nil)
	done := make(chan error, 1)
	go func() {
		_, err := controller.Reconcile(ctx)
		done <- err
	}()
	for waiting := true; waiting; {
		select {
		case err := <-done:
			must(t, err)
			waiting = false
		case <-time.After(time.Millisecond):
			if clk.HasWaiters() {
				clk.Step(15 * time.Second)
			}
		}
	}
	var cmd *kdisruption.Command
	for _, c := range queue.ProviderIDToCommand {
		cmd = c
	}
	if cmd == nil {
		return nil
	}
	out := &consolidationCommand{method: cmd.ConsolidationType(), decision: string(cmd.Decision()), savings: cmd.EstimatedSavings(), moves: map[string]string{}}
	for _, e := range cmd.Results.ExistingNodes {
		for _, p := range e.Pods {
			out.moves[p.Name] = e.Name()
		}
	}
	for _, c := range cmd.Candidates {
		out.nodes = append(out.nodes, c.Node.Name)
	}
	slices.Sort(out.nodes)
	for _, r := range cmd.Replacements {
		for _, it := range r.InstanceTypeOptions.OrderByPrice(r.Requirements) {
			out.replacement = append(out.replacement, it.Name)
		}
	}
	return out
}

// predicted are the commands package disruption predicts, bound at most.
func predicted(t *testing.T, e *schedulingtest.Emulator, pool, class, snap string, at time.Time, bound int) []*consolidationCommand {
	t.Helper()
	p := scheduling.Parse(scheduling.Input{Karpenter: []string{pool, class}})
	its, _ := p.InstanceTypes(context.Background(), e.Facts(t, p))
	c, findings := disruption.Consolidate(context.Background(), disruption.Input{Karpenter: []string{pool, class}, Cluster: snapshot.Parse(snap), At: at,
		Version: versions.DefaultKarpenter}, disruption.ConsolidationInput{InstanceTypes: its, Bound: bound})
	if len(findings) > 0 {
		t.Fatalf("findings: %v", findings)
	}
	var out []*consolidationCommand
	for _, cmd := range c.Commands {
		o := &consolidationCommand{method: cmd.Method, decision: cmd.Decision, savings: cmd.Savings}
		for _, cn := range cmd.Candidates {
			o.nodes = append(o.nodes, cn.Node)
		}
		slices.Sort(o.nodes)
		for _, r := range cmd.Replacements {
			o.replacement = append(o.replacement, r.InstanceTypes...)
		}
		out = append(out, o)
	}
	return out
}

type consolidationScenario struct {
	name   string
	budget string // the pool's spec.disruption
	nodes  []snapshottest.Node
	pods   []snapshottest.Pod
	pdbs   []snapshottest.PDB
	at     time.Time
	// want is the predicted command's method and decision ("" for none).
	want string
}

func consolidationScenarios() []consolidationScenario {
	node := func(name, it string) snapshottest.Node {
		cpu := map[string]string{"m5.large": "1930m", "m5.xlarge": "3920m"}[it]
		return snapshottest.Node{Name: name, Pool: "general", Class: "default", InstanceType: it, Zone: "us-east-1a", CPU: cpu, Memory: "7Gi", Pods: 29}
	}
	pod := func(name, on, cpu string) snapshottest.Pod {
		return snapshottest.Pod{Namespace: "default", Name: name, Node: on, CPU: cpu, Memory: "256Mi", Labels: map[string]string{"app": name}}
	}
	open := "  disruption:\n    consolidateAfter: 0s\n    budgets:\n      - nodes: \"100%\"\n"
	later := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	soon := snapshottest.Created.Add(30 * time.Minute)
	fleet := []snapshottest.Node{node("a", "m5.xlarge"), node("b", "m5.xlarge"), node("c", "m5.xlarge")}
	small := []snapshottest.Pod{pod("p1", "b", "500m"), pod("p2", "c", "500m")}
	return []consolidationScenario{
		{name: "one empty node", budget: open, nodes: fleet, pods: small, at: later, want: "empty delete"},
		{name: "two empty nodes at once", budget: open, nodes: fleet, pods: small[:1], at: later, want: "empty delete"},
		{name: "empty node, default budget 10%", budget: "  disruption:\n    consolidateAfter: 0s\n", nodes: fleet, pods: small, at: later, want: "empty delete"},
		{name: "underused nodes: multi-node", budget: open, nodes: fleet, pods: append(small, pod("p3", "a", "500m")), at: later, want: "multi replace"},
		{name: "underused nodes: multi-node delete", budget: open, at: later, want: "multi delete",
			nodes: []snapshottest.Node{node("a", "m5.xlarge"), node("b", "m5.xlarge"), node("c", "m5.xlarge"), node("d", "m5.xlarge")},
			// c and d run two pods each: a lower savings ratio than a and
			// b, so no tie leaves the order to Go's map.
			pods: []snapshottest.Pod{pod("p1", "a", "2500m"), pod("p2", "b", "2500m"), pod("p3", "c", "500m"), pod("p4", "d", "500m"),
				pod("p5", "c", "500m"), pod("p6", "d", "500m")}},
		{name: "one oversized node: single-node replace", budget: open, nodes: []snapshottest.Node{node("big", "m5.xlarge")}, pods: []snapshottest.Pod{pod("p1", "big", "500m")}, at: later, want: "single replace"},
		{name: "do-not-disrupt pod", budget: open, nodes: []snapshottest.Node{node("big", "m5.xlarge")}, at: later,
			pods: []snapshottest.Pod{{Namespace: "default", Name: "train", Node: "big", CPU: "500m", Memory: "256Mi", Annotations: map[string]string{karpv1.DoNotDisruptAnnotationKey: "true"}}}},
		{name: "pdb allows no disruption", budget: open, nodes: []snapshottest.Node{node("big", "m5.xlarge")}, pods: []snapshottest.Pod{pod("db", "big", "500m")}, at: later,
			pdbs: []snapshottest.PDB{{Namespace: "default", Name: "db", Labels: map[string]string{"app": "db"}}}},
		{name: "budget of 0", budget: "  disruption:\n    consolidateAfter: 0s\n    budgets:\n      - nodes: \"0\"\n", nodes: fleet, pods: small, at: later},
		{name: "WhenEmpty leaves underused nodes", budget: "  disruption:\n    consolidationPolicy: WhenEmpty\n    consolidateAfter: 0s\n    budgets:\n      - nodes: \"100%\"\n",
			nodes: fleet[1:], pods: small, at: later},
		{name: "WhenEmpty deletes the empty node", budget: "  disruption:\n    consolidationPolicy: WhenEmpty\n    consolidateAfter: 0s\n    budgets:\n      - nodes: \"100%\"\n",
			nodes: fleet, pods: small, at: later, want: "empty delete"},
		{name: "consolidateAfter not yet elapsed", budget: "  disruption:\n    consolidateAfter: 1h\n    budgets:\n      - nodes: \"100%\"\n", nodes: fleet, pods: small, at: soon},
		{name: "consolidateAfter elapsed", budget: "  disruption:\n    consolidateAfter: 1h\n    budgets:\n      - nodes: \"100%\"\n", nodes: fleet, pods: small, at: later, want: "empty delete"},
		// Budgets with schedules, at 12:00 UTC: a freeze from 09:00 for 8h
		// is active, one from 20:00 is not.
		{name: "scheduled budget of 0, active", budget: "  disruption:\n    consolidateAfter: 0s\n    budgets:\n      - nodes: \"0\"\n        schedule: \"0 9 * * *\"\n        duration: 8h\n      - nodes: \"100%\"\n",
			nodes: fleet, pods: small, at: later},
		{name: "scheduled budget of 0, outside its window", budget: "  disruption:\n    consolidateAfter: 0s\n    budgets:\n      - nodes: \"0\"\n        schedule: \"0 20 * * *\"\n        duration: 8h\n      - nodes: \"100%\"\n",
			nodes: fleet, pods: small, at: later, want: "empty delete"},
		// A budget of 0 for drift only does not hold consolidation back.
		{name: "budget of 0 for Drifted only", budget: "  disruption:\n    consolidateAfter: 0s\n    budgets:\n      - nodes: \"0\"\n        reasons: [\"Drifted\"]\n      - nodes: \"100%\"\n",
			nodes: fleet, pods: small, at: later, want: "empty delete"},
	}
}

// TestConsolidationMatchesKarpenter: on 16 snapshots (empty and underused
// nodes, single- and multi-node, do-not-disrupt, a PDB, a budget of 0,
// budgets with schedules and reasons, WhenEmpty, consolidateAfter) the first consolidation command predicted
// equals the command Karpenter v1.14.1's disruption controller starts on
// the same state: method, decision, candidates, replacement instance
// types and estimated savings.
func TestConsolidationMatchesKarpenter(t *testing.T) {
	e := schedulingtest.Start(t, nil)
	class := nodeClass("default", "al2023@latest", "")
	families := requirement("karpenter.k8s.aws/instance-family", "In", "m5", "c5")
	for _, sc := range consolidationScenarios() {
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
			pool := nodePool("general", "default", sc.budget, families)
			ref := newKarpenter(t, e.URL).consolidation(t, pool, class, snap, sc.at)
			var got *consolidationCommand
			if cmds := predicted(t, e, pool, class, snap, sc.at, 1); len(cmds) > 0 {
				got = cmds[0]
			}
			if !got.equal(ref) {
				t.Errorf("first command:\n predicted %v\n Karpenter %v", got, ref)
			}
			what := ""
			if got != nil {
				what = got.method + " " + got.decision
			}
			if what != sc.want {
				t.Errorf("predicted %q, the scenario is about %q", what, cmp.Or(sc.want, "no command"))
			}
		})
	}
}

// TestConsolidationLoopMatchesKarpenter: the command loop. The reference
// applies each command Karpenter's controller starts to the snapshot
// itself (the candidates' nodes removed, their pods where Karpenter's
// simulation put them) and runs a fresh controller on the result; the
// predicted sequence equals the controller's, command by command, up to
// the first replacement (the launched node's facts are the prediction's to
// make up, so the reference stops there).
func TestConsolidationLoopMatchesKarpenter(t *testing.T) {
	e := schedulingtest.Start(t, nil)
	class := nodeClass("default", "al2023@latest", "")
	families := requirement("karpenter.k8s.aws/instance-family", "In", "m5", "c5")
	node := func(name string) snapshottest.Node {
		return snapshottest.Node{Name: name, Pool: "general", Class: "default", InstanceType: "m5.xlarge", Zone: "us-east-1a", CPU: "3920m", Memory: "14Gi", Pods: 58}
	}
	pod := func(name, on, cpu string) snapshottest.Pod {
		return snapshottest.Pod{Namespace: "default", Name: name, Node: on, CPU: cpu, Memory: "256Mi"}
	}
	at := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	for _, sc := range []struct {
		name, budget string
		nodes        []snapshottest.Node
		pods         []snapshottest.Pod
		want         int
	}{
		{name: "one node at a time", budget: "  disruption:\n    consolidateAfter: 0s\n    budgets:\n      - nodes: \"1\"\n", want: 4,
			nodes: []snapshottest.Node{node("a"), node("b"), node("c"), node("d"), node("e")},
			// One, two, four and five pods: distinct savings ratios at every
			// step, also once b's pod has moved to c (Karpenter orders equal
			// ones by Go map order: three and three was a coin).
			pods: []snapshottest.Pod{pod("p1", "b", "1500m"), pod("p2", "c", "500m"), pod("p3", "c", "500m"), pod("p4", "d", "200m"), pod("p5", "d", "200m"),
				pod("p6", "d", "200m"), pod("p11", "d", "200m"), pod("p7", "e", "500m"), pod("p8", "e", "500m"), pod("p9", "e", "500m"), pod("p10", "e", "500m"),
				pod("p12", "e", "500m")}},
		{name: "all at once", budget: "  disruption:\n    consolidateAfter: 0s\n    budgets:\n      - nodes: \"100%\"\n", want: 2,
			nodes: []snapshottest.Node{node("a"), node("b"), node("c"), node("d"), node("e")},
			pods: []snapshottest.Pod{pod("p1", "b", "2"), pod("p2", "c", "1"), pod("p3", "c", "1"), pod("p4", "d", "500m"), pod("p5", "d", "500m"),
				pod("p6", "d", "500m"), pod("p7", "e", "3")}},
	} {
		t.Run(sc.name, func(t *testing.T) {
			pool := nodePool("general", "default", sc.budget, families)
			nodes, pods := slices.Clone(sc.nodes), slices.Clone(sc.pods)
			var ref []*consolidationCommand
			replaced := false
			for range 10 {
				l := &snapshottest.List{}
				for _, n := range nodes {
					l.Add(n)
				}
				for _, p := range pods {
					l.AddPod(p)
				}
				cmd := newKarpenter(t, e.URL).consolidation(t, pool, class, l.YAML(), at)
				if cmd == nil {
					break
				}
				ref = append(ref, cmd)
				if cmd.decision != "delete" {
					// The launched node is the prediction's to make up:
					// the reference stops at a replacement.
					replaced = true
					break
				}
				nodes = slices.DeleteFunc(nodes, func(n snapshottest.Node) bool { return slices.Contains(cmd.nodes, n.Name) })
				pods = slices.DeleteFunc(pods, func(p snapshottest.Pod) bool {
					return slices.Contains(cmd.nodes, p.Node) && cmd.moves[p.Name] == ""
				})
				for i, p := range pods {
					if to := cmd.moves[p.Name]; to != "" {
						pods[i].Node = to
					}
				}
			}
			l := &snapshottest.List{}
			for _, n := range sc.nodes {
				l.Add(n)
			}
			for _, p := range sc.pods {
				l.AddPod(p)
			}
			got := predicted(t, e, pool, class, l.YAML(), at, 10)
			if replaced && len(got) > len(ref) {
				got = got[:len(ref)]
			}
			if len(got) != len(ref) || len(ref) != sc.want {
				t.Errorf("%d commands predicted, Karpenter %d, the scenario %d:\n predicted %v\n Karpenter %v", len(got), len(ref), sc.want, got, ref)
				return
			}
			for i := range ref {
				if !got[i].equal(ref[i]) {
					t.Errorf("command %d:\n predicted %v\n Karpenter %v", i+1, got[i], ref[i])
				}
			}
		})
	}
}
