package nodepool

import "github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"

// Object is the NodePool the resource's manifest attribute renders, with
// apiVersion and kind set.
func Object(p Pool) manifest.NodePool {
	np := p.Manifest
	np.APIVersion, np.Kind = manifest.NodePoolAPIVersion, manifest.NodePoolKind
	return np
}
