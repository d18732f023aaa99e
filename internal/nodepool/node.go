package nodepool

import (
	"fmt"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/cluster"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/requirements"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// What one node of the pool gets, for callers that name the instance type
// (data "karpenter_node", the scheduling prediction) rather than the first
// one the pool admits (PreviewFor).

// NodeClaimLabels are the labels the pool's NodeClaims carry
// (NodeClaimTemplate): the template labels, karpenter.sh/nodepool, the node
// class label and the custom labels resolved from single-valued In
// requirements.
func NodeClaimLabels(p Pool) map[string]string {
	out := nodeClaimLabels(p)
	ref := p.spec().NodeClassRef
	out[requirements.LabelNodePool] = p.Manifest.Metadata.Name
	out[ref.Group+"/"+strings.ToLower(ref.Kind)] = ref.Name
	return out
}

// DefaultCapacityType is the capacity type Karpenter prefers for the pool
// without capacity reservations: spot when the requirements allow it, else
// on-demand.
func DefaultCapacityType(p Pool) string { return capacityType(p) }

// Requirements are the pool's requirements and template labels merged, as
// Karpenter builds a NodeClaim template's requirement set (unknown parts
// left out).
func Requirements(p Pool) requirements.Requirements { return knownRequirements(p) }

// Excluding names, as written, the requirements and template labels of the
// pool that exclude an instance type whose requirements are r, each on its
// own; empty when none does alone.
func Excluding(p Pool, r requirements.Requirements) []string {
	var out []string
	for i, s := range Specs(p) {
		one, complete := requirements.FromSpecs([]requirements.Spec{s})
		if complete && !r.Overlaps(one) {
			out = append(out, fmt.Sprintf("requirements[%d] (%s %s %s)", i, s.Key, s.Operator, quoteJoin(s.Values)))
		}
	}
	for _, l := range labelRequirements(p) {
		if !r.Overlaps(requirements.NewRequirements(l)) {
			out = append(out, fmt.Sprintf("the template label %s=%q", l.Key, l.Values()[0]))
		}
	}
	return out
}

// UserDataOptions are the renderer's inputs for a node of the pool on its
// class (p.Class) with kubelet settings k (maxPods already resolved) and
// capacity type ct, on the cluster facts.
func UserDataOptions(p Pool, k manifest.Kubelet, ct string, facts cluster.Facts, kv versions.Karpenter) userdata.Options {
	dns := facts.ClusterDNS
	if dns == "" && facts.ServiceCIDR != "" {
		dns, _ = cluster.DefaultDNS(facts.ServiceCIDR)
	}
	return userdata.Options{
		ClusterName:             facts.Name,
		ClusterEndpoint:         facts.Endpoint,
		CABundle:                facts.CertificateAuthority,
		ClusterCIDR:             facts.ServiceCIDR,
		KubeDNSIP:               dns,
		Taints:                  toTaints(p.spec().Taints),
		StartupTaints:           toTaints(p.spec().StartupTaints),
		Labels:                  nodeClaimLabels(p),
		NodePoolName:            p.Manifest.Metadata.Name,
		NodeClassName:           p.spec().NodeClassRef.Name,
		CapacityType:            ct,
		Kubelet:                 k,
		InstanceStorePolicy:     p.Class.InstanceStorePolicy,
		BottlerocketDefaultBind: amifamily.BottlerocketSupportsDefaultBind(bottlerocketVersion(p.Class)),
		UserData:                p.Class.UserData,
		Karpenter:               kv,
	}
}

// FactsAvailable reports whether the cluster facts hold what the userData
// of family f needs (PreviewNeeds).
func FactsAvailable(f amifamily.Family, facts cluster.Facts) bool { return factsAvailable(f, facts) }
