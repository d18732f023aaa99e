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
func readPools(inputs []string) (pools []nodePool, errs []inputError) {
	seen := map[string]Position{}
	for i, text := range inputs {
		objs, e := readObjects(i, text)
		errs = append(errs, e...)
		for _, o := range objs {
			if o.gvk.Group != groupKarpenter || o.gvk.Kind != manifest.NodePoolKind || o.gvk.Version != "v1" {
				errs = append(errs, wrongKind(o, manifest.NodePoolAPIVersion, manifest.NodePoolKind, "node_pools"))
				continue
			}
			var np karpv1.NodePool
			if err := json.Unmarshal(o.raw, &np); err != nil {
				errs = append(errs, inputError{input: i, pos: o.pos, what: o.describe(), err: "a field has the wrong type: " + err.Error()})
				continue
			}
			if p, dup := seen[np.Name]; dup {
				errs = append(errs, inputError{input: i, pos: o.pos, what: o.describe(), err: fmt.Sprintf("NodePool %q is defined twice (first in %s); NodePools are cluster-scoped, so the second replaces the first", np.Name, p)})
				continue
			}
			seen[np.Name] = o.pos
			pools = append(pools, nodePool{input: i, pos: o.pos, pool: &np})
		}
	}
	return pools, errs
}

// readClasses decodes the node_classes input; every document must be a
// karpenter.k8s.aws/v1 EC2NodeClass.
func readClasses(inputs []string) (classes []NodeClass, errs []inputError) {
	seen := map[string]Position{}
	for i, text := range inputs {
		objs, e := readObjects(i, text)
		errs = append(errs, e...)
		for _, o := range objs {
			if o.gvk.Group != groupKarpenterAWS || o.gvk.Kind != manifest.EC2NodeClassKind || o.gvk.Version != "v1" {
				errs = append(errs, wrongKind(o, manifest.EC2NodeClassAPIVersion, manifest.EC2NodeClassKind, "node_classes"))
				continue
			}
			var m manifest.EC2NodeClass
			if err := json.Unmarshal(o.raw, &m); err != nil {
				errs = append(errs, inputError{input: i, pos: o.pos, what: o.describe(), err: "a field has the wrong type: " + err.Error()})
				continue
			}
			if p, dup := seen[m.Metadata.Name]; dup {
				errs = append(errs, inputError{input: i, pos: o.pos, what: o.describe(), err: fmt.Sprintf("EC2NodeClass %q is defined twice (first in %s); EC2NodeClasses are cluster-scoped, so the second replaces the first", m.Metadata.Name, p)})
				continue
			}
			seen[m.Metadata.Name] = o.pos
			classes = append(classes, NodeClass{Input: i, Position: o.pos, Manifest: m})
		}
	}
	return classes, errs
}

func wrongKind(o object, apiVersion, kind, list string) inputError {
	msg := fmt.Sprintf("%s holds %s objects only (apiVersion: %s, kind: %s); this document is apiVersion %s, kind %s",
		list, kind, apiVersion, kind, o.gvk.GroupVersion(), o.gvk.Kind)
	switch {
	case o.gvk.Kind == manifest.EC2NodeClassKind && list != "node_classes":
		msg += ": move it to node_classes"
	case o.gvk.Kind == manifest.NodePoolKind && list != "node_pools":
		msg += ": move it to node_pools"
	case o.gvk.Kind == kind:
		msg += fmt.Sprintf(": Karpenter v1 serves %s only as %s (migrate older objects to v1)", kind, apiVersion)
	}
	return inputError{input: o.input, pos: o.pos, what: o.describe(), err: msg}
}
