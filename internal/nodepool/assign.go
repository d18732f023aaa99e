package nodepool

import (
	"sort"
	"strings"
	"sync"
	"sync/atomic"

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
	admitted := a.Admitted()
	index := imagesOf(admitted, c)
	for j, t := range admitted {
		if !keep[t.Family] {
			continue
		}
		if _, ok := m.rep[t.Family]; !ok {
			m.rep[t.Family] = t
		}
		i := index[j]
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

// imagesOf is, per admitted type, the index in c.AMIs of the image it gets
// (imageFor), or -1. It depends only on the admitted types, the class's
// family and its images' requirements, and every pool of a plan on classes
// of one selector with the same requirements asks it again (60 pools of
// the bench, hundreds of types each against the region's catalogue): the
// answer is remembered per plugin process. The admitted list is a
// memoised admission of the catalogue (instancetype.AdmitRequirements), so
// its backing array identifies it exactly; the key's pointer keeps the
// array alive, so no other list can take its address while remembered.
func imagesOf(admitted []instancetype.Type, c ClassFacts) []int {
	if len(admitted) == 0 {
		return nil
	}
	k := imagesKey{first: &admitted[0], n: len(admitted), class: classImagesKey(c)}
	imagesMemo.Lock()
	out, ok := imagesMemo.m[k]
	imagesMemo.Unlock()
	if ok {
		return out
	}
	out = make([]int, len(admitted))
	for j, t := range admitted {
		out[j] = imageFor(c, t)
	}
	imagesMemo.Lock()
	defer imagesMemo.Unlock()
	// Bounded: a long-lived process (tests, karpenter-lint over many
	// files) asks about many lists; a plan asks about a few.
	if imagesMemo.m == nil || len(imagesMemo.m) >= 256 {
		imagesMemo.m = map[imagesKey][]int{}
	}
	imagesMemo.m[k] = out
	return out
}

type imagesKey struct {
	first *instancetype.Type
	n     int
	class string
}

var imagesMemo struct {
	sync.Mutex
	m map[imagesKey][]int
}

// classImagesKey is what imageFor reads of a class: its family and, in
// order, each image's requirements.
func classImagesKey(c ClassFacts) string {
	var b strings.Builder
	b.WriteString(string(c.Family))
	for _, img := range c.AMIs {
		b.WriteByte(0)
		for _, r := range img.Requirements {
			b.WriteString(r.Key)
			b.WriteByte(1)
			b.WriteString(r.Operator)
			for _, v := range r.Values {
				b.WriteByte(2)
				b.WriteString(v)
			}
			b.WriteByte(3)
		}
	}
	return b.String()
}

// imagesMatched counts imageFor's calls: the instance types whose image
// was matched against the class's, the work per admitted type the
// regression guard counts (TypesMatched).
var imagesMatched atomic.Int64

// TypesMatched is how many instance types have had their image matched
// against a class's images in this process: with imagesOf's memo, a pool
// whose admitted types and class images an earlier pool had adds none.
func TypesMatched() int64 { return imagesMatched.Load() }

// imageFor is the index in c.AMIs of the image type t gets, or -1.
func imageFor(c ClassFacts, t instancetype.Type) int {
	imagesMatched.Add(1)
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
