package scheduling

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// canonicalise puts the decision in the order the package documentation
// describes, so that the same input always reads the same: replicas that
// only differ by name are numbered in the order of the NodeClaims they
// land on, and NodeClaims are sorted by pool, zones, capacity types,
// architectures, instance types and pods.
func canonicalise(d *Decision) {
	interchangeable := map[string]bool{}
	for _, w := range d.Workloads {
		interchangeable[w.Key] = true
	}
	// Numbered replicas are not interchangeable when their pods differ
	// (a StatefulSet's claims): keep their indices.
	for _, nc := range d.NodeClaims {
		for _, p := range nc.Pods {
			w, _ := splitPodKey(p)
			if statefulSetKey(w) {
				interchangeable[w] = false
			}
		}
	}
	anon := func(p string) string {
		w, i := splitPodKey(p)
		if interchangeable[w] {
			return w + "/"
		}
		return w + "/" + padIndex(i)
	}
	for i := range d.NodeClaims {
		slices.SortFunc(d.NodeClaims[i].Pods, func(a, b string) int { return cmp.Compare(anon(a), anon(b)) })
	}
	key := func(nc NodeClaim) string {
		var b strings.Builder
		for _, part := range [][]string{{nc.NodePool}, nc.Zones, nc.CapacityTypes, nc.Architectures, nc.InstanceTypes} {
			b.WriteString(strings.Join(part, ","))
			b.WriteByte('|')
		}
		for _, p := range nc.Pods {
			b.WriteString(anon(p))
			b.WriteByte(',')
		}
		return b.String()
	}
	slices.SortStableFunc(d.NodeClaims, func(a, b NodeClaim) int { return cmp.Compare(key(a), key(b)) })
	next := map[string]int{}
	for _, nc := range d.NodeClaims {
		for j, p := range nc.Pods {
			w, _ := splitPodKey(p)
			if interchangeable[w] {
				nc.Pods[j] = w + "/" + strconv.Itoa(next[w])
				next[w]++
			}
		}
	}
}

func splitPodKey(p string) (workload string, index int) {
	i := strings.LastIndexByte(p, '/')
	n, _ := strconv.Atoi(p[i+1:])
	return p[:i], n
}

func statefulSetKey(w string) bool { return strings.Contains(w, "/StatefulSet/") }

// padIndex makes indices sort numerically as strings.
func padIndex(i int) string {
	s := strconv.Itoa(i)
	return strings.Repeat("0", max(0, 10-len(s))) + s
}
