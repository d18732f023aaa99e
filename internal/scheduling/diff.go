package scheduling

import (
	"maps"
	"slices"
	"strings"
)

// Diff is what a change to the NodePools and EC2NodeClasses does to the
// same workloads: the workloads whose pods land elsewhere, and the
// NodeClaims that appear or go.
type Diff struct {
	Moves []Move
	// Added and Removed are the NodeClaims only the new or only the old
	// decision has (as a multiset: of three equal NodeClaims before and
	// two after, one is removed).
	Added, Removed []NodeClaim
	// Cost is what the change adds (negative: saves), per NodePool and in
	// total: the new decision's cost less the old one's.
	Cost Cost
}

// Move is a workload whose pods land elsewhere: pods per NodePool before
// and after, the pods not placed under Unplaced.
type Move struct {
	Key           string
	Before, After map[string]int
}

// Unplaced is the key of Move's maps for pods Karpenter would not place.
const Unplaced = "(not placed)"

// Compare is the change from before to after.
func Compare(before, after *Decision) Diff {
	var d Diff
	landing := func(w WorkloadResult) map[string]int {
		m := maps.Clone(w.NodePools)
		if m == nil {
			m = map[string]int{}
		}
		if w.Unschedulable > 0 {
			m[Unplaced] = w.Unschedulable
		}
		return m
	}
	old := map[string]map[string]int{}
	for _, w := range before.Workloads {
		old[w.Key] = landing(w)
	}
	for _, w := range after.Workloads {
		now := landing(w)
		if prev, ok := old[w.Key]; ok && !maps.Equal(prev, now) {
			d.Moves = append(d.Moves, Move{Key: w.Key, Before: prev, After: now})
		}
	}
	count := map[string]int{}
	for _, nc := range before.NodeClaims {
		count[claimIdentity(nc)]++
	}
	for _, nc := range after.NodeClaims {
		k := claimIdentity(nc)
		if count[k] > 0 {
			count[k]--
			continue
		}
		d.Added = append(d.Added, nc)
	}
	for _, nc := range before.NodeClaims {
		if k := claimIdentity(nc); count[k] > 0 {
			count[k]--
			d.Removed = append(d.Removed, nc)
		}
	}
	d.Cost = after.Cost.Sub(before.Cost)
	return d
}

// claimIdentity is what tells NodeClaims apart across decisions: where and
// how they launch and which workloads' pods they hold (replica numbers
// are the canonical order's, not the pods').
func claimIdentity(nc NodeClaim) string {
	pods := make([]string, len(nc.Pods))
	for i, p := range nc.Pods {
		pods[i], _ = splitPodKey(p)
	}
	slices.Sort(pods)
	return strings.Join([]string{nc.NodePool, strings.Join(nc.Zones, ","), strings.Join(nc.CapacityTypes, ","),
		strings.Join(nc.Architectures, ","), strings.Join(nc.InstanceTypes, ","), strings.Join(pods, ",")}, "|")
}
