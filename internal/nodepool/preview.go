package nodepool

import (
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/cluster"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/requirements"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/taints"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// PreviewNeeds lists the cluster facts (cluster.Field* names) Preview needs
// for a class of family f, for the resource to resolve (cluster.Resolve)
// before calling Preview. Custom needs none: its userData is passed through.
func PreviewNeeds(f ami.Family) []string {
	switch {
	case f == ami.Custom || f == "":
		return nil
	case f == ami.AL2023:
		return []string{cluster.FieldName, cluster.FieldEndpoint, cluster.FieldCertificateAuthority, cluster.FieldServiceCIDR, cluster.FieldClusterDNS}
	}
	return []string{cluster.FieldName, cluster.FieldEndpoint, cluster.FieldCertificateAuthority, cluster.FieldClusterDNS}
}

// Preview returns the userData Karpenter would put into the launch template
// of a node of this pool on its class, as raw text (Karpenter base64-encodes
// it): for the first family of r.InstanceFamilies (sorted by name), with the
// pool's taints and startup taints, the NodeClaim labels (template labels,
// karpenter.sh/nodepool, karpenter.k8s.aws/ec2nodeclass, the custom labels
// Karpenter resolves from single-valued In requirements, and
// karpenter.sh/capacity-type: spot when the requirements allow it, else
// on-demand, as getCapacityType prefers without reservations), the class's
// kubelet settings, and the cluster facts. Custom returns the class's
// userData unchanged.
//
// Known differences from a real node: maxPods is the class's max_pods, or
// 110 where Karpenter writes the instance type's ENI-limited pod count; an
// instance_store_policy of RAID0 is not in node_class and not rendered; and
// custom labels Karpenter picks at random (In with several values, Exists)
// are left out.
//
// It returns "" and no findings when the preview cannot be made yet: class
// facts unknown or not given, cluster facts missing (see PreviewNeeds), no
// admitted family, or pool values Validate reports as invalid. Rendering
// problems of the class's userData or of the cluster facts come back as
// warnings: the class resource and the provider configuration own them.
func Preview(p Pool, r Result, facts cluster.Facts, kv versions.Karpenter) (string, rules.Findings) {
	if !p.Class.Known || p.classFactsPending() || p.Class.Family == "" || !r.FamiliesKnown || len(r.InstanceFamilies) == 0 {
		return "", nil
	}
	if p.Class.Family == ami.Custom {
		return p.Class.UserData, nil
	}
	if !previewInputsValid(p) || !factsAvailable(p.Class.Family, facts) {
		return "", nil
	}
	dns := facts.ClusterDNS
	if dns == "" && facts.ServiceCIDR != "" {
		dns, _ = cluster.DefaultDNS(facts.ServiceCIDR)
	}
	o := userdata.Options{
		ClusterName:     facts.Name,
		ClusterEndpoint: facts.Endpoint,
		CABundle:        facts.CertificateAuthority,
		ClusterCIDR:     facts.ServiceCIDR,
		KubeDNSIP:       dns,
		Taints:          toTaints(p.spec().Taints),
		StartupTaints:   toTaints(p.spec().StartupTaints),
		Labels:          nodeClaimLabels(p),
		NodePoolName:    p.Manifest.Metadata.Name,
		NodeClassName:   p.spec().NodeClassRef.Name,
		CapacityType:    capacityType(p),
		Kubelet:         p.Class.Kubelet,
		UserData:        p.Class.UserData,
		Karpenter:       kv,
	}
	out, fs := userdata.Render(p.Class.Family, o)
	for i := range fs {
		fs[i] = fs[i].AsWarning()
		fs[i].Detail = "user_data_preview could not be rendered: " + fs[i].Detail
	}
	return out, fs
}

// previewInputsValid: every pool value the preview reads is known and
// valid; invalid ones are Validate's to report.
func previewInputsValid(p Pool) bool {
	for _, path := range []rules.Path{pathName, pathLabels, pathTaints, pathStartupTaints, pathRequirements, pathNodeClass.Attr("name")} {
		if p.Unknown.Within(path) {
			return false
		}
	}
	for _, e := range taintEntries(p) {
		if len(e.problems()) > 0 {
			return false
		}
	}
	for k, v := range p.labels() {
		if len(labelProblems(k, v)) > 0 {
			return false
		}
	}
	return len(checkName(p)) == 0 && len(checkNodeClassRef(p)) == 0
}

func factsAvailable(f ami.Family, facts cluster.Facts) bool {
	if facts.Name == "" || facts.Endpoint == "" {
		return false
	}
	if f == ami.AL2023 && facts.ServiceCIDR == "" {
		return false
	}
	return true
}

func toTaints(ts []manifest.Taint) []taints.Taint {
	out := make([]taints.Taint, len(ts))
	for i, t := range ts {
		out[i] = taints.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect}
	}
	return out
}

// nodeClaimLabels are the template labels plus the custom labels Karpenter
// resolves from the requirements (resolveCustomLabelsFromRequirements): keys
// that are neither well-known nor restricted, whose merged requirement is
// In with exactly one value (other shapes make Karpenter pick a value at
// random, which a preview cannot know).
func nodeClaimLabels(p Pool) map[string]string {
	out := map[string]string{}
	for k, v := range p.labels() {
		out[k] = v
	}
	reqs := knownRequirements(p)
	for _, key := range reqs.Keys() {
		r := reqs[key]
		if requirements.IsWellKnown(key) || key == requirements.LabelHostname {
			continue
		}
		if r.Operator() == requirements.In && r.Len() == 1 {
			out[key] = r.Values()[0]
		}
	}
	return out
}

// capacityType is what Karpenter's getCapacityType picks without capacity
// reservations: spot when the requirements allow it, else on-demand (or
// reserved when that is the only value allowed).
func capacityType(p Pool) string {
	r := knownRequirements(p).Get(requirements.LabelCapacityType)
	switch {
	case r.Has("spot"):
		return "spot"
	case r.Has("on-demand"):
		return "on-demand"
	case r.Has("reserved"):
		return "reserved"
	}
	return "on-demand"
}
