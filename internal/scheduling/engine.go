package scheduling

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/awslabs/operatorpkg/serrors"
	"github.com/go-logr/logr"
	"go.uber.org/multierr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	scheduler "sigs.k8s.io/karpenter/pkg/controllers/provisioning/scheduling"
	"sigs.k8s.io/karpenter/pkg/events"
	"sigs.k8s.io/karpenter/pkg/operator/injection"
	coreoptions "sigs.k8s.io/karpenter/pkg/operator/options"
	kscheduling "sigs.k8s.io/karpenter/pkg/scheduling"
	"sigs.k8s.io/karpenter/pkg/utils/daemonset"
	nodepoolutils "sigs.k8s.io/karpenter/pkg/utils/nodepool"

	// Registers the AWS labels as well known, the reservation id label
	// and the AWS resources in Karpenter's globals, as the AWS provider's
	// controller does (pkg/apis/v1 labels.go and doc.go init).
	_ "github.com/aws/karpenter-provider-aws/pkg/apis/v1"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/capacity"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodeoverlay"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// The AWS provider's controller reads the EBS CSI driver's zone label as
// the zone (aws/karpenter-provider-aws pkg/operator/operator.go init), so
// that a PersistentVolume's node affinity on it constrains the NodeClaim.
func init() {
	v1.NormalizedLabels["topology.ebs.csi.aws.com/zone"] = corev1.LabelTopologyZone
}

// Input is what a decision is made from: the three lists of manifests
// (each element may hold several YAML documents) and the workloads whose
// unschedulable pods are acknowledged.
type Input struct {
	NodePools, NodeClasses, Workloads []string
	// WorkloadNames, when set, name the elements of Workloads (the keys
	// of the map form of the argument, file names): findings are then at
	// workloads["<name>"] and say "<name>, line N".
	WorkloadNames []string
	// Scale is how many pods a controller a HorizontalPodAutoscaler
	// targets makes: ScaleReplicas ("" too) its manifest's replicas,
	// ScaleMax the HPA's maxReplicas.
	Scale string
	// Karpenter, when not empty, replaces NodePools and NodeClasses: its
	// elements hold NodePools and EC2NodeClasses together (karpenter-lint
	// schedule's --pools, a GitOps directory); objects of other kinds in
	// it are listed in Parsed.Other, not read.
	Karpenter []string
	// AllowUnschedulable are workload keys ("<namespace>/<kind>/<name>")
	// reported as warnings instead of errors.
	AllowUnschedulable []string
	// Describe, when set, names an object's place in messages (karpenter-lint:
	// its file and line) instead of "workloads[2], document 1, line 5",
	// the element of the data source's argument.
	Describe func(list string, input int, pos Position) string
	// AllowedIn names where AllowUnschedulable comes from in messages
	// (karpenter-lint: its flag); allow_unschedulable when empty.
	AllowedIn string
	// ClusterState, when not empty, is the running cluster (package
	// snapshot): the workloads' pods go first where Karpenter's scheduler
	// places them on its nodes and NodeClaims.
	ClusterState string
	// NodeOverlays are NodeOverlay manifests (node_overlays); with
	// Karpenter, its NodeOverlays are read too. GateHow is
	// nodeoverlay.GateHow of the caller's front end.
	NodeOverlays []string
	GateHow      string
}

// Parsed is the decoded input. Classes are what the caller predicts a
// status for (ClassStatus) before Decide.
type Parsed struct {
	Classes []NodeClass
	// Other are the objects of Input.Karpenter that are neither NodePools
	// nor EC2NodeClasses, in input order.
	Other    []Object
	pools    []nodePool
	poolList string // the list the pools were read from
	describe func(list string, input int, pos Position) string
	// names are Input.WorkloadNames.
	names   []string
	allowIn string
	world   *world
	errors  map[string][]inputError // by input list
	allow   map[string]bool
	// allowList is AllowUnschedulable as given.
	allowList []string
	// texts are every input element, for the zones they name.
	texts []string
	// cluster is the cluster state, nil for an empty cluster.
	cluster *snapshot.Snapshot
	// overlays are the NodeOverlays of the input; gateHow says how to
	// turn their gate on.
	overlays []overlay
	gateHow  string
}

// Parse decodes the three inputs; it never fails, problems become findings
// of Decide.
func Parse(in Input) *Parsed {
	p := &Parsed{errors: map[string][]inputError{}, allow: map[string]bool{}, describe: in.Describe, poolList: ListNodePools, allowIn: cmp.Or(in.AllowedIn, ListAllow)}
	p.names = in.WorkloadNames
	if p.describe == nil {
		p.describe = func(list string, input int, pos Position) string {
			if list == ListWorkloads && input >= 0 && input < len(p.names) {
				if pos.Line == 0 {
					return p.names[input]
				}
				return fmt.Sprintf("%s, line %d", p.names[input], pos.Line)
			}
			return fmt.Sprintf("%s[%d], %s", list, input, pos)
		}
	}
	var errs []inputError
	var fromKarpenter []overlay
	if len(in.Karpenter) > 0 {
		p.poolList = ListKarpenter
		p.pools, p.Classes, fromKarpenter, p.Other, errs = readKarpenter(in.Karpenter)
		p.errors[ListKarpenter] = errs
	} else {
		p.pools, errs = readPools(in.NodePools)
		p.errors[ListNodePools] = errs
		p.Classes, errs = readClasses(in.NodeClasses)
		p.errors[ListNodeClasses] = errs
	}
	var oerrs []inputError
	p.overlays, oerrs = readOverlays(in.NodeOverlays)
	p.overlays = append(fromKarpenter, p.overlays...)
	p.errors[ListNodeOverlays] = oerrs
	p.gateHow = cmp.Or(in.GateHow, nodeoverlay.GateHow(nodeoverlay.FrontEndProvider))
	p.world = readWorld(in.Workloads, in.Scale)
	p.errors[ListWorkloads] = p.world.errors
	for _, k := range in.AllowUnschedulable {
		p.allow[k] = true
	}
	p.allowList = in.AllowUnschedulable
	p.texts = slices.Concat(in.Karpenter, in.NodePools, in.NodeClasses, in.Workloads)
	if in.ClusterState != "" {
		p.cluster = snapshot.Parse(in.ClusterState)
	}
	return p
}

// Findings are the documents of the input that cannot be read and the
// allow_unschedulable elements that are no workload key.
func (p *Parsed) Findings() []Finding {
	var out []Finding
	for _, list := range []string{ListKarpenter, ListNodePools, ListNodeClasses, ListNodeOverlays, ListWorkloads} {
		for _, e := range p.errors[list] {
			out = append(out, p.documentFinding(list, e))
		}
	}
	out = append(out, p.clusterFindings()...)
	for i, k := range p.allowList {
		if k != "" && !IsWorkloadKey(k) {
			out = append(out, Finding{Finding: rules.New(RuleAllowKey, p.element(ListAllow, i),
				"%s element %q is not a workload key, so it acknowledges no workload: the pods it was meant for "+
					"would still fail the plan with pod-unschedulable. Write \"<namespace>/<kind>/<name>\", as `pods` is keyed "+
					"(e.g. \"batch/Job/backfill\", \"default/Deployment/web\").", p.allowIn, k),
				List: ListAllow, Input: i})
		}
	}
	return out
}

// element is the path of an element of an input list: workloads["<name>"]
// for the map form of workloads, list[i] otherwise.
func (p *Parsed) element(list string, input int) rules.Path {
	if list == ListWorkloads && input >= 0 && input < len(p.names) {
		return rules.Root(list).Key(p.names[input])
	}
	return rules.Root(list).Index(input)
}

// The values of Input.Scale.
const (
	ScaleReplicas = "replicas"
	ScaleMax      = "max"
)

// IsWorkloadKey reports whether k has the form of a workload key,
// "<namespace>/<kind>/<name>" (the namespace is empty for a cluster-scoped
// kind).
func IsWorkloadKey(k string) bool { return strings.Count(k, "/") == 2 }

// The input lists, as the data source names its arguments, and
// Input.Karpenter.
const (
	ListNodePools   = "node_pools"
	ListNodeClasses = "node_classes"
	ListWorkloads   = "workloads"
	ListAllow       = "allow_unschedulable"
	ListKarpenter   = "karpenter"
	ListCluster     = "cluster_state"
)

// ClassStatus is what Karpenter would hold in an EC2NodeClass's status by
// the time pods arrive, as the caller predicts it from its AWS reads.
type ClassStatus struct {
	// Unknown, when set, says why the status could not be predicted; the
	// class's NodePools are then left out, with that reason.
	Unknown string
	// Ready is the class's Ready condition. NotReady says why not, in
	// Karpenter's words (the False condition, its reason and message).
	Ready    bool
	NotReady string
	// Subnets are status.subnets.
	Subnets []Subnet
	// CapacityReservations are status.capacityReservations.
	CapacityReservations []Reservation
}

// Subnet is one entry of status.subnets.
type Subnet struct{ ID, Zone, ZoneID string }

// Reservation is one entry of status.capacityReservations, with the
// instances it has left.
type Reservation struct {
	ID, InstanceType, Zone string
	// Type is "default" or "capacity-block".
	Type          string
	Interruptible bool
	Available     int
	// State is "active" or "expiring".
	State string
}

// ReservationExpiring is the state of a capacity block about to end;
// Karpenter launches nothing into it.
const ReservationExpiring = "expiring"

// Facts are the AWS facts of a decision.
type Facts struct {
	Catalogue *Catalogue
	// Classes are the predicted statuses, by EC2NodeClass name.
	Classes  map[string]ClassStatus
	Settings capacity.Settings
	// Karpenter is the release the alias of a class is read for.
	Karpenter versions.Karpenter
	// NodeOverlayGate is Karpenter's NodeOverlay feature gate: only with
	// it on are the NodeOverlays of the input applied.
	NodeOverlayGate bool
	// Prices price the offerings and the decision's cost; nil is the
	// static table of the catalogue's region (StaticSource).
	Prices *PriceSource
}

// prices is f.Prices, or the static table.
func (f Facts) prices() PriceSource {
	if f.Prices != nil && f.Prices.Pricer != nil {
		return *f.Prices
	}
	return StaticSource(f.Catalogue.Region, "")
}

// Decide runs Karpenter's provisioning decision for an empty cluster.
// An error means the decision could not be made at all (a context
// cancellation); everything about the inputs is a finding.
func (p *Parsed) Decide(ctx context.Context, f Facts) (d *Decision, err error) {
	// Karpenter's scheduler is written for objects the API server has
	// validated; an input it would never see must not crash the provider.
	defer func() {
		if r := recover(); r != nil {
			d, err = &Decision{Findings: append(p.Findings(), Finding{Finding: rules.New(ruleDocument, rules.Root(ListWorkloads),
				"Karpenter's scheduler failed on these inputs (%v): one of the objects is one the API server would refuse; check them with kubectl apply --dry-run=server", r),
				List: ListWorkloads, Input: -1})}, nil
		}
	}()
	ctx = decisionContext(ctx)
	d = &Decision{Skipped: slices.Clone(p.world.skipped), Findings: p.Findings()}
	pools, its, facts := p.admitPools(ctx, f, d)
	var nodes []*corev1.Node
	var bound []*corev1.Pod
	if p.cluster != nil {
		nodes, bound = p.cluster.Nodes, p.cluster.Pods
	}
	its = p.applyOverlays(ctx, f, d, pools, its, facts)
	k := newKube(p.world.objects, nodes, bound)
	volumes := scheduler.NewVolumeTopology(k)

	// Provisioner.GetPendingPods: the pods Karpenter would not consider
	// (Provisioner.Validate) are set aside, "ignoring pod, ...".
	outcome := map[*corev1.Pod]*podOutcome{}
	var pods []*corev1.Pod
	for _, w := range p.world.workloads {
		for _, pod := range w.Pods {
			o := &podOutcome{workload: w}
			outcome[pod] = o
			if w.Refused != "" {
				o.err = errors.New(w.Refused)
				continue
			}
			if err := validatePod(ctx, volumes, pod); err != nil {
				o.err, o.ignored = fmt.Errorf("ignoring pod, %w", err), true
				continue
			}
			pods = append(pods, pod)
		}
	}
	daemons := daemonSetPods(p.world, p.cluster)
	volumeReqs := map[types.UID][]kscheduling.Requirements{}
	advice := func(pod *corev1.Pod, o *podOutcome) []string {
		if o.ignored || o.workload.Refused != "" || len(pools) == 0 || strings.HasPrefix(o.err.Error(), volumeError) {
			if a := adviseIgnored(o.err.Error()); a != "" {
				return []string{a}
			}
			return nil
		}
		return advise(pod, volumeReqs[pod.UID], facts, daemons)
	}
	if len(pools) == 0 {
		for _, pod := range pods {
			outcome[pod].err = errors.New("no dynamic nodepools found")
		}
		d.finish(p, outcome, scheduler.Results{}, advice, nil, nil)
		d.Cost = costOf(d.NodeClaims, f.prices().Source)
		return d, nil
	}
	// Provisioner.getVolumeTopologyRequirements: a pod whose volumes cannot
	// be read is left out (Karpenter only logs it).
	var schedulable []*corev1.Pod
	for _, pod := range pods {
		reqs, err := volumes.GetRequirements(ctx, pod)
		if err != nil {
			outcome[pod].err = fmt.Errorf("%s, %w", volumeError, err)
			continue
		}
		if len(reqs) > 0 {
			volumeReqs[pod.UID] = reqs
		}
		schedulable = append(schedulable, pod)
	}
	results, err := solve(ctx, k, p.cluster, pools, its, schedulable, daemons, volumeReqs)
	if err != nil {
		return nil, err
	}
	for pod, err := range results.PodErrors {
		outcome[pod].err = err
	}
	zoneIDs := map[string]string{}
	for _, st := range f.Classes {
		for _, sn := range st.Subnets {
			zoneIDs[sn.Zone] = sn.ZoneID
		}
	}
	var allZones []string
	for _, pf := range facts {
		allZones = append(allZones, pf.zones...)
	}
	slices.Sort(allZones)
	symmetric := symmetricZones(facts, zoneIDs, p.texts)
	tied := newChance(unnamedZones(slices.Compact(allZones), zoneIDs, p.texts), symmetric, facts)
	d.finish(p, outcome, results, advice, symmetric, tied)
	d.order(pools)
	p.weightTies(d, facts, volumeReqs, daemons)
	d.Cost = costOf(d.NodeClaims, f.prices().Source)
	return d, nil
}

// volumeError is how Karpenter logs a pod whose volumes it cannot read.
const volumeError = "failed getting volume topology requirements"

// decisionContext carries the controller settings the scheduler reads
// (the defaults of Karpenter's flags: ReservedCapacity on, DRA requests
// ignored, preferences respected, minValues strict, one CPU) and a logger
// that discards Karpenter's logs.
func decisionContext(ctx context.Context) context.Context {
	ctx = log.IntoContext(ctx, logr.Discard())
	ctx = injection.WithControllerName(ctx, "provisioner")
	return coreoptions.ToContext(ctx, &coreoptions.Options{
		CPURequests:       1000,
		PreferencePolicy:  coreoptions.PreferencePolicyRespect,
		MinValuesPolicy:   coreoptions.MinValuesPolicyStrict,
		IgnoreDRARequests: true,
		FeatureGates:      coreoptions.DefaultFeatureGates(),
	})
}

// solve is Provisioner.NewScheduler and Schedule from the topology on:
// the scheduler options Schedule passes, Solve, and the truncation of every
// NodeClaim's instance types.
//
// Schedule stops Solve after a minute and schedules the rest in its next
// loop, against the NodeClaims the first made; the prediction solves the
// whole batch at once (the caller's context bounds it). Karpenter searches
// the candidate NodeClaims and NodePools with ceil(CPU requests) workers,
// 1 by default, as here: more workers keep the same candidate
// (parallelizeUntil takes the first in Karpenter's order) but each goes on
// through the failing ones, which on a busy machine costs more than it
// saves.
func solve(ctx context.Context, k *kube, snap *snapshot.Snapshot, pools []*v1.NodePool, its map[string][]*cloudprovider.InstanceType,
	pods []*corev1.Pod, daemons []*corev1.Pod, volumeReqs map[types.UID][]kscheduling.Requirements) (scheduler.Results, error) {
	clk := clock.RealClock{}
	cluster, stateNodes, err := clusterState(ctx, clk, k, snap)
	if err != nil {
		return scheduler.Results{}, err
	}
	opts := []scheduler.Options{
		scheduler.DisableReservedCapacityFallback,
		scheduler.NumConcurrentReconciles(1),
		scheduler.MinValuesPolicy(coreoptions.MinValuesPolicyStrict),
	}
	topology, err := scheduler.NewTopology(ctx, k, cluster, stateNodes, pools, its, pods, opts...)
	if err != nil {
		return scheduler.Results{}, fmt.Errorf("tracking topology counts, %w", err)
	}
	s := scheduler.NewScheduler(ctx, k, pools, cluster, stateNodes, topology, its, daemons,
		events.NewRecorder(&record.FakeRecorder{}), clk, volumeReqs, nil, opts...)
	results, err := s.Solve(ctx, pods)
	if err != nil {
		return scheduler.Results{}, err
	}
	for _, nc := range results.NewNodeClaims {
		sortByPrice(nc.InstanceTypeOptions, nc.Requirements)
	}
	results = results.TruncateInstanceTypes(ctx, scheduler.MaxInstanceTypes)
	for _, nc := range results.NewNodeClaims {
		sortByPrice(nc.InstanceTypeOptions, nc.Requirements)
	}
	return results, nil
}

// daemonSetPods is Provisioner.getDaemonSetPods: each DaemonSet's pod
// from its template, with the template's required node affinity; the
// DaemonSets of the workloads, then those of the cluster state the
// workloads do not replace. (Karpenter takes a DaemonSet's running pod
// when cluster state has seen one; the template is what the pod is made
// from, so the two differ only where an admission webhook changed it.)
func daemonSetPods(w *world, snap *snapshot.Snapshot) []*corev1.Pod {
	sets := slices.Clone(w.daemonSets)
	if snap != nil {
		named := map[string]bool{}
		for _, d := range w.daemonSets {
			named[d.Namespace+"/"+d.Name] = true
		}
		for _, d := range snap.DaemonSets {
			if !named[d.Namespace+"/"+d.Name] {
				sets = append(sets, d)
			}
		}
	}
	out := make([]*corev1.Pod, 0, len(sets))
	for _, d := range sets {
		pod := daemonset.PodForDaemonSet(d)
		if a := d.Spec.Template.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
			if pod.Spec.Affinity == nil {
				pod.Spec.Affinity = &corev1.Affinity{}
			}
			if pod.Spec.Affinity.NodeAffinity == nil {
				pod.Spec.Affinity.NodeAffinity = &corev1.NodeAffinity{}
			}
			pod.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
		}
		out = append(out, pod)
	}
	return out
}

// validatePod is Provisioner.Validate.
func validatePod(ctx context.Context, volumes *scheduler.VolumeTopology, pod *corev1.Pod) error {
	var errs error
	for _, r := range kscheduling.NewPodRequirements(pod) {
		if r.Key == v1.NodePoolLabelKey && r.Operator() == corev1.NodeSelectorOpDoesNotExist {
			errs = multierr.Append(errs, serrors.Wrap(errors.New("configured to not run on a Karpenter provisioned node"),
				"requirement", fmt.Sprintf("%s %s", v1.NodePoolLabelKey, corev1.NodeSelectorOpDoesNotExist)))
			break
		}
	}
	validateTerm := func(term corev1.NodeSelectorTerm) {
		if term.MatchFields != nil {
			errs = multierr.Append(errs, errors.New("node selector term with matchFields is not supported"))
		}
		for _, r := range term.MatchExpressions {
			errs = multierr.Append(errs, v1.ValidateRequirement(ctx, v1.NodeSelectorRequirementWithMinValues{Key: r.Key, Operator: r.Operator, Values: r.Values}))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(pod.Spec.NodeSelector)) {
		validateTerm(corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: k, Operator: corev1.NodeSelectorOpIn, Values: []string{pod.Spec.NodeSelector[k]}}}})
	}
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			validateTerm(term)
		}
	}
	return multierr.Append(errs, volumes.ValidatePersistentVolumeClaims(ctx, pod))
}

// admitPools is the NodePool half of Provisioner.NewScheduler: the pools
// Karpenter schedules with (Ready, dynamic, managed by the AWS provider),
// ordered by weight, with their instance types; the others are reported.
func (p *Parsed) admitPools(ctx context.Context, f Facts, d *Decision) ([]*v1.NodePool, map[string][]*cloudprovider.InstanceType, []poolFacts) {
	classes := map[string]NodeClass{}
	for _, c := range p.Classes {
		classes[c.Manifest.Metadata.Name] = c
	}
	byClass := map[string][]*cloudprovider.InstanceType{}
	prices := f.prices()
	var pools []*v1.NodePool
	var facts []poolFacts
	its := map[string][]*cloudprovider.InstanceType{}
	for _, np := range p.pools {
		skip := func(reason string) {
			d.Findings = append(d.Findings, p.poolFinding(np, reason))
			d.NodePools = append(d.NodePools, PoolResult{Name: np.pool.Name, Input: np.input, Position: np.pos, Skipped: reason})
		}
		pool := np.pool
		ref := pool.Spec.Template.Spec.NodeClassRef
		switch {
		case ref == nil || ref.Group != groupKarpenterAWS || ref.Kind != manifest.EC2NodeClassKind:
			skip("its nodeClassRef does not name an EC2NodeClass (group karpenter.k8s.aws, kind EC2NodeClass), so the AWS provider does not manage it")
			continue
		case nodepoolutils.IsStatic(pool):
			skip("it is a static NodePool (spec.replicas): Karpenter keeps its node count and never places pending pods with it")
			continue
		}
		if err := pool.RuntimeValidate(ctx); err != nil {
			skip("its runtime validation fails (ValidationSucceeded=False, NodePoolValidationFailed): " + err.Error())
			continue
		}
		c, ok := classes[ref.Name]
		if !ok {
			among := "node_classes"
			if p.poolList == ListKarpenter {
				among = "the EC2NodeClasses of the input"
			}
			skip(fmt.Sprintf("its EC2NodeClass %q is not among %s (NodeClassReady=False, NodeClassNotFound)", ref.Name, among))
			continue
		}
		st, ok := f.Classes[ref.Name]
		switch {
		case !ok:
			skip(fmt.Sprintf("the status of EC2NodeClass %q could not be predicted", ref.Name))
			d.unpredicted = append(d.unpredicted, pool.Name)
			continue
		case st.Unknown != "":
			skip(fmt.Sprintf("the status of EC2NodeClass %q could not be predicted: %s", ref.Name, st.Unknown))
			d.unpredicted = append(d.unpredicted, pool.Name)
			continue
		case !st.Ready:
			skip(fmt.Sprintf("its EC2NodeClass %q is not Ready (%s), so the NodePool is not Ready and Karpenter ignores it", ref.Name, st.NotReady))
			continue
		case len(st.Subnets) == 0:
			skip(fmt.Sprintf("its EC2NodeClass %q has no subnet, so Karpenter resolves no instance type (\"no subnets found\")", ref.Name))
			continue
		}
		list, ok := byClass[ref.Name]
		if !ok {
			var err error
			if list, err = f.Catalogue.PricedInstanceTypes(c.Manifest, st, f.Settings, f.Karpenter, prices.Pricer); err != nil {
				skip(err.Error())
				continue
			}
			byClass[ref.Name] = list
		}
		if len(list) == 0 {
			skip("Karpenter resolves no instance type for it (\"skipping, no resolved instance types found\")")
			continue
		}
		pools = append(pools, pool)
		its[pool.Name] = list
		// Karpenter's NewScheduler drops such a pool itself, after the
		// provisioner handed it over: with no pool left, its pods fail
		// with the scheduler's "nodepool requirements filtered out all
		// available instance types", not "no dynamic nodepools found".
		admitted, reason := noTypeLeft(pool, list)
		if reason != "" {
			skip(reason)
			continue
		}
		var zones []string
		for _, s := range st.Subnets {
			zones = append(zones, s.Zone)
		}
		slices.Sort(zones)
		facts = append(facts, poolFacts{pool: pool, its: list, admitted: admitted, class: ref.Name, zones: slices.Compact(zones)})
		d.NodePools = append(d.NodePools, PoolResult{Name: pool.Name, Input: np.input, Position: np.pos})
	}
	nodepoolutils.OrderByWeight(pools)
	slices.SortStableFunc(facts, func(a, b poolFacts) int {
		return slices.Index(pools, a.pool) - slices.Index(pools, b.pool)
	})
	return pools, its, facts
}

// noTypeLeft is NewScheduler's first filter, which drops a NodePool whose
// requirements leave no instance type with an available offering (or
// fewer than its minValues). It returns the instance types the pool's
// requirements admit, and why the pool is dropped ("" when it is not).
func noTypeLeft(pool *v1.NodePool, its []*cloudprovider.InstanceType) (admitted []*cloudprovider.InstanceType, reason string) {
	nct := scheduler.NewNodeClaimTemplate(pool)
	var left cloudprovider.InstanceTypes
	for _, it := range its {
		if it.Requirements.Intersects(nct.Requirements) != nil {
			continue
		}
		admitted = append(admitted, it)
		if it.Offerings.Available().HasCompatible(nct.Requirements) {
			left = append(left, it)
		}
	}
	if len(left) == 0 {
		return admitted, "its requirements leave no instance type with an available offering in the zones of its EC2NodeClass's subnets (\"skipping, nodepool requirements filtered out all instance types\")"
	}
	if nct.Requirements.HasMinValues() {
		if _, _, err := left.SatisfiesMinValues(nct.Requirements); err != nil {
			return admitted, "its minValues cannot be met by the instance types its requirements leave (\"skipping, nodepool requirements filtered out all instance types\"): " + err.Error()
		}
	}
	return admitted, ""
}

// sortByPrice orders instance types cheapest first as OrderByPrice does
// (the cheapest available offering compatible with the requirements), with
// equal prices by name: Karpenter's own order of equal prices follows the
// Go map it built the list from.
func sortByPrice(its cloudprovider.InstanceTypes, reqs kscheduling.Requirements) {
	price := map[string]float64{}
	for _, it := range its {
		p := -1.0
		for _, o := range it.Offerings {
			if o.Available && reqs.IsCompatible(o.Requirements, kscheduling.AllowUndefinedWellKnownLabels) && (p < 0 || o.Price < p) {
				p = o.Price
			}
		}
		if p < 0 {
			p = 1e308
		}
		price[it.Name] = p
	}
	slices.SortStableFunc(its, func(a, b *cloudprovider.InstanceType) int {
		if price[a.Name] != price[b.Name] {
			if price[a.Name] < price[b.Name] {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
}

// The rule the checks of this file emit.
var (
	RuleAllowKey = rules.Register(rules.Rule{
		ID: "allow-unschedulable-key-invalid", Severity: rules.Error, Category: Category,
		Title: "an allow_unschedulable element is not a workload key",
		Behaviour: "Workloads are named `\"<namespace>/<kind>/<name>\"`, as the `pods` attribute is keyed; any other string " +
			"acknowledges nothing, so the workload's unschedulable pods would still fail the plan.",
		Source: "the provider's allow_unschedulable argument",
		Bad:    example([]string{examplePool("default", "")}, []string{exampleClass}, []string{exampleDeployment("2", "500m", "")}, `allow_unschedulable = ["web"]`),
		Good: example([]string{examplePool("default", "")}, []string{exampleClass}, []string{exampleDeployment("2", "500m", "")},
			`allow_unschedulable = ["default/Deployment/web"]`),
	})
)
