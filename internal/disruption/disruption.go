// Package disruption predicts what a NodePool configuration does to a
// running cluster (a snapshot, package snapshot): which NodeClaims
// Karpenter v1.14 would find drifted and why, and how its disruption
// budgets pace their replacement at a given time.
//
// Drift is decided as Karpenter's NodeClaim disruption controller decides
// its static part (kubernetes-sigs/karpenter
// pkg/controllers/nodeclaim/disruption/drift.go): NodePoolDrifted when the
// NodeClaim's karpenter.sh/nodepool-hash differs from the hash Karpenter
// writes for the configured spec.template (same hash version), checked
// first, then RequirementsDrifted when the NodeClaim's labels are not
// compatible with the configured requirements (Karpenter's own
// Requirements.Compatible). The EC2NodeClass hash
// (karpenter.k8s.aws/ec2nodeclass-hash, aws/karpenter-provider-aws
// pkg/cloudprovider/drift.go areStaticFieldsDrifted) is compared when the
// configuration holds the class and the CA bundle the controller hashes
// is given; images, subnets, security groups and capacity reservations
// need AWS and are not decided here.
//
// Pacing is Karpenter's own budget arithmetic
// (NodePool.MustGetAllowedDisruptions for reason Drifted, at the given
// instant) over the nodes Karpenter counts (BuildDisruptionBudgetMapping:
// managed, initialized, not terminating; NotReady or deleting ones use
// the budget already). A drifted node is not a candidate while a pod on
// it, or the node, has karpenter.sh/do-not-disrupt, or a
// PodDisruptionBudget allows its pod no disruption, unless the NodeClaim
// has a terminationGracePeriod (state.StateNode ValidateNodeDisruptable,
// ValidatePodsDisruptable). Drift replaces one candidate per command
// (disruption.Drift ComputeCommands) and the budget bounds how many are
// in flight, so the rounds are ceil(candidates / allowed).
//
// Consolidation (Consolidate, consolidation.go) is Karpenter's own
// disruption methods run in-process (pkg/controllers/disruption:
// Emptiness, MultiNodeConsolidation, SingleNodeConsolidation, in
// NewMethods' order) on cluster state filled from the snapshot, with a
// cloud provider serving the pools' instance types and prices (package
// scheduling) and a clock fixed at the given instant; each command is
// applied to the snapshot and the methods run again, up to a bound.
//
// Not decided: expiration and interruption; Karpenter's Drift and
// StaticDrift methods, which run between Emptiness and multi-node
// consolidation (consolidation is predicted as if no node were drifted);
// the order Karpenter picks drifted candidates in (oldest Drifted
// condition first, a time only the cluster knows).
package disruption

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	clocktesting "k8s.io/utils/clock/testing"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	kscheduling "sigs.k8s.io/karpenter/pkg/scheduling"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/crd"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/drift"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/yamlstream"
)

// Drift reasons, as Karpenter names them in the Drifted condition.
const (
	NodePoolDrifted     = "NodePoolDrifted"
	RequirementsDrifted = "RequirementsDrifted"
	NodeClassDrifted    = "NodeClassDrift"
)

// Input is a decision's input.
type Input struct {
	// Karpenter are YAML streams holding the configured NodePools and
	// EC2NodeClasses (other kinds are ignored).
	Karpenter []string
	Cluster   *snapshot.Snapshot
	// At is the instant budgets are evaluated at (their schedules are
	// UTC cron expressions).
	At time.Time
	// CABundle, when not nil, is the CA bundle Karpenter's controller
	// hashes into the EC2NodeClass hash; without it the class hash is
	// not compared.
	CABundle *string
	// Version is the Karpenter release the hashes are Karpenter's of.
	Version versions.Karpenter
	// Images are the images each EC2NodeClass resolves to now (from AWS,
	// in the order of its status.amis), by name; nil offline. A NodeClaim
	// of a class without an entry has its image not compared.
	Images map[string][]Image
}

// Plan is what the configuration does to the cluster.
type Plan struct {
	At    time.Time
	Pools []Pool
	// Findings are what could not be read or decided.
	Findings []string
	// Notes say what was not compared (images offline); they are not
	// problems of the input.
	Notes []string
	// Unread are the findings about the configuration (a document that
	// cannot be read, no NodePool): nothing was decided for what they
	// name. They are among Findings too.
	Unread []string
	// Consolidation is what consolidation does next (Consolidate), nil
	// when it was not decided.
	Consolidation *Consolidation `json:",omitempty"`
}

// Pool is one configured NodePool's part.
type Pool struct {
	Name string
	// Nodes are the nodes Karpenter counts for its budgets; Disrupting
	// those already using the budget (NotReady or being deleted).
	Nodes, Disrupting int
	// Drifted are its drifted NodeClaims, by name.
	Drifted []Drifted
	// Allowed is how many drifted nodes Karpenter replaces at once at At
	// (the budget for reason Drifted, less Disrupting).
	Allowed int
	// Candidates counts the drifted NodeClaims not blocked; Rounds is
	// ceil(Candidates / Allowed), 0 with no candidate, -1 when the budget
	// allows none at At.
	Candidates, Rounds int
	// Budgets are the budgets that limit drift at At, as written
	// (`nodes "2"`, `nodes "0" at "0 9 * * mon-fri" for 8h`).
	Budgets []string
}

// Drifted is one drifted NodeClaim.
type Drifted struct {
	NodeClaim, Node string
	// Pool is the NodePool that owns it.
	Pool   string
	Reason string
	// Detail says what differs.
	Detail string
	// Blocked says why Karpenter would not disrupt it ("" when it would).
	Blocked string
}

type pool struct {
	karp *karpv1.NodePool
	spec manifest.NodePoolSpec
}

// Decide makes the plan.
func Decide(in Input) *Plan {
	out := &Plan{At: in.At}
	pools, classes, errs := read(in.Karpenter)
	out.Findings = append(out.Findings, errs...)
	out.Unread = errs
	if in.Cluster == nil {
		out.Findings = append(out.Findings, "no cluster state: give the snapshot `"+snapshot.Command+"` prints")
		return out
	}
	for _, f := range in.Cluster.Findings {
		out.Findings = append(out.Findings, "cluster state: "+f.String())
	}
	kv := in.Version
	clk := clocktesting.NewFakeClock(in.At)
	nodeOf := map[string]*corev1.Node{}
	for _, n := range in.Cluster.Nodes {
		nodeOf[n.Spec.ProviderID] = n
	}
	podsOn := map[string][]*corev1.Pod{}
	for _, p := range in.Cluster.Pods {
		if p.Spec.NodeName != "" {
			podsOn[p.Spec.NodeName] = append(podsOn[p.Spec.NodeName], p)
		}
	}
	pdbs := pdbSelectors(in.Cluster.PDBs)
	notCompared := map[string]bool{}
	defer func() { out.Notes = imagesNotCompared(in.Images, notCompared) }()
	for _, name := range sortedKeys(pools) {
		np := pools[name]
		pp := Pool{Name: name}
		poolHash, err := drift.NodePoolHash(np.spec, kv)
		if err != nil {
			out.Findings = append(out.Findings, fmt.Sprintf("NodePool %q: its hash cannot be computed (%v), so hash drift is not decided", name, err))
		}
		var classHash, classVersion string
		if c, ok := classes[np.spec.Template.Spec.NodeClassRef.Name]; ok && in.CABundle != nil {
			if classHash, err = drift.EC2NodeClassHash(c.Spec, *in.CABundle, kv); err != nil {
				out.Findings = append(out.Findings, fmt.Sprintf("EC2NodeClass %q: its hash cannot be computed (%v)", c.Metadata.Name, err))
			}
			classVersion = drift.EC2NodeClassHashVersion(kv)
		}
		for _, nc := range in.Cluster.NodeClaims {
			if nc.Labels[karpv1.NodePoolLabelKey] != name {
				continue
			}
			node := nodeOf[nc.Status.ProviderID]
			if !counted(nc, node) {
				continue
			}
			pp.Nodes++
			if node == nil || !nodeReady(node) || !nc.DeletionTimestamp.IsZero() || (node != nil && !node.DeletionTimestamp.IsZero()) {
				pp.Disrupting++
			}
			d := driftOf(np.karp, nc, poolHash, drift.NodePoolHashVersion(kv), classHash, classVersion)
			if d.Reason == "" {
				d = imageDrift(d, nc, in.Images, notCompared)
			}
			if d.Reason == "" {
				continue
			}
			d.Pool = name
			if node != nil {
				d.Node = node.Name
				d.Blocked = blocked(nc, node, podsOn[node.Name], pdbs)
			}
			if d.Blocked == "" {
				pp.Candidates++
			}
			pp.Drifted = append(pp.Drifted, d)
		}
		allowed := np.karp.MustGetAllowedDisruptions(clk, pp.Nodes, karpv1.DisruptionReasonDrifted)
		pp.Budgets = activeBudgets(np.karp, clk)
		pp.Allowed = max(allowed-pp.Disrupting, 0)
		switch {
		case pp.Candidates == 0:
		case pp.Allowed == 0:
			pp.Rounds = -1
		default:
			pp.Rounds = (pp.Candidates + pp.Allowed - 1) / pp.Allowed
		}
		slices.SortFunc(pp.Drifted, func(a, b Drifted) int { return cmp.Compare(a.NodeClaim, b.NodeClaim) })
		out.Pools = append(out.Pools, pp)
	}
	return out
}

// counted is BuildDisruptionBudgetMapping's filter: a node Karpenter
// manages, initialized, whose instance is not terminating.
func counted(nc *karpv1.NodeClaim, node *corev1.Node) bool {
	if node == nil || node.Labels[karpv1.NodeInitializedLabelKey] != "true" {
		return false
	}
	return !nc.StatusConditions().Get(karpv1.ConditionTypeInstanceTerminating).IsTrue()
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// driftOf is areStaticFieldsDrifted, then areRequirementsDrifted, then the
// EC2NodeClass's static fields.
func driftOf(np *karpv1.NodePool, nc *karpv1.NodeClaim, poolHash, poolVersion, classHash, classVersion string) Drifted {
	d := Drifted{NodeClaim: nc.Name}
	if h, ok := nc.Annotations[karpv1.NodePoolHashAnnotationKey]; ok && poolHash != "" && nc.Annotations[karpv1.NodePoolHashVersionAnnotationKey] == poolVersion && h != poolHash {
		d.Reason, d.Detail = NodePoolDrifted, fmt.Sprintf("its %s is %s, the configured spec.template hashes to %s", karpv1.NodePoolHashAnnotationKey, h, poolHash)
		return d
	}
	poolReqs := kscheduling.NewNodeSelectorRequirementsWithMinValues(np.Spec.Template.Spec.Requirements...)
	if err := kscheduling.NewLabelRequirements(nc.Labels).Compatible(poolReqs); err != nil {
		d.Reason, d.Detail = RequirementsDrifted, "its labels no longer meet the requirements: "+err.Error()
		return d
	}
	if h, ok := nc.Annotations[drift.EC2NodeClassHashAnnotation]; ok && classHash != "" && nc.Annotations[drift.EC2NodeClassHashVersionAnnotation] == classVersion && h != classHash {
		d.Reason, d.Detail = NodeClassDrifted, fmt.Sprintf("its %s is %s, the configured EC2NodeClass hashes to %s", drift.EC2NodeClassHashAnnotation, h, classHash)
	}
	return d
}

// blocked is why Karpenter would not disrupt the node now: the node's or
// a pod's karpenter.sh/do-not-disrupt, or a PodDisruptionBudget allowing
// no disruption of a pod (both waived by a terminationGracePeriod).
func blocked(nc *karpv1.NodeClaim, node *corev1.Node, pods []*corev1.Pod, pdbs []pdbSelector) string {
	if node.Annotations[karpv1.DoNotDisruptAnnotationKey] == "true" {
		return "the node has " + karpv1.DoNotDisruptAnnotationKey + `: "true"`
	}
	if nc.Spec.TerminationGracePeriod != nil {
		return ""
	}
	for _, p := range pods {
		if !active(p) {
			continue
		}
		if p.Annotations[karpv1.DoNotDisruptAnnotationKey] == "true" {
			return fmt.Sprintf("pod %s/%s has %s", p.Namespace, p.Name, karpv1.DoNotDisruptAnnotationKey)
		}
	}
	for _, p := range pods {
		if !evictable(p) {
			continue
		}
		for _, b := range pdbs {
			pdb := b.pdb
			if pdb.Namespace != p.Namespace || !b.sel.Matches(labels.Set(p.Labels)) {
				continue
			}
			if pdb.Status.DisruptionsAllowed == 0 {
				return fmt.Sprintf("PodDisruptionBudget %s/%s allows pod %s no disruption (status.disruptionsAllowed 0)", pdb.Namespace, pdb.Name, p.Name)
			}
		}
	}
	return ""
}

// pdbSelector is a PodDisruptionBudget with its selector, converted once
// per decision rather than once per pod.
type pdbSelector struct {
	pdb *policyv1.PodDisruptionBudget
	sel labels.Selector
}

// pdbSelectors are the budgets that select pods (a missing, empty or
// invalid selector selects none here).
func pdbSelectors(pdbs []*policyv1.PodDisruptionBudget) []pdbSelector {
	var out []pdbSelector
	for _, pdb := range pdbs {
		if pdb.Spec.Selector == nil {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil || sel.Empty() {
			continue
		}
		out = append(out, pdbSelector{pdb: pdb, sel: sel})
	}
	return out
}

// active is a pod neither terminal nor terminating.
func active(p *corev1.Pod) bool {
	return p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed && p.DeletionTimestamp.IsZero()
}

// evictable is a pod Karpenter would evict: active, not owned by a Node
// (static) and not a DaemonSet's, which it leaves alone.
func evictable(p *corev1.Pod) bool {
	if !active(p) {
		return false
	}
	for _, o := range p.OwnerReferences {
		if o.Kind == "Node" || o.Kind == "DaemonSet" {
			return false
		}
	}
	return true
}

// read decodes the configured NodePools and EC2NodeClasses.
func read(texts []string) (map[string]pool, map[string]manifest.EC2NodeClass, []string) {
	pools := map[string]pool{}
	classes := map[string]manifest.EC2NodeClass{}
	var errs []string
	for i, text := range texts {
		for _, d := range yamlstream.Split(text) {
			if yamlstream.Blank(d.Text) {
				continue
			}
			j, err := sigsyaml.YAMLToJSON([]byte(d.Text))
			if err != nil {
				errs = append(errs, fmt.Sprintf("pools[%d], line %d: not YAML: %v", i, d.Line, err))
				continue
			}
			var head metav1.TypeMeta
			_ = json.Unmarshal(j, &head)
			switch {
			case head.APIVersion == manifest.NodePoolAPIVersion && head.Kind == manifest.NodePoolKind:
				p, err := readPool(j)
				if err != nil {
					errs = append(errs, fmt.Sprintf("pools[%d], line %d: NodePool: %v", i, d.Line, err))
					continue
				}
				pools[p.karp.Name] = p
			case head.APIVersion == manifest.EC2NodeClassAPIVersion && head.Kind == manifest.EC2NodeClassKind:
				var m manifest.EC2NodeClass
				if err := json.Unmarshal(j, &m); err != nil {
					errs = append(errs, fmt.Sprintf("pools[%d], line %d: EC2NodeClass: %v", i, d.Line, err))
					continue
				}
				classes[m.Metadata.Name] = m
			}
		}
	}
	if len(pools) == 0 && len(errs) == 0 {
		errs = append(errs, "the configuration holds no karpenter.sh/v1 NodePool")
	}
	return pools, classes, errs
}

// readPool decodes a NodePool: the project's model for its hash, and
// Karpenter's type as the API server stores it (the CRD's defaults, such
// as the budget of nodes "10%" a pool without budgets gets), for the
// budget arithmetic and requirements.
func readPool(j []byte) (pool, error) {
	var m manifest.NodePool
	if err := json.Unmarshal(j, &m); err != nil {
		return pool{}, err
	}
	var obj map[string]any
	if err := json.Unmarshal(j, &obj); err != nil {
		return pool{}, err
	}
	res, err := crd.NodePool.Validate(context.Background(), obj)
	if err != nil {
		return pool{}, err
	}
	if len(res.Errors) > 0 {
		return pool{}, fmt.Errorf("NodePool %s: the API server would refuse it (%s), so Karpenter never sees this configuration; fix it first (karpenter-lint lint)", m.Metadata.Name, res.Errors[0].Text)
	}
	stored, err := json.Marshal(res.Object)
	if err != nil {
		return pool{}, err
	}
	p := pool{karp: &karpv1.NodePool{}, spec: m.Spec}
	if err := json.Unmarshal(stored, p.karp); err != nil {
		return pool{}, err
	}
	return p, nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Summary is the plan in a few lines.
func (p *Plan) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "At %s (UTC):\n", p.At.UTC().Format(time.RFC3339))
	for _, pp := range p.Pools {
		fmt.Fprintf(&b, "NodePool %s: %d of %d nodes drifted", pp.Name, len(pp.Drifted), pp.Nodes)
		if len(pp.Drifted) > 0 {
			fmt.Fprintf(&b, ", %d can be disrupted", pp.Candidates)
			switch {
			case pp.Rounds < 0:
				b.WriteString("; the drift budget allows none now")
			case pp.Rounds > 0:
				fmt.Fprintf(&b, "; %d at once, in %d round(s)", pp.Allowed, pp.Rounds)
			}
		}
		b.WriteString("\n")
		for _, d := range pp.Drifted {
			fmt.Fprintf(&b, "  %s (node %s): %s: %s", d.NodeClaim, d.Node, d.Reason, d.Detail)
			if d.Blocked != "" {
				b.WriteString("; blocked: " + d.Blocked)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}
