package disruption

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/awslabs/operatorpkg/status"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	kdisruption "sigs.k8s.io/karpenter/pkg/controllers/disruption"
	"sigs.k8s.io/karpenter/pkg/controllers/provisioning"
	pscheduling "sigs.k8s.io/karpenter/pkg/controllers/provisioning/scheduling"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
	"sigs.k8s.io/karpenter/pkg/events"
	kscheduling "sigs.k8s.io/karpenter/pkg/scheduling"
	disruptionutils "sigs.k8s.io/karpenter/pkg/utils/disruption"
	nodeclaimutils "sigs.k8s.io/karpenter/pkg/utils/nodeclaim"

	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot"
)

// Consolidation is what Karpenter's consolidation does next on the
// snapshot: the commands its disruption controller issues one after the
// other, each applied to the cluster before the next is decided.
type Consolidation struct {
	Commands []Command
	// Kept are the nodes left after the last command that Karpenter does
	// not consolidate, and why, in its own words where it has them.
	Kept []Kept
	// Truncated is set when the loop stopped at its bound with a command
	// still to come.
	Truncated bool
	// Chance says where Karpenter decides by chance (Go map order, AWS's
	// choice of instance) and which answer the prediction took.
	Chance []string
}

// Command is one disruption command.
type Command struct {
	// Method is the disruption method: "empty", "multi" or "single"
	// (Karpenter's ConsolidationType); Reason is Empty or Underutilized.
	Method, Reason string
	// Decision is delete or replace.
	Decision string
	// Pools are the NodePools of the candidates.
	Pools      []string
	Candidates []Candidate
	// Replacements are the NodeClaims launched in their place (one at
	// most, as Karpenter consolidates).
	Replacements []Replacement
	// Savings is Karpenter's estimate in dollars per hour
	// (Command.EstimatedSavings): the candidates' prices less the
	// replacement's cheapest.
	Savings float64
	// PodsMoved counts the candidates' pods rescheduled.
	PodsMoved int
}

// Candidate is a node a command removes.
type Candidate struct {
	NodeClaim, Node, Pool        string
	InstanceType, Zone, Capacity string
	Price                        float64
}

// Replacement is a NodeClaim a command launches.
type Replacement struct {
	Pool string
	// InstanceTypes are its instance-type options, cheapest first (at most
	// MaxReplacementTypes of them named); Price is the cheapest's.
	InstanceTypes []string
	Options       int
	Price         float64
	// Node is the name the prediction gives the node in later rounds.
	Node string
}

// Kept is a node consolidation leaves.
type Kept struct {
	NodeClaim, Node, Pool string
	Why                   string
}

// MaxReplacementTypes bounds the instance types a replacement lists.
const MaxReplacementTypes = 10

// DefaultBound is how many commands Consolidate predicts at most.
const DefaultBound = 50

// ConsolidationInput is what consolidation is decided from besides the
// Input: the instance types Karpenter's AWS provider lists for each
// NodePool (scheduling.Parsed.InstanceTypes) and a bound on the commands.
type ConsolidationInput struct {
	InstanceTypes map[string][]*cloudprovider.InstanceType
	Bound         int
}

// Consolidate runs Karpenter's consolidation methods (NewMethods' order:
// Emptiness, MultiNodeConsolidation, SingleNodeConsolidation) on the
// snapshot at in.At, applies each command and decides again, until no
// command is left or the bound is reached. Findings say what could not be
// decided.
func Consolidate(ctx context.Context, in Input, ci ConsolidationInput) (out *Consolidation, errs []string) {
	// Karpenter's methods are written for objects the API server has
	// validated; a snapshot it would never hold must not crash the caller.
	defer func() {
		if r := recover(); r != nil {
			out, errs = nil, append(errs, fmt.Sprintf("Karpenter's disruption methods failed on the snapshot (%v), so consolidation is not decided; check the snapshot's objects with kubectl apply --dry-run=server", r))
		}
	}()
	pools, _, errs := read(in.Karpenter)
	if in.Cluster == nil {
		return nil, append(errs, "no cluster state: consolidation is decided on a snapshot")
	}
	if len(ci.InstanceTypes) == 0 {
		return nil, append(errs, "consolidation needs the instance types of the NodePools (the region's, from AWS): not decided")
	}
	bound := cmp.Or(ci.Bound, DefaultBound)
	var karps []*karpv1.NodePool
	for _, name := range sortedKeys(pools) {
		np := pools[name].karp.DeepCopy()
		if _, ok := ci.InstanceTypes[name]; !ok {
			errs = append(errs, fmt.Sprintf("NodePool %s: its instance types are not known (the scheduling decision leaves it out), so Karpenter would not consolidate its nodes", name))
			continue
		}
		// The provisioner schedules with Ready pools only; the scheduling
		// decision admitted this one.
		np.StatusConditions().SetTrue(status.ConditionReady)
		karps = append(karps, np)
	}
	w := &world{at: in.At.UTC(), pools: karps, its: ci.InstanceTypes, snap: cloneSnapshot(in.Cluster)}
	out = &Consolidation{Chance: chance}
	ctx = scheduling.DecisionContext(ctx)
	for i := 0; ; i++ {
		if err := ctx.Err(); err != nil {
			return out, append(errs, "consolidation interrupted: "+err.Error())
		}
		r, err := w.round(ctx)
		if err != nil {
			return out, append(errs, "Karpenter's disruption methods failed on the snapshot: "+err.Error())
		}
		if r.cmd == nil {
			out.Kept = r.kept
			break
		}
		if i == bound {
			out.Truncated = true
			break
		}
		out.Commands = append(out.Commands, w.apply(r, i))
	}
	return out, errs
}

// chance are Karpenter's own coin flips the prediction settles.
var chance = []string{
	"candidates of equal savings ratio (price over disruption cost) are taken in node-name order (Go's sort keeps that order for up to 12 equal ones); Karpenter takes them in Go map order",
	"single-node consolidation visits NodePools in Go map order; with several pools the first command may be another pool's",
	"a replacement is launched as its cheapest instance type and offering; AWS's CreateFleet chooses (lowest price on demand, price-capacity-optimized for spot)",
	"the candidates' pods are rescheduled where Karpenter's simulation put them; kube-scheduler may place them elsewhere",
}

// world is the cluster the loop changes.
type world struct {
	at    time.Time
	pools []*karpv1.NodePool
	its   map[string][]*cloudprovider.InstanceType
	snap  *snapshot.Snapshot
	// made counts the replacement nodes the loop has added.
	made int
}

type roundResult struct {
	cmd    *kdisruption.Command
	method kdisruption.Method
	kept   []Kept
}

// round is one pass of Karpenter's disruption controller
// (Controller.Reconcile and disrupt) over the consolidation methods, on
// state filled from the snapshot as its informers fill it.
func (w *world) round(ctx context.Context) (roundResult, error) {
	kube := scheduling.ClusterClient(w.snap, w.pools)
	cp := &provider{its: w.its}
	clk := clocktesting.NewFakeClock(w.at)
	cluster := state.NewCluster(clk, kube, cp)
	poolOf := map[string]*karpv1.NodePool{}
	for _, np := range w.pools {
		poolOf[np.Name] = np
	}
	for _, nc := range w.snap.NodeClaims {
		if !nodeclaimutils.IsManaged(nc, cp) {
			continue
		}
		nc = nc.DeepCopy()
		consolidatable(poolOf[nc.Labels[karpv1.NodePoolLabelKey]], nc, clk)
		cluster.UpdateNodeClaim(nc)
	}
	for _, n := range w.snap.Nodes {
		if err := cluster.UpdateNode(ctx, n.DeepCopy()); err != nil {
			return roundResult{}, fmt.Errorf("node %s: %w", n.Name, err)
		}
	}
	for _, p := range w.snap.Pods {
		if p.Spec.NodeName != "" {
			_ = cluster.UpdatePod(ctx, p.DeepCopy())
		}
	}
	rec := &recorder{}
	prov := provisioning.NewProvisioner(kube, rec, cp, cluster, clk, nil, nil)
	queue := kdisruption.NewQueue(kube, rec, cluster, clk, prov)
	c := kdisruption.MakeConsolidation(clk, cluster, kube, prov, cp, rec, queue)
	methods := []kdisruption.Method{
		kdisruption.NewEmptiness(c, kdisruption.WithValidator(noWait{kdisruption.NewEmptinessValidator(c)})),
		kdisruption.NewMultiNodeConsolidation(c, kdisruption.WithValidator(noWait{kdisruption.NewMultiConsolidationValidator(c)})),
		kdisruption.NewSingleNodeConsolidation(c, kdisruption.WithValidator(noWait{kdisruption.NewSingleConsolidationValidator(c)})),
	}
	for _, m := range methods {
		candidates, totals, err := kdisruption.GetCandidatesWithTotals(ctx, cluster, kube, rec, clk, cp, m.ShouldDisrupt, m.Class(), queue, nil)
		if err != nil {
			return roundResult{}, fmt.Errorf("determining candidates, %w", err)
		}
		if len(candidates) == 0 {
			continue
		}
		canonical(candidates)
		if setter, ok := m.(kdisruption.NodePoolTotalsSetter); ok {
			setter.SetNodePoolTotals(totals)
		}
		budgets, err := kdisruption.BuildDisruptionBudgetMapping(ctx, cluster, clk, kube, cp, rec, m.Reason())
		if err != nil {
			return roundResult{}, fmt.Errorf("building disruption budgets, %w", err)
		}
		cmds, err := m.ComputeCommands(ctx, budgets, candidates...)
		if err != nil {
			return roundResult{}, fmt.Errorf("computing disruption decision, %w", err)
		}
		for _, cmd := range cmds {
			if cmd.Decision() != kdisruption.NoOpDecision {
				return roundResult{cmd: &cmd, method: m}, nil
			}
		}
	}
	return roundResult{kept: w.kept(ctx, kube, cp, cluster, clk, rec)}, nil
}

// consolidatable sets the NodeClaim's Consolidatable condition as
// Karpenter's NodeClaim disruption controller does
// (pkg/controllers/nodeclaim/disruption/consolidation.go): true once the
// NodePool's consolidateAfter has passed since the last pod event (or the
// NodeClaim's initialization), absent while consolidation is disabled.
func consolidatable(np *karpv1.NodePool, nc *karpv1.NodeClaim, clk *clocktesting.FakeClock) {
	_ = nc.StatusConditions().Clear(karpv1.ConditionTypeConsolidatable)
	if np == nil || np.Spec.Disruption.ConsolidateAfter.Duration == nil || !nc.StatusConditions().Get(karpv1.ConditionTypeInitialized).IsTrue() {
		return
	}
	if disruptionutils.IsUnderConsolidateAfter(np, nc, clk) {
		return
	}
	nc.StatusConditions(status.WithClock(clk)).SetTrue(karpv1.ConditionTypeConsolidatable)
}

// canonical orders equal candidates by name: Karpenter sorts them by
// savings ratio with sort.Slice from Go map order.
func canonical(cs []*kdisruption.Candidate) {
	slices.SortStableFunc(cs, func(a, b *kdisruption.Candidate) int {
		return cmp.Or(cmp.Compare(b.SavingsRatio(), a.SavingsRatio()), cmp.Compare(a.Name(), b.Name()))
	})
}

// noWait is a method's own validator without the 15 s wait
// (commandValidationDelay): a snapshot does not change in those seconds,
// so Karpenter's re-validation is run at once on the same state.
type noWait struct{ kdisruption.Validator }

func (v noWait) Validate(ctx context.Context, cmd kdisruption.Command, _ time.Duration) (kdisruption.Command, error) {
	return v.Validator.Validate(ctx, cmd, 0)
}

// kept says why each node left is not consolidated: the events
// Karpenter's methods published in the last round (DisruptionBlocked,
// Unconsolidatable), the consolidateAfter wait, the budget.
func (w *world) kept(ctx context.Context, kube client.Client, cp *provider, cluster *state.Cluster, clk *clocktesting.FakeClock, rec *recorder) []Kept {
	poolOf := map[string]*karpv1.NodePool{}
	for _, np := range w.pools {
		poolOf[np.Name] = np
	}
	budget := map[string]map[karpv1.DisruptionReason]int{}
	var out []Kept
	for _, n := range cluster.DeepCopyNodes() {
		if n.NodeClaim == nil || n.Node == nil {
			continue
		}
		k := Kept{NodeClaim: n.NodeClaim.Name, Node: n.Node.Name, Pool: n.Labels()[karpv1.NodePoolLabelKey]}
		np := poolOf[k.Pool]
		switch msgs := rec.about(n.Node.UID); {
		case len(msgs) > 0:
			k.Why = strings.Join(msgs, "; ")
		case np == nil:
			k.Why = "its NodePool is not in the configuration, or Karpenter resolves no instance type for it"
		case np.Spec.Disruption.ConsolidateAfter.Duration == nil:
			k.Why = "consolidateAfter is Never: consolidation is disabled"
		case disruptionutils.IsUnderConsolidateAfter(np, n.NodeClaim, clk):
			since := n.NodeClaim.Status.LastPodEventTime.Time
			if since.IsZero() {
				since = n.NodeClaim.StatusConditions().Get(karpv1.ConditionTypeInitialized).LastTransitionTime.Time
			}
			k.Why = fmt.Sprintf("consolidateAfter %s has not passed since its last pod event (%s): consolidatable from %s",
				*np.Spec.Disruption.ConsolidateAfter.Duration, since.UTC().Format(time.RFC3339), since.Add(*np.Spec.Disruption.ConsolidateAfter.Duration).UTC().Format(time.RFC3339))
		default:
			if budget[k.Pool] == nil {
				budget[k.Pool] = map[karpv1.DisruptionReason]int{}
				for _, r := range []karpv1.DisruptionReason{karpv1.DisruptionReasonEmpty, karpv1.DisruptionReasonUnderutilized} {
					m, _ := kdisruption.BuildDisruptionBudgetMapping(ctx, cluster, clk, kube, cp, &recorder{}, r)
					budget[k.Pool][r] = m[k.Pool]
				}
			}
			switch {
			case budget[k.Pool][karpv1.DisruptionReasonUnderutilized] == 0 && budget[k.Pool][karpv1.DisruptionReasonEmpty] == 0:
				k.Why = "the NodePool's disruption budget allows no disruption now"
			case budget[k.Pool][karpv1.DisruptionReasonUnderutilized] == 0:
				k.Why = "the NodePool's disruption budget allows no Underutilized disruption now"
			default:
				k.Why = "its pods fit nowhere cheaper: no cheaper replacement and no room on other nodes"
			}
		}
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b Kept) int { return cmp.Compare(a.Node, b.Node) })
	return out
}

// apply changes the world as the command does once done: its candidates'
// nodes and NodeClaims are gone, their pods run where the simulation put
// them (the receiving NodeClaims' last pod event is now), and the
// replacement runs as a new initialized node.
func (w *world) apply(r roundResult, i int) Command {
	cmd := r.cmd
	out := Command{Method: r.method.ConsolidationType(), Reason: string(r.method.Reason()), Decision: string(cmd.Decision()), Savings: cmd.EstimatedSavings()}
	gone := map[string]bool{}
	for _, c := range cmd.Candidates {
		l := c.Labels()
		out.Candidates = append(out.Candidates, Candidate{NodeClaim: c.NodeClaim.Name, Node: c.Node.Name, Pool: c.NodePool.Name,
			InstanceType: l[corev1.LabelInstanceTypeStable], Zone: l[corev1.LabelTopologyZone], Capacity: l[karpv1.CapacityTypeLabelKey], Price: c.Price})
		out.Pools = append(out.Pools, c.NodePool.Name)
		gone[c.Node.Name] = true
	}
	// The command's candidates go together; Karpenter's methods list them
	// in an order of their own (unstable sorts of equal costs), so name order.
	slices.SortFunc(out.Candidates, func(a, b Candidate) int { return cmp.Compare(a.Node, b.Node) })
	slices.Sort(out.Pools)
	out.Pools = slices.Compact(out.Pools)
	moved := map[types.UID]string{}
	var touched []string
	for _, e := range cmd.Results.ExistingNodes {
		for _, p := range e.Pods {
			moved[p.UID] = e.Name()
		}
		if len(e.Pods) > 0 {
			touched = append(touched, e.Name())
		}
	}
	var added []*corev1.Pod
	for _, rep := range cmd.Replacements {
		node, claim, rp := w.launch(rep.NodeClaim)
		out.Replacements = append(out.Replacements, rp)
		for _, p := range rep.Pods {
			moved[p.UID] = node.Name
		}
		w.snap.Nodes = append(w.snap.Nodes, node)
		w.snap.NodeClaims = append(w.snap.NodeClaims, claim)
		// The DaemonSets' pods run on the new node as they ran on the
		// first candidate.
		for _, p := range w.snap.Pods {
			if p.Spec.NodeName == cmd.Candidates[0].Node.Name && isDaemon(p) {
				d := p.DeepCopy()
				d.Name, d.UID, d.Spec.NodeName = p.Name+"-"+node.Name, types.UID(string(p.UID)+"-"+node.Name), node.Name
				added = append(added, d)
			}
		}
	}
	var pods []*corev1.Pod
	for _, p := range w.snap.Pods {
		to, ok := moved[p.UID]
		switch {
		case ok:
			p = p.DeepCopy()
			p.Spec.NodeName = to
			out.PodsMoved++
		case gone[p.Spec.NodeName]:
			continue
		}
		pods = append(pods, p)
	}
	w.snap.Pods = append(pods, added...)
	w.snap.Nodes = slices.DeleteFunc(w.snap.Nodes, func(n *corev1.Node) bool { return gone[n.Name] })
	w.snap.NodeClaims = slices.DeleteFunc(w.snap.NodeClaims, func(nc *karpv1.NodeClaim) bool { return gone[nc.Status.NodeName] })
	for i, nc := range w.snap.NodeClaims {
		if slices.Contains(touched, nc.Status.NodeName) {
			nc = nc.DeepCopy()
			nc.Status.LastPodEventTime = metav1.NewTime(w.at)
			w.snap.NodeClaims[i] = nc
		}
	}
	_ = i
	return out
}

func isDaemon(p *corev1.Pod) bool {
	for _, o := range p.OwnerReferences {
		if o.Kind == "DaemonSet" {
			return true
		}
	}
	return false
}

// launch makes the node and NodeClaim a replacement becomes: its cheapest
// instance type and offering compatible with its requirements.
func (w *world) launch(nc *pscheduling.NodeClaim) (*corev1.Node, *karpv1.NodeClaim, Replacement) {
	its := nc.InstanceTypeOptions.OrderByPrice(nc.Requirements)
	rp := Replacement{Pool: nc.NodePoolName, Options: len(its)}
	for _, it := range its[:min(len(its), MaxReplacementTypes)] {
		rp.InstanceTypes = append(rp.InstanceTypes, it.Name)
	}
	w.made++
	name := fmt.Sprintf("replacement-%d", w.made)
	rp.Node = name
	labels := map[string]string{}
	reqs := kscheduling.NewRequirements(nc.Requirements.Values()...)
	zone, ct := "", ""
	var it *cloudprovider.InstanceType
	if len(its) > 0 {
		it = its[0]
		if o := it.Offerings.Available().Compatible(nc.Requirements).Cheapest(); o != nil {
			rp.Price, zone, ct = o.Price, o.Zone(), o.CapacityType()
		}
		reqs.Add(it.Requirements.Values()...)
		reqs.Add(kscheduling.NewRequirement(corev1.LabelInstanceTypeStable, corev1.NodeSelectorOpIn, it.Name))
	}
	if zone != "" {
		reqs.Add(kscheduling.NewRequirement(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, zone), kscheduling.NewRequirement(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, ct))
	}
	for _, r := range reqs {
		if r.Operator() == corev1.NodeSelectorOpIn && r.Len() == 1 {
			labels[r.Key] = r.Any()
		}
	}
	maps.Copy(labels, nc.Labels)
	labels[karpv1.NodePoolLabelKey] = nc.NodePoolName
	labels[corev1.LabelHostname] = name
	labels[karpv1.NodeRegisteredLabelKey] = "true"
	labels[karpv1.NodeInitializedLabelKey] = "true"
	now := metav1.NewTime(w.at)
	providerID := "aws:///" + zone + "/" + name
	var alloc corev1.ResourceList
	if it != nil {
		alloc = it.Allocatable()
	}
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, CreationTimestamp: now, UID: types.UID("node-" + name)},
		Spec:       corev1.NodeSpec{ProviderID: providerID, Taints: nc.Spec.Taints},
		Status: corev1.NodeStatus{Capacity: alloc, Allocatable: alloc,
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastTransitionTime: now}}},
	}
	claim := &karpv1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: nc.NodePoolName + "-" + name, Labels: labels, CreationTimestamp: now, UID: types.UID("claim-" + name)},
		Spec:       *nc.Spec.DeepCopy(),
		Status:     karpv1.NodeClaimStatus{ProviderID: providerID, NodeName: name, Capacity: alloc, Allocatable: alloc, LastPodEventTime: now},
	}
	claim.Spec.Requirements = reqs.NodeSelectorRequirements()
	for _, c := range []string{karpv1.ConditionTypeLaunched, karpv1.ConditionTypeRegistered, karpv1.ConditionTypeInitialized} {
		claim.StatusConditions().SetTrue(c)
	}
	for i := range claim.Status.Conditions {
		claim.Status.Conditions[i].LastTransitionTime = now
	}
	return node, claim, rp
}

// cloneSnapshot copies the slices the loop changes (the objects are
// copied when changed).
func cloneSnapshot(s *snapshot.Snapshot) *snapshot.Snapshot {
	c := *s
	c.Nodes, c.NodeClaims, c.Pods = slices.Clone(s.Nodes), slices.Clone(s.NodeClaims), slices.Clone(s.Pods)
	return &c
}

// provider is Karpenter's cloud provider as its disruption methods ask it:
// the instance types of each NodePool, the EC2NodeClass as the class it
// supports; nothing is launched or deleted.
type provider struct {
	its map[string][]*cloudprovider.InstanceType
}

var _ cloudprovider.CloudProvider = (*provider)(nil)

var errOffline = errors.New("the prediction launches and deletes nothing")

func (p *provider) Create(context.Context, *karpv1.NodeClaim) (*karpv1.NodeClaim, error) {
	return nil, errOffline
}
func (p *provider) Delete(context.Context, *karpv1.NodeClaim) error        { return errOffline }
func (p *provider) Get(context.Context, string) (*karpv1.NodeClaim, error) { return nil, errOffline }
func (p *provider) List(context.Context) ([]*karpv1.NodeClaim, error)      { return nil, nil }
func (p *provider) RepairPolicies() []cloudprovider.RepairPolicy           { return nil }
func (p *provider) Name() string                                           { return "aws" }
func (p *provider) GetSupportedNodeClasses() []status.Object {
	return []status.Object{&awsv1.EC2NodeClass{}}
}
func (p *provider) IsDrifted(context.Context, *karpv1.NodeClaim) (cloudprovider.DriftReason, error) {
	return "", nil
}
func (p *provider) GetInstanceTypes(_ context.Context, np *karpv1.NodePool) ([]*cloudprovider.InstanceType, error) {
	its, ok := p.its[np.Name]
	if !ok {
		return nil, fmt.Errorf("no instance types for NodePool %s", np.Name)
	}
	return its, nil
}

// recorder keeps the events Karpenter's methods publish about nodes.
type recorder struct {
	mu     sync.Mutex
	byNode map[types.UID][]string
}

func (r *recorder) Publish(evs ...events.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range evs {
		n, ok := e.InvolvedObject.(*corev1.Node)
		if !ok || (e.Reason != events.Unconsolidatable && e.Reason != events.DisruptionBlocked) {
			continue
		}
		if r.byNode == nil {
			r.byNode = map[types.UID][]string{}
		}
		if !slices.Contains(r.byNode[n.UID], e.Message) {
			r.byNode[n.UID] = append(r.byNode[n.UID], e.Message)
		}
	}
}

func (r *recorder) about(uid types.UID) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.byNode[uid])
}

// Summary is the consolidation in a few lines.
func (c *Consolidation) Summary(at time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Consolidation at %s (UTC), one command after the other:\n", at.UTC().Format(time.RFC3339))
	if len(c.Commands) == 0 {
		b.WriteString("  no command: Karpenter consolidates nothing now\n")
	}
	for i, cmd := range c.Commands {
		var names []string
		for _, cn := range cmd.Candidates {
			names = append(names, fmt.Sprintf("%s (%s %s %s, $%.4f/h)", cn.Node, cn.InstanceType, cn.Capacity, cn.Zone, cn.Price))
		}
		fmt.Fprintf(&b, "  %d. %s, %s: %s %s", i+1, cmd.Reason, cmd.Method, cmd.Decision, strings.Join(names, ", "))
		for _, r := range cmd.Replacements {
			more := ""
			if r.Options > len(r.InstanceTypes) {
				more = fmt.Sprintf(" and %d more", r.Options-len(r.InstanceTypes))
			}
			fmt.Fprintf(&b, " with a NodeClaim of NodePool %s (%s%s; cheapest $%.4f/h, named %s below)", r.Pool, strings.Join(r.InstanceTypes, ", "), more, r.Price, r.Node)
		}
		fmt.Fprintf(&b, "; %d pod(s) move; saves $%.4f/h\n", cmd.PodsMoved, cmd.Savings)
	}
	if c.Truncated {
		fmt.Fprintf(&b, "  ... stopped after %d commands; Karpenter would go on\n", len(c.Commands))
	}
	if len(c.Kept) > 0 {
		b.WriteString("Nodes consolidation leaves after that:\n")
		for _, k := range c.Kept {
			fmt.Fprintf(&b, "  %s (NodePool %s): %s\n", k.Node, k.Pool, k.Why)
		}
	}
	b.WriteString("Where Karpenter decides by chance, the prediction takes one answer:\n")
	for _, s := range c.Chance {
		b.WriteString("  - " + s + "\n")
	}
	return b.String()
}
