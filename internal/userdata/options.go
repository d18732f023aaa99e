package userdata

import (
	"maps"
	"net/netip"
	"slices"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/taints"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata/lint"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// Options are the inputs Karpenter hands its userData bootstrappers
// (bootstrap.Options, assembled by resolveLaunchTemplates), as plain values.
type Options struct {
	ClusterName     string
	ClusterEndpoint string
	// CABundle is the base64-encoded PEM bundle; empty means none (AL2 and
	// Windows then omit the CA argument, as Karpenter does for a nil bundle).
	CABundle string
	// ClusterCIDR is the service CIDR; AL2023 requires it.
	ClusterCIDR string
	// KubeDNSIP is the discovered kube-dns address; it is used when
	// Kubelet.ClusterDNS is empty (Karpenter's defaultClusterDNS).
	KubeDNSIP string

	// Taints are the NodePool taints, StartupTaints its startupTaints; the
	// rendered list is Taints, StartupTaints, then karpenter.sh/unregistered:
	// NoExecute unless a taint with that key and effect is already present.
	Taints, StartupTaints []taints.Taint
	// Labels are the NodeClaim labels (NodePool template labels and custom
	// labels resolved from single-valued requirements).
	Labels map[string]string
	// NodePoolName and NodeClassName, when set, add the karpenter.sh/nodepool
	// and karpenter.k8s.aws/ec2nodeclass labels every NodeClaim carries.
	NodePoolName, NodeClassName string
	// CapacityType is the karpenter.sh/capacity-type label value; empty means
	// on-demand.
	CapacityType string

	// Kubelet is the class's spec.kubelet, the manifest's own type: grace
	// periods are rendered as Karpenter's metav1.Duration prints them, and
	// malformed ones (the class's findings) are left out.
	Kubelet manifest.Kubelet
	// InstanceTypeMaxPods is the pod capacity Karpenter defaults maxPods to
	// when Kubelet.MaxPods is nil; 0 means 110 (the kubelet's default).
	InstanceTypeMaxPods int32
	// InstanceStorePolicy is "" or "RAID0".
	InstanceStorePolicy string
	// BottlerocketDefaultBind is true when the Bottlerocket image is 1.46.0
	// or newer (amifamily.BottlerocketSupportsDefaultBind, Karpenter's
	// version.SupportsDefaultBind): RAID0 then binds the default
	// directories instead of listing them.
	BottlerocketDefaultBind bool

	// UserData is spec.userData as written.
	UserData string
	// Karpenter is the release whose behaviour is rendered.
	Karpenter versions.Karpenter
}

// Well-known label keys Karpenter adds.
const (
	labelCapacityType    = "karpenter.sh/capacity-type"
	labelNodePool        = "karpenter.sh/nodepool"
	labelNodeClass       = "karpenter.k8s.aws/ec2nodeclass"
	labelDoNotSyncTaints = "karpenter.sh/do-not-sync-taints"
)

// resolved is Options after Karpenter's defaulting: what the family
// renderers consume.
type resolved struct {
	Options
	taints []taints.Taint
	labels map[string]string
}

func resolve(f amifamily.Family, o Options) resolved {
	r := resolved{Options: o}
	r.taints = EffectiveTaints(o.Taints, o.StartupTaints)
	r.labels = EffectiveLabels(f, o)
	k := o.Kubelet
	if k.MaxPods == nil {
		mp := o.InstanceTypeMaxPods
		if mp == 0 {
			mp = 110
		}
		k.MaxPods = &mp
	}
	if len(k.ClusterDNS) == 0 && o.KubeDNSIP != "" {
		k.ClusterDNS = []string{o.KubeDNSIP}
	}
	r.Kubelet = k
	return r
}

// EffectiveTaints is the list a node registers with: NodePool taints, then
// startup taints, then karpenter.sh/unregistered:NoExecute unless a taint
// with that key and effect is present (Karpenter's MatchTaint).
func EffectiveTaints(nodePool, startup []taints.Taint) []taints.Taint {
	out := append(append([]taints.Taint{}, nodePool...), startup...)
	if slices.ContainsFunc(out, taints.Unregistered.Matches) {
		return out
	}
	return append(out, taints.Unregistered)
}

// EffectiveLabels is the label set the kubelet is given: the NodeClaim
// labels, karpenter.sh/capacity-type, karpenter.sh/do-not-sync-taints=true
// for every family but Custom from Karpenter 1.5 (PR #8029), then
// RejectForbiddenLabels, which drops the kubernetes.io, k8s.io and
// node-restriction.kubernetes.io domains (Karpenter syncs those onto the
// Node after registration instead).
func EffectiveLabels(f amifamily.Family, o Options) map[string]string {
	l := maps.Clone(o.Labels)
	if l == nil {
		l = map[string]string{}
	}
	if o.NodePoolName != "" {
		l[labelNodePool] = o.NodePoolName
	}
	if o.NodeClassName != "" {
		l[labelNodeClass] = o.NodeClassName
	}
	ct := o.CapacityType
	if ct == "" {
		ct = "on-demand"
	}
	l[labelCapacityType] = ct
	if f.Model().KarpenterBootstraps() && o.Karpenter.AtLeast(5, 0) {
		l[labelDoNotSyncTaints] = "true"
	}
	for k := range l {
		if lint.IsForbiddenLabel(k) {
			delete(l, k)
		}
	}
	return l
}

// isIPv6DNS is Karpenter's isIPv6: clusterDNS[0] that is not an IPv4
// address (net.ParseIP(...).To4() == nil, so unparsable counts as IPv6).
func isIPv6DNS(dns []string) bool {
	if len(dns) == 0 {
		return false
	}
	a, err := netip.ParseAddr(dns[0])
	return err != nil || (!a.Is4() && !a.Is4In6())
}
