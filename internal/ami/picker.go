package ami

import (
	"fmt"
	"sort"
	"time"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
)

// picker keeps one image per requirement set the way
// A:pkg/providers/amifamily/ami.go DefaultProvider.amis does, and remembers
// why every other image lost.
type picker struct {
	now    time.Time
	best   map[string]*candidate
	keysOf map[string][]string // image id -> requirement sets it competed in
	terms  map[string][]int    // image id -> terms that matched it
	arch   map[string]string   // image id -> why its architecture was dropped
	images map[string]awsclient.Image
}

type candidate struct {
	ami AMI
	key string
}

func newPicker(now time.Time) *picker {
	return &picker{
		now: now, best: map[string]*candidate{}, keysOf: map[string][]string{},
		terms: map[string][]int{}, arch: map[string]string{}, images: map[string]awsclient.Image{},
	}
}

func (p *picker) skip(img awsclient.Image, reason string) {
	p.images[img.ID] = img
	p.arch[img.ID] = reason
}

func (p *picker) offer(img awsclient.Image, arch string, v amifamily.Variant, reqs []Requirement, terms []int) {
	p.images[img.ID] = img
	p.terms[img.ID] = append(p.terms[img.ID], terms...)
	a := AMI{
		ID: img.ID, Name: img.Name, OwnerID: img.OwnerID, CreationDate: img.CreationDate,
		Architecture: arch, Variant: v, Deprecated: img.Deprecated(p.now),
		Requirements: reqs, Image: img,
	}
	key := requirementsKey(reqs)
	p.keysOf[img.ID] = append(p.keysOf[img.ID], key)
	if cur, ok := p.best[key]; ok && compareAMI(cur.ami, a) <= 0 {
		return // the first seen wins ties, as in Karpenter
	}
	p.best[key] = &candidate{ami: a, key: key}
}

// compareAMI is Karpenter's compareAMI: negative when i is preferred.
// Non-deprecated first, then the newer CreationDate (whole seconds), then
// the lexicographically greater Name.
func compareAMI(i, j AMI) int {
	if i.Deprecated != j.Deprecated {
		if i.Deprecated {
			return 1
		}
		return -1
	}
	ic, jc := created(i.CreationDate), created(j.CreationDate)
	if ic != jc {
		if ic > jc {
			return -1
		}
		return 1
	}
	if i.Name != j.Name {
		if i.Name > j.Name {
			return -1
		}
		return 1
	}
	return 0
}

// created is the Unix time of a CreationDate; a missing or malformed date is
// the minimum time (parseTimeWithDefault(..., minTime)).
func created(s string) int64 {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return -1 << 62
	}
	return t.Unix()
}

// result returns the winners ordered as AMIs.Sort: CreationDate descending,
// then image id ascending (ties between entries of one image, e.g. the AL2
// GPU image serving nvidia and neuron, by requirement set for stable plans).
func (p *picker) result() []AMI {
	out := make([]AMI, 0, len(p.best))
	for _, c := range p.best {
		out = append(out, c.ami)
	}
	sort.Slice(out, func(i, j int) bool {
		ci, cj := created(out[i].CreationDate), created(out[j].CreationDate)
		if ci != cj {
			return ci > cj
		}
		if out[i].ID != out[j].ID {
			return out[i].ID < out[j].ID
		}
		return requirementsKey(out[i].Requirements) < requirementsKey(out[j].Requirements)
	})
	return out
}

func (p *picker) won(id string) bool {
	for _, k := range p.keysOf[id] {
		if p.best[k].ami.ID == id {
			return true
		}
	}
	return false
}

// skipped lists every matched image Karpenter would not use: images in
// other states (from the unfiltered queries), unsupported architectures, and
// images superseded within their requirement set.
func (p *picker) skipped(everything, selected [][]awsclient.Image) []Skipped {
	out := map[string]Skipped{}
	usable := map[string]bool{}
	for _, imgs := range selected {
		for _, img := range imgs {
			usable[img.ID] = true
		}
	}
	for _, imgs := range everything {
		for _, img := range imgs {
			if usable[img.ID] {
				continue
			}
			reason := fmt.Sprintf("state is %s; %s", img.State, stateAdvice(img.State))
			if img.State == "available" {
				// Only possible before 1.1.0, which did not ask for deprecated images.
				reason = "deprecated, and this Karpenter release does not discover deprecated images (IncludeDeprecated arrived in 1.1.0)"
			}
			out[img.ID] = Skipped{ID: img.ID, Name: img.Name, State: img.State, Reason: reason}
		}
	}
	for id, reason := range p.arch {
		img := p.images[id]
		out[id] = Skipped{ID: id, Name: img.Name, State: img.State, Reason: reason}
	}
	for id, keys := range p.keysOf {
		if p.won(id) {
			continue
		}
		img := p.images[id]
		w := p.best[keys[0]].ami
		out[id] = Skipped{ID: id, Name: img.Name, State: img.State, Reason: supersededReason(img, w, p.now)}
	}
	list := make([]Skipped, 0, len(out))
	for _, s := range out {
		list = append(list, s)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].ID < list[j].ID })
	return list
}

func supersededReason(loser awsclient.Image, w AMI, now time.Time) string {
	why := "same creation date, greater name"
	switch {
	case loser.Deprecated(now) && !w.Deprecated:
		why = "deprecated; Karpenter prefers non-deprecated images"
	case created(w.CreationDate) > created(loser.CreationDate):
		why = "newer"
	}
	return fmt.Sprintf("superseded by %s (%s, %s) for the same requirements; Karpenter keeps one image per requirement set", w.ID, w.Name, why)
}

// stateAdvice says what Karpenter does with an image in a state other than
// available, and what makes it usable.
func stateAdvice(state string) string {
	switch state {
	case "pending":
		return "Karpenter ignores images until they are available (wait for the build to finish)"
	case "disabled":
		return "Karpenter never sees disabled images (it does not ask for them); re-enable it with ec2:EnableImage, or select another image"
	case "deregistered":
		return "the image is gone; select another image"
	}
	return "Karpenter ignores images until they are available; this one will not become available, so rebuild it or select another image"
}
