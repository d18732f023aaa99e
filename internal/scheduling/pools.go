package scheduling

import (
	"encoding/json"
	"fmt"

	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
)

// NodeClass is an EC2NodeClass of the node_classes input.
type NodeClass struct {
	Input    int
	Position Position
	Manifest manifest.EC2NodeClass
}

// nodePool is a NodePool of the node_pools input, in Karpenter's own type
// so that requirements, taints, limits and weight mean what they mean to
// the scheduler.
type nodePool struct {
	input int
	pos   Position
	pool  *karpv1.NodePool
}

const (
	groupKarpenter    = "karpenter.sh"
	groupKarpenterAWS = "karpenter.k8s.aws"
)

// readPools decodes the node_pools input; every document must be a
// karpenter.sh/v1 NodePool.
func readPools(inputs []string) ([]nodePool, []inputError) {
	r := poolReader()
	return r.out, readList(inputs, func(o object) *inputError { return r.read(o, ListNodePools) })
}

// readClasses decodes the node_classes input; every document must be a
// karpenter.k8s.aws/v1 EC2NodeClass.
func readClasses(inputs []string) ([]NodeClass, []inputError) {
	r := classReader()
	return r.out, readList(inputs, func(o object) *inputError { return r.read(o, ListNodeClasses) })
}

// readKarpenter decodes Input.Karpenter, whose elements hold NodePools,
// EC2NodeClasses and NodeOverlays together; objects of other kinds are set
// aside (other).
func readKarpenter(inputs []string) (pools []nodePool, classes []NodeClass, overlays []overlay, other []Object, errs []inputError) {
	pr, cr := poolReader(), classReader()
	seen := map[string]Position{}
	errs = readList(inputs, func(o object) *inputError {
		switch {
		case pr.is(o):
			return pr.read(o, ListKarpenter)
		case cr.is(o):
			return cr.read(o, ListKarpenter)
		case isOverlay(o):
			ov, err := readOverlay(o, ListKarpenter, seen)
			if ov != nil {
				overlays = append(overlays, *ov)
			}
			return err
		}
		other = append(other, Object{Key: o.key(), Input: o.input, Position: o.pos})
		return nil
	})
	return pr.out, cr.out, overlays, other, errs
}

// readList reads every object of a list's elements with read.
func readList(inputs []string, read func(object) *inputError) (errs []inputError) {
	for i, text := range inputs {
		objs, e := readObjects(i, text)
		errs = append(errs, e...)
		for _, o := range objs {
			if err := read(o); err != nil {
				errs = append(errs, *err)
			}
		}
	}
	return errs
}

func poolReader() *kindReader[karpv1.NodePool, nodePool] {
	return &kindReader[karpv1.NodePool, nodePool]{group: groupKarpenter, apiVersion: manifest.NodePoolAPIVersion, kind: manifest.NodePoolKind,
		name: func(np *karpv1.NodePool) string { return np.Name },
		wrap: func(o object, np *karpv1.NodePool) nodePool { return nodePool{input: o.input, pos: o.pos, pool: np} }}
}

func classReader() *kindReader[manifest.EC2NodeClass, NodeClass] {
	return &kindReader[manifest.EC2NodeClass, NodeClass]{group: groupKarpenterAWS, apiVersion: manifest.EC2NodeClassAPIVersion, kind: manifest.EC2NodeClassKind,
		name: func(m *manifest.EC2NodeClass) string { return m.Metadata.Name },
		wrap: func(o object, m *manifest.EC2NodeClass) NodeClass {
			return NodeClass{Input: o.input, Position: o.pos, Manifest: *m}
		}}
}

// kindReader decodes the objects of one cluster-scoped Karpenter kind
// (group/v1) into T, refusing other kinds and a name defined twice.
type kindReader[T, R any] struct {
	group, apiVersion, kind string
	name                    func(*T) string
	wrap                    func(object, *T) R
	seen                    map[string]Position
	out                     []R
}

// is reports whether o is of the reader's kind, in any version.
func (r *kindReader[T, R]) is(o object) bool { return o.gvk.Group == r.group && o.gvk.Kind == r.kind }

func (r *kindReader[T, R]) read(o object, list string) *inputError {
	if !r.is(o) || o.gvk.Version != "v1" {
		e := wrongKind(o, r.apiVersion, r.kind, list)
		return &e
	}
	v := new(T)
	if err := json.Unmarshal(o.raw, v); err != nil {
		return &inputError{input: o.input, pos: o.pos, what: o.describe(), key: o.key(), err: "a field has the wrong type: " + err.Error()}
	}
	if r.seen == nil {
		r.seen = map[string]Position{}
	}
	if p, dup := r.seen[r.name(v)]; dup {
		return &inputError{input: o.input, pos: o.pos, what: o.describe(), key: o.key(), err: fmt.Sprintf(
			"%s %q is defined twice (first in %s); %ss are cluster-scoped, so the second replaces the first", r.kind, r.name(v), p, r.kind)}
	}
	r.seen[r.name(v)] = o.pos
	r.out = append(r.out, r.wrap(o, v))
	return nil
}

func wrongKind(o object, apiVersion, kind, list string) inputError {
	if list == ListKarpenter {
		// Only an older version of the kind reaches here.
		return inputError{input: o.input, pos: o.pos, what: o.describe(), key: o.key(), err: fmt.Sprintf(
			"Karpenter v1 serves %s only as %s; this document is apiVersion %s (migrate older objects to v1)", kind, apiVersion, o.gvk.GroupVersion())}
	}
	msg := fmt.Sprintf("%s holds %s objects only (apiVersion: %s, kind: %s); this document is apiVersion %s, kind %s",
		list, kind, apiVersion, kind, o.gvk.GroupVersion(), o.gvk.Kind)
	switch {
	case o.gvk.Kind == manifest.EC2NodeClassKind && list == ListNodePools:
		msg += ": move it to node_classes"
	case o.gvk.Kind == manifest.NodePoolKind && list == ListNodeClasses:
		msg += ": move it to node_pools"
	case o.gvk.Kind == kind:
		msg += fmt.Sprintf(": Karpenter v1 serves %s only as %s (migrate older objects to v1)", kind, apiVersion)
	}
	return inputError{input: o.input, pos: o.pos, what: o.describe(), key: o.key(), err: msg}
}
