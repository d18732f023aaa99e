package nodepool

import (
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/taints"
)

// Pool is a NodePool as configured.
type Pool struct {
	// Manifest is the NodePool model: metadata.name is the resource name,
	// nodeClassRef is node_class's group/kind/name (see NodeClassRef for
	// the defaults). Values that are not known yet are zero and listed in
	// Unknown.
	Manifest manifest.NodePool
	// Unknown holds the Terraform attribute paths whose values are not known
	// yet: labels["k"], requirements[0].values, taints[1].value,
	// startup_taints, disruption.budgets[0].schedule, expire_after,
	// termination_grace_period, limits["cpu"], weight, replicas,
	// node_class, node_class.name, node_class.amis, ... A check that needs
	// an unknown value is skipped (it runs again when the value is known).
	Unknown rules.Unknowns
	// Empty holds the paths of string attributes written as "" that the
	// manifest model cannot tell from unset (it omits empty strings):
	// taints[i].value, startup_taints[i].value, expire_after,
	// termination_grace_period, disruption.consolidation_policy. The CRD
	// rejects an empty string where it has a pattern or an enum.
	Empty PathSet
	// Class is what the node_class attribute tells about the EC2NodeClass.
	Class ClassFacts
}

// ClassFacts is what the pool's node_class attribute tells about its
// EC2NodeClass beyond the reference (group, kind and name live in
// Manifest's nodeClassRef).
type ClassFacts struct {
	// Known is true when node_class carries the class's facts (it is a
	// karpenter_ec2nodeclass's node_class); false when only a name (and
	// group/kind) was written for a class managed elsewhere: checks that
	// need the facts are skipped with one warning.
	Known bool
	// Family is the resolved amiFamily (amiFamily, else the alias family);
	// "" when unknown. A literally written ami_family is used by Validate
	// even when Known is false.
	Family amifamily.Family
	// AMIs is the class's status.amis, in Karpenter's order.
	AMIs []ami.AMI
	// RegisteredTaints are, for the Custom family, the taints the class's
	// userData registers the node with; nil for other families (Karpenter
	// renders the pool's taints into their userData).
	RegisteredTaints []taints.Taint
	// UserData is spec.userData as written (Custom: the whole userData),
	// Kubelet spec.kubelet and InstanceStorePolicy spec.instanceStorePolicy
	// ("" or "RAID0"): only PreviewFor reads them (and waits while they are
	// unknown). karpenter_nodepool's node_class does not carry them (the
	// class's manifest holds them and the class's plan lints them), so its
	// checks render without them.
	UserData            string
	Kubelet             manifest.Kubelet
	InstanceStorePolicy string
	// AMIVersion is, for Bottlerocket, the release Karpenter reads from the
	// selector terms (resolveAMIVersion: an alias's version, e.g. "latest"
	// or "v1.46.0", else a name term's); "" makes the preview read it from
	// the names of AMIs, as Karpenter does last.
	AMIVersion string
}

// The nodeClassRef Karpenter's AWS provider manages; node_class defaults to
// it when group and kind are not written.
const (
	NodeClassGroup = "karpenter.k8s.aws"
	NodeClassKind  = "EC2NodeClass"
)

// NodeClassRef builds nodeClassRef from node_class: group and kind default
// to karpenter.k8s.aws / EC2NodeClass when nil (not written); an explicit
// "" is kept, for the CRD's "may not be empty" rules to report.
func NodeClassRef(group, kind *string, name string) manifest.NodeClassRef {
	ref := manifest.NodeClassRef{Group: NodeClassGroup, Kind: NodeClassKind, Name: name}
	if group != nil {
		ref.Group = *group
	}
	if kind != nil {
		ref.Kind = *kind
	}
	return ref
}

// PathSet is a set of attribute paths.
type PathSet map[string]bool

// Add puts p into the set.
func (s PathSet) Add(p rules.Path) { s[p.String()] = true }

// Has reports whether p is in the set.
func (s PathSet) Has(p rules.Path) bool { return s[p.String()] }

// Attribute paths of the karpenter_nodepool resource.
var (
	pathName                   = rules.Root("name")
	pathLabels                 = rules.Root("labels")
	pathAnnotations            = rules.Root("annotations")
	pathRequirements           = rules.Root("requirements")
	pathTaints                 = rules.Root("taints")
	pathStartupTaints          = rules.Root("startup_taints")
	pathExpireAfter            = rules.Root("expire_after")
	pathTerminationGracePeriod = rules.Root("termination_grace_period")
	pathDisruption             = rules.Root("disruption")
	pathConsolidationPolicy    = pathDisruption.Attr("consolidation_policy")
	pathConsolidateAfter       = pathDisruption.Attr("consolidate_after")
	pathBudgets                = pathDisruption.Attr("budgets")
	pathLimits                 = rules.Root("limits")
	pathWeight                 = rules.Root("weight")
	pathReplicas               = rules.Root("replicas")
	pathNodeClass              = rules.Root("node_class")
)

// The node_class attributes that carry the class's facts, by the checks
// that read them: the images and family (architectures, GPU images,
// assignments) and the userData's registered taints (Custom classes). A
// check waits while a fact it reads is unknown, and only then: a userData
// from another resource does not hold up the architecture checks.
var (
	imageFactPaths = []rules.Path{pathNodeClass.Attr("ami_family"), pathNodeClass.Attr("amis")}
	taintFactPaths = []rules.Path{pathNodeClass.Attr("registered_taints"), pathNodeClass.Attr("user_data")}
	classFactPaths = append(append(append([]rules.Path(nil), imageFactPaths...), taintFactPaths...),
		pathNodeClass.Attr("kubelet"), pathNodeClass.Attr("instance_store_policy"))
)

// factsPending reports whether the class, or one of the facts at paths, is
// not known yet.
func (p Pool) factsPending(paths []rules.Path) bool {
	if p.Unknown.Is(pathNodeClass) {
		return true
	}
	for _, fp := range paths {
		if p.Unknown.Within(fp) {
			return true
		}
	}
	return false
}

// classFactsPending reports whether some fact of the class is not known yet.
func (p Pool) classFactsPending() bool { return p.factsPending(classFactPaths) }

func (p Pool) spec() manifest.NodeClaimTemplateSpec { return p.Manifest.Spec.Template.Spec }

func (p Pool) labels() map[string]string {
	if m := p.Manifest.Spec.Template.Metadata; m != nil {
		return m.Labels
	}
	return nil
}
