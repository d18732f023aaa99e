package scheduling

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// canonicalise puts the decision in the order the package documentation
// describes, so that the same input reads the same on every plan:
//
//   - Zones Karpenter cannot tell apart are named in a canonical order.
//     Karpenter breaks a tie between zones (topology spread, pod affinity
//     with no pod yet) in Go map order, so the same input can put the
//     extra replica of a spread in any of them. Zones are interchangeable
//     when every NodePool's instance types have the same offerings in
//     each and no input names them (symmetric); among the relabellings
//     of interchangeable zones the decision that sorts first is kept.
//   - Replicas that only differ by name are numbered in the order of the
//     NodeClaims they land on (Karpenter orders equal pods by random UIDs).
//   - NodeClaims are sorted by pool, zones, capacity types, architectures,
//     instance types and pods.
func canonicalise(d *Decision, distinct map[string]bool, symmetric [][]string) {
	start := numberExisting(d.ExistingNodes, distinct)
	best := slices.Clone(d.NodeClaims)
	order(best, distinct, start)
	bestKey := claimsKey(best)
	for _, perm := range relabellings(symmetric) {
		cand := make([]NodeClaim, len(d.NodeClaims))
		for i, nc := range d.NodeClaims {
			nc.Pods = slices.Clone(nc.Pods)
			nc.Zones = make([]string, len(nc.Zones))
			for j, z := range d.NodeClaims[i].Zones {
				if to, ok := perm[z]; ok {
					z = to
				}
				nc.Zones[j] = z
			}
			slices.Sort(nc.Zones)
			cand[i] = nc
		}
		order(cand, distinct, start)
		if k := claimsKey(cand); k < bestKey {
			best, bestKey = cand, k
		}
	}
	d.NodeClaims = best
}

// numberExisting sorts the existing nodes by name and numbers the
// interchangeable replicas on them first; it returns the next number of
// each workload, where the new NodeClaims' numbering starts.
func numberExisting(nodes []ExistingNode, distinct map[string]bool) map[string]int {
	slices.SortFunc(nodes, func(a, b ExistingNode) int { return cmp.Compare(a.Name, b.Name) })
	next := map[string]int{}
	for _, n := range nodes {
		slices.Sort(n.Pods)
		for j, p := range n.Pods {
			if w, _ := splitPodKey(p); !distinct[w] {
				n.Pods[j] = w + "/" + strconv.Itoa(next[w])
				next[w]++
			}
		}
	}
	return next
}

// order sorts NodeClaims and numbers interchangeable replicas, from start.
func order(claims []NodeClaim, distinct map[string]bool, start map[string]int) {
	anon := func(p string) string {
		w, i := splitPodKey(p)
		if distinct[w] {
			return w + "/" + padIndex(i)
		}
		return w + "/"
	}
	for i := range claims {
		slices.SortStableFunc(claims[i].Pods, func(a, b string) int { return cmp.Compare(anon(a), anon(b)) })
	}
	type keyed struct {
		key string
		nc  NodeClaim
	}
	ks := make([]keyed, len(claims))
	for i, nc := range claims {
		var b strings.Builder
		for _, part := range [][]string{{nc.NodePool}, nc.Zones, nc.CapacityTypes, nc.Architectures, nc.InstanceTypes} {
			b.WriteString(strings.Join(part, ","))
			b.WriteByte('|')
		}
		for _, p := range nc.Pods {
			b.WriteString(anon(p))
			b.WriteByte(',')
		}
		ks[i] = keyed{b.String(), nc}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int { return cmp.Compare(a.key, b.key) })
	for i := range ks {
		claims[i] = ks[i].nc
	}
	next := maps.Clone(start)
	for _, nc := range claims {
		for j, p := range nc.Pods {
			if w, _ := splitPodKey(p); !distinct[w] {
				nc.Pods[j] = w + "/" + strconv.Itoa(next[w])
				next[w]++
			}
		}
	}
}

func claimsKey(claims []NodeClaim) string {
	var b strings.Builder
	for _, nc := range claims {
		b.WriteString(nc.NodePool + "|" + strings.Join(nc.Zones, ",") + "|" + strings.Join(nc.Pods, ",") + "\n")
	}
	return b.String()
}

// maxRelabellings bounds the search: six interchangeable zones (720).
const maxRelabellings = 720

// relabellings are the permutations of each group of interchangeable
// zones, combined (the identity left out); none when there are more than
// maxRelabellings.
func relabellings(groups [][]string) []map[string]string {
	out := []map[string]string{{}}
	for _, g := range groups {
		var next []map[string]string
		for _, p := range permutations(g) {
			for _, base := range out {
				m := make(map[string]string, len(base)+len(g))
				for k, v := range base {
					m[k] = v
				}
				for i, z := range g {
					m[z] = p[i]
				}
				next = append(next, m)
			}
			if len(next) > maxRelabellings {
				return nil
			}
		}
		out = next
	}
	return out[1:]
}

func permutations(s []string) [][]string {
	if len(s) <= 1 {
		return [][]string{slices.Clone(s)}
	}
	var out [][]string
	for i := range s {
		rest := append(slices.Clone(s[:i]), s[i+1:]...)
		for _, p := range permutations(rest) {
			out = append(out, append([]string{s[i]}, p...))
		}
	}
	return out
}

// symmetricZones groups the zones the decision cannot tell apart: those in
// which the instance types every scheduling pool admits have the same available
// offerings (capacity type and reservation) and that no input names (by
// zone or zone id). Groups of one are left out.
func symmetricZones(pools []poolFacts, zoneIDs map[string]string, inputs []string) [][]string {
	sig := map[string][]string{}
	for _, pf := range pools {
		for _, it := range pf.admitted {
			for _, o := range it.Offerings {
				if !o.Available {
					continue
				}
				z := o.Zone()
				sig[z] = append(sig[z], pf.pool.Name+"|"+it.Name+"|"+o.CapacityType()+"|"+o.ReservationID())
			}
		}
	}
	named := func(z string) bool {
		for _, s := range inputs {
			if strings.Contains(s, z) || (zoneIDs[z] != "" && strings.Contains(s, zoneIDs[z])) {
				return true
			}
		}
		return false
	}
	bySig := map[string][]string{}
	for z, tokens := range sig {
		if named(z) {
			continue
		}
		slices.Sort(tokens)
		k := strings.Join(tokens, "\n")
		bySig[k] = append(bySig[k], z)
	}
	var out [][]string
	for _, zs := range bySig {
		if len(zs) > 1 {
			slices.Sort(zs)
			out = append(out, zs)
		}
	}
	slices.SortFunc(out, func(a, b []string) int { return cmp.Compare(a[0], b[0]) })
	return out
}

func splitPodKey(p string) (workload string, index int) {
	i := strings.LastIndexByte(p, '/')
	n, _ := strconv.Atoi(p[i+1:])
	return p[:i], n
}

// padIndex makes indices sort numerically as strings.
func padIndex(i int) string {
	s := strconv.Itoa(i)
	return strings.Repeat("0", max(0, 10-len(s))) + s
}
