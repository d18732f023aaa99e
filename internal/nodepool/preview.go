package nodepool

import (
	"fmt"
	"math"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/cluster"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/requirements"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/taints"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// PreviewNeeds lists the cluster facts (cluster.Field* names) Preview needs
// for a class of family f, for the resource to resolve (cluster.Resolve)
// before calling PreviewFor. Custom needs none: its userData is passed through.
func PreviewNeeds(f amifamily.Family) []string {
	m := f.Model()
	if f == "" || !m.KarpenterBootstraps() {
		return nil
	}
	if m.NeedsServiceCIDR() {
		return []string{cluster.FieldName, cluster.FieldEndpoint, cluster.FieldCertificateAuthority, cluster.FieldServiceCIDR, cluster.FieldClusterDNS}
	}
	return []string{cluster.FieldName, cluster.FieldEndpoint, cluster.FieldCertificateAuthority, cluster.FieldClusterDNS}
}

// PreviewOutcome is a userData preview and what it rests on.
type PreviewOutcome struct {
	// UserData is the preview; "" when it cannot be made (see Unavailable).
	UserData string
	// InstanceType is the type whose pod capacity is the rendered maxPods;
	// "" when no type decides it (max_pods set, Windows without
	// pods_per_core, Custom).
	InstanceType string
	// Unavailable says, for a diagnostic, why UserData is "" when the
	// reason is worth telling the user (the pod capacity needs facts the
	// catalogue does not have); "" while values are merely not known yet.
	Unavailable string
	// Findings are rendering problems, as warnings.
	Findings rules.Findings
}

// PreviewFor renders the userData of a node of this pool on its class: for
// the first admitted instance type (by name) of the first family of
// r.InstanceFamilies, with the pool's taints and startup taints, the
// NodeClaim labels (template labels, karpenter.sh/nodepool,
// karpenter.k8s.aws/ec2nodeclass, the custom labels Karpenter resolves from
// single-valued In requirements, and karpenter.sh/capacity-type: spot when
// the requirements allow it, else on-demand, as getCapacityType prefers
// without reservations), the class's kubelet settings and
// instance_store_policy, and the cluster facts. Custom returns the class's
// userData unchanged.
//
// maxPods is what Karpenter writes (resolveLaunchTemplates): the class's
// max_pods, else the type's pod capacity (instancetype.Type.Pods: the
// ENI-limited count, 110 on Windows, capped by pods_per_core × vCPUs where
// the family honours it). Karpenter renders one launch template per
// distinct capacity, so other types of the pool may get another maxPods.
// Without a live catalogue the capacity is unknown unless max_pods decides
// it (or Windows without pods_per_core): the preview is then "" and
// Unavailable says why, rather than guessing a number.
//
// Known differences from a real node: custom labels Karpenter picks at
// random (In with several values, Exists) are left out, and Karpenter's
// --reserved-enis setting and efa-only network interfaces (which lower the
// ENI-limited count) are taken as absent.
//
// UserData is "" with no findings when the preview cannot be made yet:
// class facts unknown or not given, cluster facts missing (see
// PreviewNeeds), no admitted family, or pool values Validate reports as
// invalid. Rendering problems of the class's userData or of the cluster
// facts come back as warnings: the class resource and the provider
// configuration own them.
func PreviewFor(p Pool, r Result, facts cluster.Facts, kv versions.Karpenter) PreviewOutcome {
	if !p.Class.Known || p.classFactsPending() || p.Class.Family == "" || !r.FamiliesKnown || len(r.InstanceFamilies) == 0 {
		return PreviewOutcome{}
	}
	if !p.Class.Family.Model().KarpenterBootstraps() {
		return PreviewOutcome{UserData: p.Class.UserData}
	}
	if !previewInputsValid(p) || !factsAvailable(p.Class.Family, facts) {
		return PreviewOutcome{}
	}
	kubelet := p.Class.Kubelet
	it, unavailable := previewMaxPods(p, r, &kubelet)
	if unavailable != "" {
		return PreviewOutcome{Unavailable: unavailable}
	}
	o := UserDataOptions(p, kubelet, capacityType(p), facts, kv)
	out, fs := userdata.Render(p.Class.Family, o)
	for i := range fs {
		fs[i] = fs[i].AsWarning()
		fs[i].Detail = "the userData of this pool's nodes would not render: " + fs[i].Detail
	}
	return PreviewOutcome{UserData: out, InstanceType: it, Findings: fs}
}

// previewMaxPods sets k.MaxPods to what Karpenter writes when the class
// sets none: the pod capacity of the first admitted type of the first
// family. It returns that type's name, or why the capacity is unknown.
func previewMaxPods(p Pool, r Result, k *manifest.Kubelet) (instanceType, unavailable string) {
	if k.MaxPods != nil {
		return "", ""
	}
	m := p.Class.Family.Model()
	eniLimited, perCore := m.ENILimitedPods(), m.PodsPerCore()
	opts := instancetype.PodsOptions{PodsPerCore: k.PodsPerCore, ENILimited: eniLimited, PodsPerCoreEnabled: perCore}
	// Windows without pods_per_core: 110 whatever the type.
	if n, ok := (instancetype.Type{}).Pods(opts); ok {
		k.MaxPods = int32Ptr(n)
		return "", ""
	}
	family := r.InstanceFamilies[0]
	for _, t := range r.Admission.Types {
		if t.Family != family {
			continue
		}
		if n, ok := t.Pods(opts); ok {
			k.MaxPods = int32Ptr(n)
			return t.Name, ""
		}
		break
	}
	why := "the instance types' network facts (ENIs and IPv4 addresses per ENI)"
	if !eniLimited {
		why = "the instance types' vCPUs (for kubelet.podsPerCore)"
	}
	note := r.Admission.Note
	if note == "" {
		note = "the instance-type catalogue does not have them"
	}
	return "", fmt.Sprintf("the userData is not rendered: Karpenter writes maxPods as the pod capacity of the instance type it launches, which needs %s from ec2:DescribeInstanceTypes, and %s. "+
		"Configure AWS for the provider (region and credentials), or set kubelet.maxPods on the EC2NodeClass.", why, note)
}

// bottlerocketVersion is the release the preview renders Bottlerocket's
// RAID0 bind command for: the class's AMIVersion, else the first resolved
// Bottlerocket image's (what Karpenter's resolveAMIVersion falls back to).
func bottlerocketVersion(c ClassFacts) string {
	if c.AMIVersion != "" {
		return c.AMIVersion
	}
	return AMIVersion(nil, c.AMIs)
}

// AMIVersion is Karpenter's Bottlerocket resolveAMIVersion (aws/karpenter-
// provider-aws v1.14.1 pkg/providers/amifamily/bottlerocket.go), the value
// for ClassFacts.AMIVersion: the version of the first alias term ("latest",
// "v1.46.0"), else the first name term that holds one, else the name of the
// first id term's image, else the first resolved Bottlerocket image's; ""
// when none has one.
func AMIVersion(terms []ami.Term, amis []ami.AMI) string {
	for _, t := range terms {
		if t.Alias == "" {
			continue
		}
		if parts := strings.Split(t.Alias, "@"); len(parts) == 2 {
			return parts[1]
		}
	}
	for _, t := range terms {
		if v := amifamily.BottlerocketAMIVersion(t.Name); t.Name != "" && v != "" {
			return v
		}
	}
	isBottlerocket := func(a ami.AMI) bool { return a.Name != "" && amifamily.BottlerocketImageName(a.Name) }
	for _, t := range terms {
		if t.ID == "" {
			continue
		}
		for _, a := range amis {
			if a.ID == t.ID && isBottlerocket(a) {
				if v := amifamily.BottlerocketAMIVersion(a.Name); v != "" {
					return v
				}
				break
			}
		}
	}
	for _, a := range amis {
		if isBottlerocket(a) {
			if v := amifamily.BottlerocketAMIVersion(a.Name); v != "" {
				return v
			}
		}
	}
	return ""
}

func int32Ptr(n int64) *int32 {
	v := int32(min(n, math.MaxInt32))
	return &v
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

func factsAvailable(f amifamily.Family, facts cluster.Facts) bool {
	if facts.Name == "" || facts.Endpoint == "" {
		return false
	}
	if f.Model().NeedsServiceCIDR() && facts.ServiceCIDR == "" {
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
