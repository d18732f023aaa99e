package drift

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// ImageChange is one resolved image that differs between the state and the
// plan, under its stable key ("amd64/standard").
type ImageChange struct {
	Key string
	// Old and New identify the image (its id); "" means the key is new, or
	// gone.
	Old, New string
}

// ImageChanges compares two resolved image maps (stable key -> the image as
// it should be shown) and returns the keys whose image differs, sorted.
func ImageChanges(old, updated map[string]string) []ImageChange {
	var out []ImageChange
	for k, o := range old {
		if n := updated[k]; n != o {
			out = append(out, ImageChange{Key: k, Old: o, New: n})
		}
	}
	for k, n := range updated {
		if _, ok := old[k]; !ok {
			out = append(out, ImageChange{Key: k, New: n})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// Pool is what paces the replacement on one NodePool.
type Pool struct {
	// Budgets as configured; nil means Karpenter's default, one budget of
	// nodes = "10%".
	Budgets []manifest.Budget
	// TerminationGracePeriod as configured; "" means unset.
	TerminationGracePeriod string
}

// Preview is what one update of an EC2NodeClass or NodePool does to running
// nodes.
type Preview struct {
	// Kind is "EC2NodeClass" or "NodePool"; Name its metadata.name.
	Kind, Name string
	// Changes as EC2NodeClassChanges or NodePoolChanges return them.
	Changes []Change
	// Images are the resolved images that changed: the class's, or the
	// ones a NodePool's nodes boot.
	Images []ImageChange
	// Pool paces a NodePool's replacement. It is nil for an EC2NodeClass:
	// the class's plan does not know which pools use it, and each pool's
	// own warning says how its budgets pace it.
	Pool *Pool
	// Cluster, when a cluster snapshot is given, says how many of its
	// NodeClaims the planned object drifts and which pools they are of
	// (disruption.Tally); ClusterDrifted counts them. The snapshot's
	// NodeClaims are the "before": they warn even when nothing changed
	// against the state (the object is new to Terraform, or the cluster
	// runs something else).
	Cluster        string
	ClusterDrifted int
}

// Drifts reports whether the update replaces running nodes: a hashed field
// (or the resolved AMI family, or the CA bundle) changed, or a resolved
// image did. Changes Karpenter does not hash never warn on their own.
func (p Preview) Drifts() bool {
	return len(p.Images) > 0 || len(p.hashed()) > 0 || p.ClusterDrifted > 0
}

func (p Preview) hashed() []string { return p.paths(ReplacesAll) }

// Finding is the nodes-will-drift warning for p (on the whole resource), or
// false when the update replaces nothing.
func (p Preview) Finding() (rules.Finding, bool) {
	if !p.Drifts() {
		return rules.Finding{}, false
	}
	return rules.New(RuleNodesWillDrift, rules.Path{}, "%s", p.Detail()), true
}

// Detail is the text of the nodes-will-drift warning: why nodes are
// replaced, which, and what paces it. It says only what the plan above it
// does not: the changed images are printed there (the class's amis, each
// pool's ami_assignments), so the warning names their keys, not their ids,
// and the summary names the object.
func (p Preview) Detail() string {
	if len(p.Images) == 0 && len(p.hashed()) == 0 {
		return p.clusterDetail()
	}
	var b strings.Builder
	var causes []string
	if h := p.hashed(); len(h) > 0 {
		hv := "karpenter.k8s.aws/ec2nodeclass-hash"
		if p.Kind == manifest.NodePoolKind {
			hv = "karpenter.sh/nodepool-hash"
		}
		causes = append(causes, fmt.Sprintf("%s changes the %s", strings.Join(h, ", "), hv))
	}
	if len(p.Images) > 0 {
		causes = append(causes, imageCount(p.Images))
	}
	fmt.Fprintf(&b, "%s: Karpenter replaces ", strings.Join(causes, ", and "))
	nodes := "the nodes of the pools on this class"
	if p.Kind == manifest.NodePoolKind {
		nodes = "this pool's nodes"
	}
	if len(p.hashed()) > 0 {
		fmt.Fprintf(&b, "%s launched before it (Drifted: a new node first, then a drain)", nodes)
	} else {
		fmt.Fprintf(&b, "%s booted from the old images (AMIDrift)", nodes)
	}
	if p.Pool == nil {
		b.WriteString(", each pool at the pace of its disruption budgets (default: 10% of its nodes at a time).")
	} else {
		b.WriteString(", " + pacing(*p.Pool) + ".")
	}
	var m []string
	for _, path := range p.paths(ReplacesMismatched) {
		// The images a changed amiSelectorTerms resolves to are the
		// images above; the other selectors drift what they no longer
		// select.
		if path != "spec.amiSelectorTerms" {
			m = append(m, path)
		}
	}
	if len(m) > 0 {
		fmt.Fprintf(&b, " Also, %s replaces the nodes it no longer selects.", strings.Join(m, ", "))
	}
	if p.Cluster != "" {
		fmt.Fprintf(&b, " On the cluster state, %s.", p.Cluster)
	}
	return b.String()
}

// clusterDetail is the warning when only the cluster state says nodes
// drift: the planned object differs from what its NodeClaims were
// launched with, though not from the Terraform state.
func (p Preview) clusterDetail() string {
	what := "the nodes of the pools on this class"
	pace := "each pool at the pace of its disruption budgets (default: 10% of its nodes at a time)"
	if p.Kind == manifest.NodePoolKind {
		what = "this pool's nodes"
		if p.Pool != nil {
			pace = pacing(*p.Pool)
		}
	}
	return fmt.Sprintf("On the cluster state, %s: the %s as configured differs from what they were launched with, so Karpenter replaces %s, %s.",
		p.Cluster, p.Kind, what, pace)
}

func (p Preview) paths(e Effect) []string {
	var out []string
	for _, c := range p.Changes {
		if c.Effect == e {
			out = append(out, c.Path)
		}
	}
	return out
}

// imageCount names the changed images by key ("2 images change
// (amd64/nvidia, arm64/nvidia)"): their ids and names are in the plan.
func imageCount(images []ImageChange) string {
	keys := make([]string, 0, len(images))
	for _, im := range images {
		keys = append(keys, im.Key)
	}
	sort.Strings(keys)
	if len(keys) == 1 {
		return fmt.Sprintf("1 image changes (%s)", keys[0])
	}
	return fmt.Sprintf("%d images change (%s)", len(keys), strings.Join(keys, ", "))
}

// pacing describes how Karpenter paces drift replacement on one pool
// (kubernetes-sigs/karpenter pkg/apis/v1/nodepool.go
// GetAllowedDisruptionsByReason, pkg/controllers/disruption/drift.go;
// terminationGracePeriod: pkg/controllers/node/termination).
func pacing(pl Pool) string {
	var b strings.Builder
	budgets := pl.Budgets
	if budgets == nil {
		budgets = []manifest.Budget{{Nodes: "10%"}}
	}
	var always, scheduled []string
	for _, bu := range budgets {
		if len(bu.Reasons) > 0 && !slices.Contains(bu.Reasons, "Drifted") {
			continue // a budget for other reasons does not limit drift
		}
		if bu.Schedule == nil {
			always = append(always, bu.Nodes)
		} else {
			scheduled = append(scheduled, fmt.Sprintf("%s during %q for %s", bu.Nodes, *bu.Schedule, deref(bu.Duration)))
		}
	}
	switch {
	case len(always) == 0 && len(scheduled) == 0:
		b.WriteString("all at once: no budget limits drift")
	case len(always) > 0:
		b.WriteString(limit(always))
	default:
		b.WriteString("with no budget limiting drift outside its schedules")
	}
	if len(scheduled) > 0 {
		fmt.Fprintf(&b, ", %s", strings.Join(scheduled, ", "))
	}
	if pl.TerminationGracePeriod == "" {
		b.WriteString("; a drain waits for PodDisruptionBudgets and do-not-disrupt pods (no terminationGracePeriod)")
	} else {
		fmt.Fprintf(&b, "; pods still blocking a drain are deleted after terminationGracePeriod %s", pl.TerminationGracePeriod)
	}
	return b.String()
}

// limit says how many nodes the always-active drift budgets let Karpenter
// disrupt at once: the smallest (GetAllowedDisruptionsByReason takes the
// minimum; percentages of the pool's nodes round up).
func limit(nodes []string) string {
	var pct, abs []string
	for _, n := range nodes {
		if strings.HasSuffix(n, "%") {
			pct = append(pct, n)
		} else {
			abs = append(abs, n)
		}
	}
	p, a := smallest(pct), smallest(abs)
	switch {
	case p == "0%" || a == "0":
		return "but a budget of 0 nodes holds the replacement until it changes"
	case a == "":
		return fmt.Sprintf("at most %s of its nodes at a time (rounded up)", p)
	case p == "" && a == "1":
		return "at most 1 node at a time"
	case p == "":
		return fmt.Sprintf("at most %s nodes at a time", a)
	}
	return fmt.Sprintf("at most the smaller of %s, %s nodes at a time (which one binds depends on the pool's size)", p, a)
}

func smallest(nodes []string) string {
	best := ""
	for _, n := range nodes {
		if best == "" || number(n) < number(best) {
			best = n
		}
	}
	return best
}

func number(s string) int {
	n, err := strconv.Atoi(strings.TrimSuffix(s, "%"))
	if err != nil {
		return math.MaxInt // a malformed budget is another rule's error
	}
	return n
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// RuleNodesWillDrift is the warning an update gets when it changes what
// Karpenter hashes, or the images it resolves, so that running nodes will be
// replaced.
var RuleNodesWillDrift = rules.Register(rules.Rule{
	ID: "nodes-will-drift", Severity: rules.Warning, Category: Category,
	Title: "this update replaces running nodes",
	Behaviour: "Karpenter stamps karpenter.k8s.aws/ec2nodeclass-hash and karpenter.sh/nodepool-hash on the class, the pool and every NodeClaim. " +
		"An update that changes a hashed field (everything in the EC2NodeClass spec but the selector terms and amiFamily, whose resolved family is hashed instead; " +
		"the NodePool's spec.template but its requirements; from Karpenter 1.12 the cluster CA bundle) makes every NodeClaim launched before it Drifted, " +
		"and so does a change of the images the class resolves (AMIDrift). Karpenter then replaces those nodes, a replacement first and a drain after, " +
		"at most as many at once as the pool's disruption budgets allow (10% by default); expireAfter replaces nodes regardless of budgets and " +
		"terminationGracePeriod bounds how long pods may block a drain. Weight, limits, disruption settings and the fields marked hash:\"ignore\" do not drift nodes. " +
		"The provider's drift_hash attributes equal the annotations Karpenter writes for the configured karpenter_version. " +
		"With a snapshot of the running cluster (the provider's cluster_state, karpenter-lint lint --cluster-state) the warning counts the " +
		"NodeClaims the configuration drifts and names their pools and reasons, their annotations and images being the \"before\"; it then also " +
		"fires for an object new to Terraform that differs from what its nodes were launched with.",
	Source: "aws/karpenter-provider-aws pkg/apis/v1/ec2nodeclass.go EC2NodeClass.Hash, EC2NodeClassHashVersion; pkg/cloudprovider/drift.go areStaticFieldsDrifted, isAMIDrifted; " +
		"kubernetes-sigs/karpenter pkg/apis/v1/nodepool.go NodePool.Hash, NodePoolHashVersion; pkg/controllers/disruption/drift.go; designs/drift-hash-versioning.md",
	Bad: classExample([]string{"# was al2023@v20251112: every node of the class is replaced", `alias = "al2023@v20251209"`}),
	Good: classExample([]string{`alias = "al2023@v20251209"`}, "# the rollout is paced by the pool's drift budget below", `acknowledged_warnings = ["nodes-will-drift"]`) + "\n\n" +
		rules.Block(`resource "karpenter_nodepool" "default"`,
			`name = "default"`, "node_class = karpenter_ec2nodeclass.default.node_class",
			rules.Block("disruption", `consolidate_after = "1m"`, rules.Block("budgets", `nodes = "1"`, `reasons = ["Drifted"]`))),
})
