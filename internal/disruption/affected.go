package disruption

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/clock"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	kscheduling "sigs.k8s.io/karpenter/pkg/scheduling"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/drift"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot"
)

// AMIDrift is karpenter-provider-aws's reason for a NodeClaim whose image
// is not among those its class resolves to now.
const AMIDrift = "AMIDrift"

// activeBudgets are the pool's budgets that limit drift at the clock's
// instant (kubernetes-sigs/karpenter pkg/apis/v1/nodepool.go
// GetAllowedDisruptionsByReason: a budget without reasons applies to
// every reason; Budget.IsActive decides its schedule).
func activeBudgets(np *karpv1.NodePool, clk clock.Clock) []string {
	var out []string
	for _, b := range np.Spec.Disruption.Budgets {
		if len(b.Reasons) > 0 && !slices.Contains(b.Reasons, karpv1.DisruptionReasonDrifted) {
			continue
		}
		if on, err := b.IsActive(clk); err != nil || !on {
			continue
		}
		s := fmt.Sprintf("nodes %q", b.Nodes)
		if b.Schedule != nil {
			s += fmt.Sprintf(" at %q", *b.Schedule)
		}
		if b.Duration != nil {
			s += " for " + b.Duration.Duration.String()
		}
		out = append(out, s)
	}
	return out
}

// Image is one image an EC2NodeClass resolves to, with the requirements an
// instance type must meet to boot it (the class status's amis[].requirements).
type Image struct {
	ID           string
	Requirements []corev1.NodeSelectorRequirement
}

// NodeClasses are the EC2NodeClasses of YAML streams, by name (the
// classes whose images a caller resolves for Input.Images).
func NodeClasses(texts []string) []manifest.EC2NodeClass {
	_, classes, _ := read(texts)
	out := make([]manifest.EC2NodeClass, 0, len(classes))
	for _, name := range sortedKeys(classes) {
		out = append(out, classes[name])
	}
	return out
}

// ImagesOf are resolved images as the decision compares them, in their
// order.
func ImagesOf(amis []ami.AMI) []Image {
	out := make([]Image, 0, len(amis))
	for _, a := range amis {
		im := Image{ID: a.ID}
		for _, r := range a.Requirements {
			im.Requirements = append(im.Requirements, corev1.NodeSelectorRequirement{Key: r.Key, Operator: corev1.NodeSelectorOperator(r.Operator), Values: r.Values})
		}
		out = append(out, im)
	}
	return out
}

// Class is an EC2NodeClass as planned, for the drift of the NodeClaims
// launched from it.
type Class struct {
	Name string
	// Hash and HashVersion are its karpenter.k8s.aws/ec2nodeclass-hash and
	// version; a Hash of "" is not compared.
	Hash, HashVersion string
	// Images are the images it resolves to; nil when they are not known
	// (offline): images are then not compared.
	Images []Image
}

// ClassDrift is which NodeClaims of the snapshot launched from class c are
// drifted by it, as karpenter-provider-aws decides its part
// (pkg/cloudprovider/drift.go isNodeClassDrifted): the static fields
// (the class hash, same hash version) first, then the image (isAMIDrifted:
// the NodeClaim's status.imageID is not among the images its instance type
// maps to, amifamily.MapToInstanceTypes; the NodeClaim's labels stand for
// its instance type's requirements). Subnets, security groups and
// capacity reservations are not decided.
func ClassDrift(s *snapshot.Snapshot, c Class) []Drifted {
	if s == nil {
		return nil
	}
	var out []Drifted
	for _, nc := range s.NodeClaims {
		if nc.Spec.NodeClassRef == nil || nc.Spec.NodeClassRef.Name != c.Name || !nc.DeletionTimestamp.IsZero() {
			continue
		}
		d := Drifted{NodeClaim: nc.Name, Node: nc.Status.NodeName, Pool: nc.Labels[karpv1.NodePoolLabelKey]}
		if h, ok := nc.Annotations[drift.EC2NodeClassHashAnnotation]; ok && c.Hash != "" && nc.Annotations[drift.EC2NodeClassHashVersionAnnotation] == c.HashVersion && h != c.Hash {
			d.Reason, d.Detail = NodeClassDrifted, fmt.Sprintf("its %s is %s, the planned EC2NodeClass hashes to %s", drift.EC2NodeClassHashAnnotation, h, c.Hash)
		} else if c.Images != nil && nc.Status.ImageID != "" && !bootsFrom(nc, c.Images) {
			d.Reason, d.Detail = AMIDrift, fmt.Sprintf("its image %s is not among the images the class resolves to for its instance type", nc.Status.ImageID)
		}
		if d.Reason != "" {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b Drifted) int { return cmp.Compare(a.NodeClaim, b.NodeClaim) })
	return out
}

// bootsFrom is whether the NodeClaim's image is the one its class maps to
// its instance type: the first image, in the class's order, whose
// requirements the instance type meets (MapToInstanceTypes).
func bootsFrom(nc *karpv1.NodeClaim, images []Image) bool {
	labels := kscheduling.NewLabelRequirements(nc.Labels)
	for _, im := range images {
		if labels.Compatible(kscheduling.NewNodeSelectorRequirements(im.Requirements...)) == nil {
			return im.ID == nc.Status.ImageID
		}
	}
	return false
}

// imageDrift is isAMIDrifted for a NodeClaim no static field drifts:
// AMIDrift when its class's images are known and its image is not the one
// they map its instance type to. A class whose images are not known is
// recorded in notCompared.
func imageDrift(d Drifted, nc *karpv1.NodeClaim, images map[string][]Image, notCompared map[string]bool) Drifted {
	class := nc.Spec.NodeClassRef.Name
	ims, ok := images[class]
	switch {
	case !ok:
		notCompared[class] = true
	case nc.Status.ImageID != "" && !bootsFrom(nc, ims):
		d.Reason, d.Detail = AMIDrift, fmt.Sprintf("its image %s is not the one EC2NodeClass %s resolves to for its instance type now", nc.Status.ImageID, class)
	}
	return d
}

// imagesNotCompared says whose images were not compared, and why.
func imagesNotCompared(images map[string][]Image, classes map[string]bool) []string {
	if len(classes) == 0 {
		return nil
	}
	names := strings.Join(slices.Sorted(maps.Keys(classes)), ", ")
	if images == nil {
		return []string{"images were not compared (offline): AMIDrift needs the images the EC2NodeClasses resolve to now, read from AWS (" + names + ")"}
	}
	return []string{"images were not compared for EC2NodeClass " + names + ": not among the configured classes, or its images could not be resolved"}
}

// NodeClaimsOf counts the snapshot's NodeClaims of a pool (class "") or of
// a class (pool ""), the denominator of Tally.
func NodeClaimsOf(s *snapshot.Snapshot, pool, class string) int {
	if s == nil {
		return 0
	}
	n := 0
	for _, nc := range s.NodeClaims {
		switch {
		case !nc.DeletionTimestamp.IsZero():
		case pool != "" && nc.Labels[karpv1.NodePoolLabelKey] == pool:
			n++
		case class != "" && nc.Spec.NodeClassRef != nil && nc.Spec.NodeClassRef.Name == class:
			n++
		}
	}
	return n
}

// Tally says how many NodeClaims drift, of how many, by which pools and
// reasons: "3 of the 5 NodeClaims drift (NodePool general: 2, NodePool
// gpu: 1; NodePoolDrifted 3)".
func Tally(drifted []Drifted, of int) string {
	if len(drifted) == 0 {
		return fmt.Sprintf("none of the %d NodeClaims drifts", of)
	}
	pools, reasons := map[string]int{}, map[string]int{}
	for _, d := range drifted {
		pools[d.Pool]++
		reasons[d.Reason]++
	}
	var ps, rs []string
	for _, p := range slices.Sorted(maps.Keys(pools)) {
		ps = append(ps, fmt.Sprintf("NodePool %s: %d", p, pools[p]))
	}
	for _, r := range slices.Sorted(maps.Keys(reasons)) {
		rs = append(rs, fmt.Sprintf("%s %d", r, reasons[r]))
	}
	return fmt.Sprintf("%d of the %d NodeClaims drift (%s; %s)", len(drifted), of, strings.Join(ps, ", "), strings.Join(rs, ", "))
}

// Drifted lists the plan's drifted NodeClaims, all pools together.
func (p *Plan) Drifted() []Drifted {
	var out []Drifted
	for _, pp := range p.Pools {
		out = append(out, pp.Drifted...)
	}
	return out
}
