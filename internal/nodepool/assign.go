package nodepool

import (
	"sort"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype"
)

// mapping is which image every admitted type of the kept families gets:
// the first entry of status.amis whose requirements the type satisfies
// strictly (MapToInstanceTypes since 1.4.0, #7925), per type so that live
// types whose GPU facts differ within a family map correctly.
type mapping struct {
	class ClassFacts
	// images per family: the distinct images its types get.
	images map[string][]*ami.AMI
	// missing holds, per family without an image for some type, one such
	// type (the representative for messages).
	missing map[string]instancetype.Type
	// rep is one admitted type per family.
	rep map[string]instancetype.Type
}

func assign(a instancetype.Admission, kept []string, c ClassFacts) mapping {
	m := mapping{class: c, images: map[string][]*ami.AMI{}, missing: map[string]instancetype.Type{}, rep: map[string]instancetype.Type{}}
	keep := map[string]bool{}
	for _, f := range kept {
		keep[f] = true
	}
	seen := map[string]map[int]bool{}
	for _, t := range a.Admitted() {
		if !keep[t.Family] {
			continue
		}
		if _, ok := m.rep[t.Family]; !ok {
			m.rep[t.Family] = t
		}
		i := imageFor(c, t)
		if i < 0 {
			if _, ok := m.missing[t.Family]; !ok {
				m.missing[t.Family] = t
			}
			continue
		}
		if seen[t.Family] == nil {
			seen[t.Family] = map[int]bool{}
		}
		if !seen[t.Family][i] {
			seen[t.Family][i] = true
			m.images[t.Family] = append(m.images[t.Family], &c.AMIs[i])
		}
	}
	return m
}

// imageFor is the index in c.AMIs of the image type t gets, or -1.
func imageFor(c ClassFacts, t instancetype.Type) int {
	labels := ami.InstanceFromType(t).Labels(c.Family)
	for i, img := range c.AMIs {
		if ami.Compatible(img.Requirements, labels) {
			return i
		}
	}
	return -1
}

// assignments groups the families per (architecture, variant, image),
// families sorted, groups ordered by architecture, variant, then image id.
func (m mapping) assignments() []Assignment {
	type key struct {
		arch    string
		variant amifamily.Variant
		id      string
		name    string
	}
	groups := map[key]map[string]bool{}
	for fam, imgs := range m.images {
		for _, img := range imgs {
			k := key{img.Architecture, img.Variant, img.ID, img.Name}
			if groups[k] == nil {
				groups[k] = map[string]bool{}
			}
			groups[k][fam] = true
		}
	}
	out := make([]Assignment, 0, len(groups))
	for k, fams := range groups {
		out = append(out, Assignment{Architecture: k.arch, Variant: k.variant, AMIID: k.id, AMIName: k.name, InstanceFamilies: sortedKeys(fams)})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Architecture != b.Architecture {
			return a.Architecture < b.Architecture
		}
		if a.Variant != b.Variant {
			return a.Variant < b.Variant
		}
		return a.AMIID < b.AMIID
	})
	return out
}

// withImage lists the families that get some image, sorted.
func (m mapping) withImage() []string { return sortedKeys(m.images) }

// classArchs are the architectures the class has images for.
func classArchs(c ClassFacts) map[string]bool {
	out := map[string]bool{}
	for _, a := range c.AMIs {
		out[a.Architecture] = true
	}
	return out
}

// imageIDs are the class's distinct image ids in status order, as Karpenter
// prints them in "no instance types satisfy requirements of amis %v".
func imageIDs(c ClassFacts) []string {
	var out []string
	seen := map[string]bool{}
	for _, a := range c.AMIs {
		if !seen[a.ID] {
			seen[a.ID] = true
			out = append(out, a.ID)
		}
	}
	return out
}
