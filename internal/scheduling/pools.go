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
	return readKarpenter(inputs, ListNodePools, groupKarpenter, manifest.NodePoolAPIVersion, manifest.NodePoolKind,
		func(np *karpv1.NodePool) string { return np.Name },
		func(o object, np *karpv1.NodePool) nodePool { return nodePool{input: o.input, pos: o.pos, pool: np} })
}

// readClasses decodes the node_classes input; every document must be a
// karpenter.k8s.aws/v1 EC2NodeClass.
func readClasses(inputs []string) ([]NodeClass, []inputError) {
	return readKarpenter(inputs, ListNodeClasses, groupKarpenterAWS, manifest.EC2NodeClassAPIVersion, manifest.EC2NodeClassKind,
		func(m *manifest.EC2NodeClass) string { return m.Metadata.Name },
		func(o object, m *manifest.EC2NodeClass) NodeClass {
			return NodeClass{Input: o.input, Position: o.pos, Manifest: *m}
		})
}

// readKarpenter decodes a list of manifests of one cluster-scoped kind
// (group/v1) into T, refusing other kinds and a name defined twice.
func readKarpenter[T, R any](inputs []string, list, group, apiVersion, kind string, name func(*T) string, wrap func(object, *T) R) (out []R, errs []inputError) {
	seen := map[string]Position{}
	for i, text := range inputs {
		objs, e := readObjects(i, text)
		errs = append(errs, e...)
		for _, o := range objs {
			if o.gvk.Group != group || o.gvk.Kind != kind || o.gvk.Version != "v1" {
				errs = append(errs, wrongKind(o, apiVersion, kind, list))
				continue
			}
			v := new(T)
			if err := json.Unmarshal(o.raw, v); err != nil {
				errs = append(errs, inputError{input: i, pos: o.pos, what: o.describe(), err: "a field has the wrong type: " + err.Error()})
				continue
			}
			if p, dup := seen[name(v)]; dup {
				errs = append(errs, inputError{input: i, pos: o.pos, what: o.describe(), err: fmt.Sprintf(
					"%s %q is defined twice (first in %s); %ss are cluster-scoped, so the second replaces the first", kind, name(v), p, kind)})
				continue
			}
			seen[name(v)] = o.pos
			out = append(out, wrap(o, v))
		}
	}
	return out, errs
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
