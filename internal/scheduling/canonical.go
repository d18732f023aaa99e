package scheduling

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	scheduler "sigs.k8s.io/karpenter/pkg/controllers/provisioning/scheduling"
	kscheduling "sigs.k8s.io/karpenter/pkg/scheduling"
	"sigs.k8s.io/karpenter/pkg/utils/resources"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/yamlstream"
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
func canonicalise(claims []NodeClaim, distinct map[string]bool, symmetric [][]string) []NodeClaim {
	best := slices.Clone(claims)
	order(best, distinct)
	bestKey := claimsKey(best)
	for _, perm := range relabellings(symmetric) {
		cand := make([]NodeClaim, len(claims))
		for i, nc := range claims {
			nc.Pods = slices.Clone(nc.Pods)
			nc.Zones = make([]string, len(nc.Zones))
			for j, z := range claims[i].Zones {
				if to, ok := perm[z]; ok {
					z = to
				}
				nc.Zones[j] = z
			}
			slices.Sort(nc.Zones)
			cand[i] = nc
		}
		order(cand, distinct)
		if k := claimsKey(cand); k < bestKey {
			best, bestKey = cand, k
		}
	}
	return best
}

// order sorts NodeClaims and numbers interchangeable replicas.
func order(claims []NodeClaim, distinct map[string]bool) {
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
	next := map[string]int{}
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
// offerings (capacity type and reservation) and that the inputs name only
// together (zoneSets): swapping two of them then leaves the input as it
// was, so Karpenter's choice between them is chance and every relabelling
// of its decision is as likely. Groups of one are left out.
func symmetricZones(pools []poolFacts, zoneIDs map[string]string, inputs []string) [][]string {
	sig := map[string][]string{}
	for _, pf := range pools {
		for _, it := range pf.admitted {
			for _, o := range it.Offerings {
				if !o.Available {
					continue
				}
				z := o.Zone()
				// The price too: zones whose spot prices differ are not
				// interchangeable for the NodeClaims' cost.
				sig[z] = append(sig[z], pf.pool.Name+"|"+it.Name+"|"+o.CapacityType()+"|"+o.ReservationID()+"|"+strconv.FormatFloat(o.Price, 'g', -1, 64))
			}
		}
	}
	bySig := map[string][]string{}
	for z, tokens := range sig {
		slices.Sort(tokens)
		k := strings.Join(tokens, "\n")
		bySig[k] = append(bySig[k], z)
	}
	groups := make([][]string, 0, len(bySig))
	for _, zs := range bySig {
		groups = append(groups, zs)
	}
	return refineZones(groups, zoneSets(inputs, slices.Collect(maps.Keys(sig)), zoneIDs))
}

// unnamedZones groups the zones the inputs name only together, whatever
// their offerings: Karpenter's choice among the zones of a group is a coin
// (Go map order) wherever a topology spread or affinity finds them equally
// good.
func unnamedZones(zones []string, zoneIDs map[string]string, inputs []string) [][]string {
	return refineZones([][]string{slices.Clone(zones)}, zoneSets(inputs, zones, zoneIDs))
}

// refineZones splits groups by every set (zones in it, zones not), and
// returns the groups of more than one zone, sorted.
func refineZones(groups [][]string, sets []map[string]bool) [][]string {
	for _, set := range sets {
		var next [][]string
		for _, g := range groups {
			in, out := splitBy(g, set)
			next = append(next, in, out)
		}
		groups = next
	}
	var out [][]string
	for _, zs := range groups {
		if len(zs) > 1 {
			slices.Sort(zs)
			out = append(out, zs)
		}
	}
	slices.SortFunc(out, func(a, b []string) int { return cmp.Compare(a[0], b[0]) })
	return out
}

func splitBy(g []string, set map[string]bool) (in, out []string) {
	for _, z := range g {
		if set[z] {
			in = append(in, z)
		} else {
			out = append(out, z)
		}
	}
	return in, out
}

// zoneSets are the sets of zones the inputs name together: the zones (or
// zone ids) each YAML list names among its scalars, and each scalar outside
// a list. A list [us-east-1a, us-east-1b, us-east-1c] treats its zones alike; a
// nodeSelector on us-east-1a tells that zone from the others. EC2NodeClasses
// are left out: what they say of zones (their subnets) reaches the decision
// as the offerings symmetricZones compares. A document that is not YAML
// names every zone it mentions on its own.
func zoneSets(inputs, zones []string, zoneIDs map[string]string) []map[string]bool {
	named := func(s string) map[string]bool {
		var m map[string]bool
		for _, z := range zones {
			if strings.Contains(s, z) || (zoneIDs[z] != "" && strings.Contains(s, zoneIDs[z])) {
				if m == nil {
					m = map[string]bool{}
				}
				m[z] = true
			}
		}
		return m
	}
	var out []map[string]bool
	add := func(m map[string]bool) {
		if len(m) > 0 {
			out = append(out, m)
		}
	}
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		switch n.Kind {
		case yaml.ScalarNode:
			add(named(n.Value))
		case yaml.SequenceNode:
			together := map[string]bool{}
			for _, c := range n.Content {
				if c.Kind == yaml.ScalarNode {
					maps.Copy(together, named(c.Value))
				} else {
					walk(c)
				}
			}
			add(together)
		default:
			for _, c := range n.Content {
				walk(c)
			}
		}
	}
	for _, text := range inputs {
		for _, d := range yamlstream.Split(text) {
			if len(named(d.Text)) == 0 {
				continue
			}
			var root yaml.Node
			if err := yaml.Unmarshal([]byte(d.Text), &root); err != nil {
				for z := range named(d.Text) {
					add(map[string]bool{z: true})
				}
				continue
			}
			if len(root.Content) == 1 {
				if k := fieldNode(root.Content[0], "kind"); k != nil && k.Value == "EC2NodeClass" {
					continue
				}
			}
			walk(&root)
		}
	}
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

// chance widens what Karpenter decides by a coin: a NodeClaim its
// scheduler pinned to one zone (a topology spread, a zonal affinity)
// among zones the inputs do not tell apart could have been pinned to any
// of them that its pool launches in.
type chance struct {
	group map[string][]string // zone -> its group (unnamedZones)
	pools map[string]poolFacts
}

// Zones that are also interchangeable (symmetric: alike in every pool's
// offerings) are left as drawn: the canonical relabelling already names
// them the same on every run, and keeps which NodeClaims share a zone.
func newChance(groups, symmetric [][]string, pools []poolFacts) *chance {
	c := &chance{group: map[string][]string{}, pools: map[string]poolFacts{}}
	for _, g := range groups {
		if slices.ContainsFunc(symmetric, func(s []string) bool { return slices.Equal(s, g) }) {
			continue
		}
		for _, z := range g {
			c.group[z] = g
		}
	}
	for _, pf := range pools {
		c.pools[pf.pool.Name] = pf
	}
	return c
}

// widen is drawn with the zone Karpenter picked replaced by the tied
// zones, and the instance types the NodeClaim's requirements and requests
// admit in any of them (price order, at most MaxInstanceTypes).
// Reserved capacity is left as drawn: a reservation is in one zone.
func (c *chance) widen(nc *scheduler.NodeClaim, drawn NodeClaim) NodeClaim {
	if c == nil || slices.Contains(drawn.CapacityTypes, v1.CapacityTypeReserved) {
		return drawn
	}
	zr := nc.Requirements.Get(corev1.LabelTopologyZone)
	pf, ok := c.pools[nc.NodePoolName]
	if !ok || zr.Operator() != corev1.NodeSelectorOpIn || zr.Len() != 1 {
		return drawn
	}
	var tied []string
	for _, z := range c.group[zr.Any()] {
		if slices.Contains(pf.zones, z) {
			tied = append(tied, z)
		}
	}
	if len(tied) < 2 {
		return drawn
	}
	reqs := kscheduling.NewRequirements()
	for _, r := range nc.Requirements {
		reqs.Add(r)
	}
	reqs[corev1.LabelTopologyZone] = kscheduling.NewRequirement(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, tied...)
	var its cloudprovider.InstanceTypes
	for _, it := range pf.its {
		if it.Requirements.Intersects(reqs) == nil && resources.Fits(nc.Spec.Resources.Requests, it.Allocatable()) &&
			it.Offerings.Available().HasCompatible(reqs) {
			its = append(its, it)
		}
	}
	if len(its) == 0 {
		return drawn
	}
	sortByPrice(its, reqs)
	if len(its) > scheduler.MaxInstanceTypes {
		its = its[:scheduler.MaxInstanceTypes]
	}
	out := launchOptions(nc.NodePoolName, its, reqs)
	// Priced over the tied zones: the low end is the cheapest of them,
	// the high end the dearest.
	wide := scheduler.NodeClaim{NodeClaimTemplate: nc.NodeClaimTemplate, Pods: nc.Pods}
	wide.InstanceTypeOptions, wide.Requirements = its, reqs
	out.Price = priceOf(&wide)
	out.Pods = drawn.Pods
	return out
}
