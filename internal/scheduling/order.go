package scheduling

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/samber/lo"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	kscheduling "sigs.k8s.io/karpenter/pkg/scheduling"
	"sigs.k8s.io/karpenter/pkg/utils/resources"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// PoolOrder is one NodePool Karpenter schedules with, at its place in
// Karpenter's order, and what it took.
type PoolOrder struct {
	Name string
	// Rank is its place in Karpenter's order, from 1: weight descending,
	// equal weights by name descending (nodepoolutils.OrderByWeight).
	Rank   int
	Weight int32
	// NodeClaims and Pods count what it took; Workloads are the pods
	// of each workload it took.
	NodeClaims, Pods int
	Workloads        map[string]int
}

// OrderRule says how Karpenter orders NodePools, for explanations.
const OrderRule = "Karpenter tries NodePools by weight, highest first, and NodePools of equal weight by name in reverse " +
	"alphabetical order (kubernetes-sigs/karpenter pkg/utils/nodepool OrderByWeight); a pod goes to the first NodePool " +
	"in that order that can take it, after the NodeClaims already opened for other pods"

// Explain is one line per NodePool of the input: its place in Karpenter's
// order and what it took, or why Karpenter leaves it out.
func (d *Decision) Explain() map[string]string {
	out := make(map[string]string, len(d.NodePools))
	for _, p := range d.NodePools {
		if p.Skipped != "" {
			out[p.Name] = "left out: " + p.Skipped
		}
	}
	for _, o := range d.Order {
		var b strings.Builder
		fmt.Fprintf(&b, "%s of %d (weight %d", ordinal(o.Rank), len(d.Order), o.Weight)
		if ties := d.tiedWith(o); len(ties) > 0 {
			fmt.Fprintf(&b, ", equal weight with %s: reverse name order", quoteAll(ties))
		}
		b.WriteString("): ")
		if o.Pods == 0 {
			b.WriteString("took no pod")
		} else {
			fmt.Fprintf(&b, "took %d pods on %d NodeClaims: ", o.Pods, o.NodeClaims)
			keys := slices.Sorted(maps.Keys(o.Workloads))
			for i, k := range keys {
				if i > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "%s %d", k, o.Workloads[k])
			}
		}
		out[o.Name] = b.String()
	}
	return out
}

func (d *Decision) tiedWith(o PoolOrder) []string {
	var out []string
	for _, p := range d.Order {
		if p.Name != o.Name && p.Weight == o.Weight {
			out = append(out, p.Name)
		}
	}
	return out
}

func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}

// order records Karpenter's pool order (pools as OrderByWeight left them)
// and what each pool took.
func (d *Decision) order(pools []*v1.NodePool) {
	left := map[string]bool{}
	for _, r := range d.NodePools {
		left[r.Name] = r.Skipped != ""
	}
	byName := map[string]*PoolOrder{}
	for _, p := range pools {
		if left[p.Name] { // NewScheduler drops it: no place in the order
			continue
		}
		d.Order = append(d.Order, PoolOrder{Name: p.Name, Rank: len(d.Order) + 1, Weight: lo.FromPtr(p.Spec.Weight), Workloads: map[string]int{}})
	}
	for i := range d.Order {
		byName[d.Order[i].Name] = &d.Order[i]
	}
	for _, nc := range d.NodeClaims {
		o := byName[nc.NodePool]
		if o == nil {
			continue
		}
		o.NodeClaims++
		for _, p := range nc.Pods {
			w, _ := splitPodKey(p)
			o.Workloads[w]++
			o.Pods++
		}
	}
}

// weightTies warns, for each pair of NodePools of equal weight, about the
// workloads the first in Karpenter's order took that the second would
// admit too: which takes them then rests on the pools' names, which is
// rarely what the author meant.
func (p *Parsed) weightTies(d *Decision, facts []poolFacts, volumeReqs map[types.UID][]kscheduling.Requirements, daemons []*corev1.Pod) {
	factsOf := map[string]poolFacts{}
	for _, pf := range facts {
		factsOf[pf.pool.Name] = pf
	}
	workloads := map[string]*Workload{}
	for _, w := range p.world.workloads {
		workloads[w.Key] = w
	}
	for i, first := range d.Order {
		for _, second := range d.Order[i+1:] {
			if second.Weight != first.Weight {
				continue
			}
			pf, ok := factsOf[second.Name]
			if !ok {
				continue
			}
			var both []string
			for _, k := range slices.Sorted(maps.Keys(first.Workloads)) {
				w := workloads[k]
				if w == nil || len(w.Pods) == 0 {
					continue
				}
				pod := w.Pods[0]
				if advisePool(pod, kscheduling.NewStrictPodRequirements(pod), resources.RequestsForPods(pod), volumeReqs[pod.UID], pf, daemons) == "" {
					both = append(both, k)
				}
			}
			if len(both) == 0 {
				continue
			}
			np := p.poolNamed(second.Name)
			if np == nil {
				continue
			}
			d.Findings = append(d.Findings, Finding{
				Finding: rules.New(ruleWeightTie, p.element(p.poolList, np.input),
					"NodePool %q (%s) and NodePool %q have the same weight (%d), and both admit %s. %s, so %q takes them "+
						"and %q only what %q cannot. If %q is meant to take them first, give it a higher `weight` "+
						"(spec.weight); if the order is meant, give %q the higher weight to say so.",
					second.Name, p.describe(p.poolList, np.input, np.pos), first.Name, first.Weight, quoteAll(both), OrderRule,
					first.Name, second.Name, first.Name, second.Name, first.Name),
				List: p.poolList, Input: np.input, Position: np.pos, Object: "/NodePool/" + second.Name,
			})
		}
	}
}

func (p *Parsed) poolNamed(name string) *nodePool {
	i := slices.IndexFunc(p.pools, func(np nodePool) bool { return np.pool.Name == name })
	if i < 0 {
		return nil
	}
	return &p.pools[i]
}

// The rules the checks of this file emit.
var (
	ruleWeightTie = rules.Register(rules.Rule{
		ID: "nodepool-weight-tie", Severity: rules.Warning, Category: Category,
		Title: "NodePools of equal weight admit the same pods: their names decide which takes them",
		Behaviour: "Karpenter tries NodePools by `weight`, highest first, and NodePools of equal weight (no weight is 0) by " +
			"name in reverse alphabetical order (`spot` before `general`). A pod goes to the first NodePool in that order " +
			"that can take it, so when two NodePools of equal weight both admit a workload, the one whose name sorts last " +
			"takes all its pods and the other none (until the first reaches its limits). That is rarely what the author " +
			"meant: give the NodePool meant to take them first the higher weight.",
		Source: "kubernetes-sigs/karpenter pkg/utils/nodepool/nodepool.go (OrderByWeight), " +
			"pkg/controllers/provisioning/scheduling/scheduler.go (addToNewNodeClaim)",
		Bad: example([]string{examplePool("general", ""), examplePool("spot", "")}, []string{exampleClass},
			[]string{exampleDeployment("2", "500m", "")}, ""),
		Good: example([]string{strings.Replace(examplePool("general", ""), "spec:\n  template:", "spec:\n  weight: 10\n  template:", 1),
			examplePool("spot", "")}, []string{exampleClass}, []string{exampleDeployment("2", "500m", "")}, ""),
	})
)
