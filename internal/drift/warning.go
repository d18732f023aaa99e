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
	// Old and New are shown as given (e.g. "ami-0abc (al2023-...-v20251112)");
	// "" means the key is new, or gone.
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

// Pool is what paces the replacement on one NodePool of the class.
type Pool struct {
	Name string
	// Budgets as configured; nil means Karpenter's default, one budget of
	// nodes = "10%".
	Budgets []manifest.Budget
	// ExpireAfter as configured; "" means the CRD default, 720h.
	ExpireAfter string
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
	// Images are the resolved images that changed (EC2NodeClass, or the
	// class of a NodePool).
	Images []ImageChange
	// Pools are the NodePools whose nodes are replaced: the pool itself
	// for a NodePool, the pools on the class for an EC2NodeClass (empty when
	// they are not known where the warning is made).
	Pools []Pool
}

// Drifts reports whether the update replaces running nodes: a hashed field
// (or the resolved AMI family, or the CA bundle) changed, or a resolved
// image did. Changes Karpenter does not hash never warn on their own.
func (p Preview) Drifts() bool {
	return len(p.Images) > 0 || len(p.hashed()) > 0
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

// Detail is the text of the nodes-will-drift warning: what changed, which
// nodes Karpenter replaces, and what paces it.
func (p Preview) Detail() string {
	var b strings.Builder
	what := fmt.Sprintf("%s %q", p.Kind, p.Name)
	var causes []string
	if h := p.hashed(); len(h) > 0 {
		hv := "karpenter.k8s.aws/ec2nodeclass-hash"
		if p.Kind == manifest.NodePoolKind {
			hv = "karpenter.sh/nodepool-hash"
		}
		causes = append(causes, fmt.Sprintf("%s changes the %s of %s", strings.Join(h, ", "), hv, what))
	}
	if len(p.Images) > 0 {
		causes = append(causes, fmt.Sprintf("the images resolve differently (%s)", imageList(p.Images)))
	}
	fmt.Fprintf(&b, "This update drifts running nodes: %s.", strings.Join(causes, "; "))
	if len(p.Images) > 0 && len(p.hashed()) == 0 {
		b.WriteString(" Karpenter replaces every node whose image is no longer the one it would pick for its instance type (AMIDrift).")
	} else {
		b.WriteString(" Karpenter marks every node launched before the change Drifted and replaces it: a replacement is launched first, then the old node is drained.")
	}
	if p.Kind == manifest.EC2NodeClassKind {
		b.WriteString(" This applies to every NodePool that uses this class.")
	}
	if len(p.Pools) == 0 {
		b.WriteString(" Each pool's disruption budgets pace it (default: 10% of the pool's nodes at a time); expireAfter replaces nodes regardless of budgets, and terminationGracePeriod bounds how long a drain may be blocked.")
	} else {
		for _, pl := range p.Pools {
			b.WriteString(" " + pacing(pl))
		}
	}
	if m := p.paths(ReplacesMismatched); len(m) > 0 {
		fmt.Fprintf(&b, " Also changed, replacing only the nodes that no longer match: %s.", strings.Join(m, ", "))
	}
	if n := p.paths(NoReplacement); len(n) > 0 {
		fmt.Fprintf(&b, " Also changed, replacing no nodes: %s.", strings.Join(n, ", "))
	}
	return b.String()
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

func imageList(images []ImageChange) string {
	sorted := append([]ImageChange(nil), images...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Key < sorted[j].Key })
	parts := make([]string, 0, len(sorted))
	for _, im := range sorted {
		switch {
		case im.Old == "":
			parts = append(parts, fmt.Sprintf("%s: new %s", im.Key, im.New))
		case im.New == "":
			parts = append(parts, fmt.Sprintf("%s: %s no longer selected", im.Key, im.Old))
		default:
			parts = append(parts, fmt.Sprintf("%s: %s -> %s", im.Key, im.Old, im.New))
		}
	}
	return strings.Join(parts, "; ")
}

// pacing describes how Karpenter paces drift replacement on one pool
// (kubernetes-sigs/karpenter pkg/apis/v1/nodepool.go
// GetAllowedDisruptionsByReason, pkg/controllers/disruption/drift.go).
func pacing(pl Pool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "NodePool %q: ", pl.Name)
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
		b.WriteString("no budget limits drift, so Karpenter may replace all its drifted nodes at once (one replacement decision per disruption pass)")
	case len(always) > 0:
		b.WriteString(limit(always))
	default:
		b.WriteString("no budget limits drift outside its schedules")
	}
	if len(scheduled) > 0 {
		fmt.Fprintf(&b, "; scheduled budgets: %s", strings.Join(scheduled, ", "))
	}
	expire := pl.ExpireAfter
	if expire == "" {
		expire = defaultExpireAfter
	}
	if expire == "Never" {
		b.WriteString("; expireAfter is Never, so nodes a budget holds back stay until drift gets to them")
	} else {
		fmt.Fprintf(&b, "; nodes older than expireAfter (%s) are replaced regardless of budgets", expire)
	}
	if pl.TerminationGracePeriod == "" {
		b.WriteString("; no terminationGracePeriod: a node whose pods are protected by a PodDisruptionBudget or karpenter.sh/do-not-disrupt is not drained until they allow it.")
	} else {
		fmt.Fprintf(&b, "; terminationGracePeriod %s: draining starts even when pods block eviction, and they are deleted after %s.", pl.TerminationGracePeriod, pl.TerminationGracePeriod)
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
		return "a budget of 0 nodes blocks drift replacement"
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
