// Package node answers what Karpenter would launch for one NodePool, its
// EC2NodeClass and one instance type: the labels and taints the node
// carries, its capacity, overhead and allocatable (package capacity), the
// image it boots (package ami, strict matching) and the userData Karpenter
// generates for it (package userdata, through nodepool's options), or why
// Karpenter would not launch that type for the pool at all. It is plain
// Go: data "karpenter_node" gathers the facts (AWS, cluster, controller
// settings) and the scheduling prediction can reuse it per type.
package node

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/capacity"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/cluster"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodeclass"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodepool"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/requirements"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// Attribute paths of data "karpenter_node", which findings point at.
var (
	PathNodePool     = rules.Root("node_pool")
	PathNodeClass    = rules.Root("node_class")
	PathInstanceType = rules.Root("instance_type")
	PathCapacityType = rules.Root("capacity_type")
	PathZone         = rules.Root("zone")
)

// Capacity types Karpenter launches.
const (
	OnDemand = "on-demand"
	Spot     = "spot"
	Reserved = "reserved"
)

// CapacityTypes are the values capacity_type takes.
var CapacityTypes = []string{OnDemand, Spot, Reserved}

// Request is one question: a node of Pool on Class, of instance type Type.
type Request struct {
	Pool  manifest.NodePool
	Class manifest.EC2NodeClass
	Type  instancetype.Type
	// CapacityType is "" for what Karpenter prefers (spot when the pool
	// and the type allow it, else on-demand).
	CapacityType string
	// Zone is "" when the node's zone is left open.
	Zone string
}

// Facts are what the answer is computed from besides the request.
type Facts struct {
	// Region is the provider's region ("" when not known).
	Region string
	// Images is the class's image resolution (its status.amis) and
	// Kubernetes the version it was resolved for.
	Images     ami.Result
	Kubernetes versions.Kubernetes
	// Zones are the zones of the class's subnets, with their IDs; nil when
	// not known (AWS not configured). Offerings are the instance types
	// offered per zone; nil when not known.
	Zones     []instancetype.Zone
	Offerings map[string][]string
	// Cluster holds the cluster facts the userData needs; ClusterMissing
	// says why they are not available ("" when they are).
	Cluster        cluster.Facts
	ClusterMissing string
	// Settings are the Karpenter controller settings.
	Settings  capacity.Settings
	Karpenter versions.Karpenter
}

// Node is what Karpenter would launch.
type Node struct {
	Family amifamily.Family
	// CapacityType, and Zone with ZoneID ("" when left open).
	CapacityType, Zone, ZoneID string
	// Labels are every label Karpenter puts on the node.
	Labels map[string]string
	// Taints are registered with the node; StartupTaints too, until
	// something on the node removes them.
	Taints, StartupTaints []manifest.Taint
	Resources             capacity.Node
	AMI                   ami.AMI
	// UserData is what the launch template carries; "" when it cannot be
	// rendered (a finding says why).
	UserData string
}

// Family is the class's amiFamily as Karpenter resolves it (amiFamily, else
// the alias's family).
func Family(c manifest.EC2NodeClass, kv versions.Karpenter) (amifamily.Family, bool) {
	return ami.ResolvedFamily(c.Spec.AMIFamily, nodeclass.Terms(c), kv)
}

// Compute answers a request. Errors say why Karpenter would not launch
// the node (the pool, the class or the offering excludes it) or why the
// answer cannot be computed; the Node is then partial.
func Compute(r Request, f Facts) (Node, rules.Findings) {
	var n Node
	fs := classMatches(r)
	family, ok := Family(r.Class, f.Karpenter)
	if !ok {
		fs = append(fs, rules.New(ruleManifest, PathNodeClass,
			"EC2NodeClass %q has no amiFamily and no alias term, so Karpenter cannot tell its AMI family (the CRD requires amiFamily without an alias). Set spec.amiFamily, or use an alias such as \"al2023@latest\".",
			r.Class.Metadata.Name))
	}
	if fs.HasErrors() {
		return n, fs
	}
	n.Family = family
	p := pool(r, family, f)

	fs = append(fs, admitted(r, p, family, f)...)
	ct, more := capacityType(r, p)
	fs = append(fs, more...)
	n.CapacityType = ct
	if r.Zone != "" {
		n.Zone = r.Zone
		n.ZoneID, more = zone(r, p, f)
		fs = append(fs, more...)
	}
	if fs.HasErrors() {
		return n, fs
	}

	chosen, imageFindings := ami.ForInstance(f.Images, ami.InstanceFromType(r.Type), ami.Mapping{Family: family, Kubernetes: f.Kubernetes, Karpenter: f.Karpenter})
	for _, x := range imageFindings {
		x.Path = PathNodeClass
		if x.Severity == rules.Error {
			x.Path = PathInstanceType
		}
		fs = append(fs, x)
	}
	n.AMI = chosen

	res, err := capacity.Compute(r.Type, capacity.ClassOf(family, r.Class.Spec), f.Settings)
	if err != nil {
		return n, append(fs, capacityFinding(r, err))
	}
	n.Resources = res

	// The node's own labels: the NodeClaim's, and what the kubelet
	// registers with from Karpenter's userData (karpenter.sh/do-not-sync-
	// taints among them); a Custom userData registers what it says.
	own := nodepool.NodeClaimLabels(p)
	if family.Model().KarpenterBootstraps() {
		maps.Copy(own, userdata.EffectiveLabels(family, nodepool.UserDataOptions(p, p.Class.Kubelet, ct, cluster.Facts{}, f.Karpenter)))
	}
	n.Labels = capacity.NodeLabels(
		capacity.InstanceLabels(r.Type, family, capacity.Offering{Region: f.Region, Zone: n.Zone, ZoneID: n.ZoneID, CapacityType: ct}), own)
	spec := r.Pool.Spec.Template.Spec
	n.Taints, n.StartupTaints = spec.Taints, spec.StartupTaints

	var udFindings rules.Findings
	n.UserData, udFindings = userData(p, family, ct, res.MaxPods, f)
	return n, append(fs, udFindings...)
}

// classMatches: the pool must name this class; Karpenter launches its
// nodes with the class the pool references, whatever was passed here.
func classMatches(r Request) rules.Findings {
	ref := r.Pool.Spec.Template.Spec.NodeClassRef
	if ref.Group == nodepool.NodeClassGroup && ref.Kind == nodepool.NodeClassKind && ref.Name == r.Class.Metadata.Name {
		return nil
	}
	return rules.Findings{rules.New(ruleClassMismatch, PathNodeClass,
		"NodePool %q references %s %q (group %q), but node_class is EC2NodeClass %q: Karpenter launches the pool's nodes with the class its nodeClassRef names, so this answer would describe a node that never exists. Pass that class's manifest as node_class, or set the pool's nodeClassRef to {group: %s, kind: %s, name: %s}.",
		r.Pool.Metadata.Name, ref.Kind, ref.Name, ref.Group, r.Class.Metadata.Name, nodepool.NodeClassGroup, nodepool.NodeClassKind, r.Class.Metadata.Name)}
}

// pool is the NodePool with what the checks and the renderer read of its
// class.
func pool(r Request, family amifamily.Family, f Facts) nodepool.Pool {
	c := nodepool.ClassFacts{Known: true, Family: family, AMIs: f.Images.AMIs,
		InstanceStorePolicy: r.Class.Spec.InstanceStorePolicy, AMIVersion: nodepool.AMIVersion(nodeclass.Terms(r.Class), f.Images.AMIs)}
	if r.Class.Spec.UserData != nil {
		c.UserData = *r.Class.Spec.UserData
	}
	if r.Class.Spec.Kubelet != nil {
		c.Kubelet = *r.Class.Spec.Kubelet
	}
	return nodepool.Pool{Manifest: r.Pool, Class: c}
}

// admitted: Karpenter offers the pool the type only if the class's family
// keeps it and the pool's requirements and template labels allow it.
func admitted(r Request, p nodepool.Pool, family amifamily.Family, f Facts) rules.Findings {
	t, m := r.Type, family.Model()
	switch {
	case !m.SupportsA1() && t.Family == "a1":
		return rules.Findings{rules.New(ruleTypeExcluded, PathInstanceType,
			"%s is an a1 type, and Karpenter removes a1 instance types for %s classes (\"a1 instance types are not supported with al2023s\"), so the pool never launches it. Ask for a newer Graviton type (m6g, c7g, t4g, ...), or use a class with another family.", t.Name, family)}
	case !m.SupportsArch(t.Architecture):
		return rules.Findings{rules.New(ruleTypeExcluded, PathInstanceType,
			"%s is %s, and the class is %s: %s. Ask for an amd64 type (m5.large, m7i.large, ...), or use a Linux class for Graviton.", t.Name, t.Architecture, family, m.ArchGap())}
	}
	placed := capacity.Requirements(t, family, capacity.Offering{Region: f.Region})
	if placed.Overlaps(nodepool.Requirements(p)) {
		return nil
	}
	why := "its requirements and template labels together"
	if ex := nodepool.Excluding(p, placed); len(ex) > 0 {
		why = strings.Join(ex, " and ")
	}
	return rules.Findings{rules.New(ruleTypeExcluded, PathInstanceType,
		"NodePool %q does not admit %s: %s exclude it (the type's labels: %s), so Karpenter never launches it for this pool. Ask for a type the pool admits, or widen the requirement.",
		r.Pool.Metadata.Name, t.Name, why, typeLabels(placed, nodepool.Requirements(p)))}
}

// typeLabels are the type's values of the keys the pool constrains.
func typeLabels(placed, pool requirements.Requirements) string {
	var out []string
	for _, k := range pool.Keys() {
		if r, ok := placed[k]; ok {
			out = append(out, r.String())
		}
	}
	return strings.Join(out, ", ")
}

// capacityType is the requested capacity type, checked against the pool
// and the type, or the one Karpenter prefers.
func capacityType(r Request, p nodepool.Pool) (string, rules.Findings) {
	poolCT := nodepool.Requirements(p).Get(requirements.LabelCapacityType)
	typeCT := r.Type.Requirements().Get(requirements.LabelCapacityType)
	if r.CapacityType == "" {
		for _, ct := range []string{Spot, OnDemand} {
			if poolCT.Has(ct) && typeCT.Has(ct) {
				return ct, nil
			}
		}
		return "", rules.Findings{rules.New(ruleCapacityType, PathCapacityType,
			"NodePool %q allows %s and %s is sold as %s: Karpenter has no spot or on-demand offering of it for this pool. Widen karpenter.sh/capacity-type, or ask for \"reserved\" capacity (a capacity reservation the class selects).",
			r.Pool.Metadata.Name, poolCT, r.Type.Name, typeCT).WithFix(rules.Fix{Value: `"reserved"`})}
	}
	ct := r.CapacityType
	switch {
	case !slices.Contains(CapacityTypes, ct):
		return "", CheckCapacityType(ct)
	case !poolCT.Has(ct):
		return "", rules.Findings{rules.New(ruleCapacityType, PathCapacityType,
			"NodePool %q does not allow capacity type %q: its requirements say %s, so Karpenter never launches %s nodes for it. Ask for an allowed capacity type, or add %q to the requirement.",
			r.Pool.Metadata.Name, ct, poolCT, ct, ct)}
	case ct == Reserved && len(r.Class.Spec.CapacityReservationSelectorTerms) == 0:
		return "", rules.Findings{rules.New(ruleCapacityType, PathCapacityType,
			"capacity type \"reserved\" is asked for, but EC2NodeClass %q selects no capacity reservations (spec.capacityReservationSelectorTerms): Karpenter offers reserved capacity only for the reservations the class selects. Add capacityReservationSelectorTerms, or ask for \"on-demand\" or \"spot\".", r.Class.Metadata.Name)}
	case !typeCT.Has(ct):
		return "", rules.Findings{rules.New(ruleCapacityType, PathCapacityType,
			"EC2 does not sell %s as %s (its usage classes: %s), so Karpenter has no %s offering of it. Ask for another capacity type or instance type.",
			r.Type.Name, ct, typeCT, ct)}
	}
	return ct, nil
}

// zone checks the requested zone against the pool, the class's subnets
// and the type's offerings, and returns its zone ID.
func zone(r Request, p nodepool.Pool, f Facts) (string, rules.Findings) {
	z := r.Zone
	if req := nodepool.Requirements(p).Get(requirements.LabelZone); !req.Has(z) {
		return "", rules.Findings{rules.New(ruleZone, PathZone,
			"NodePool %q does not allow zone %q: its requirements say %s, so Karpenter never launches a node of this pool there. Ask for an allowed zone, or leave zone unset.", r.Pool.Metadata.Name, z, req)}
	}
	id := ""
	if f.Zones != nil {
		var names []string
		found := false
		for _, sz := range f.Zones {
			names = append(names, sz.Name)
			if sz.Name == z {
				found, id = true, sz.ID
			}
		}
		if !found {
			slices.Sort(names)
			return "", rules.Findings{rules.New(ruleZone, PathZone,
				"EC2NodeClass %q has no subnet in %q (its subnets are in %s), so Karpenter cannot launch there. Ask for one of those zones, or select a subnet in %s.",
				r.Class.Metadata.Name, z, quoted(slices.Compact(names)), z)}
		}
	}
	if f.Offerings != nil && !slices.Contains(f.Offerings[z], r.Type.Name) {
		var where []string
		for zn, types := range f.Offerings {
			if slices.Contains(types, r.Type.Name) {
				where = append(where, zn)
			}
		}
		slices.Sort(where)
		return "", rules.Findings{rules.New(ruleZone, PathZone,
			"EC2 does not offer %s in %q (ec2:DescribeInstanceTypeOfferings; it is offered in %s), so Karpenter has no offering of it there. Ask for another zone or instance type.",
			r.Type.Name, z, quoted(where))}
	}
	return id, nil
}

func quoted(ss []string) string {
	if len(ss) == 0 {
		return "no zone"
	}
	return `"` + strings.Join(ss, `", "`) + `"`
}

func capacityFinding(r Request, err error) rules.Finding {
	var fe *capacity.FactsError
	if errors.As(err, &fe) {
		return rules.New(ruleCapacity, PathInstanceType,
			"%v. Karpenter computes capacity from the type's vCPUs, memory, ENIs and devices as ec2:DescribeInstanceTypes reports them, and the provider does not guess them. Configure AWS for the provider (region and credentials, or an endpoint) so the region's instance types are read.", err)
	}
	return rules.New(ruleCapacity, PathNodeClass, "EC2NodeClass %q: %v; Karpenter cannot parse the value and fails to compute the type's capacity. Write a Kubernetes quantity (\"100m\", \"512Mi\") for kube_reserved and system_reserved, and a quantity or a percentage (\"100Mi\", \"10%%\") for eviction thresholds.", r.Class.Metadata.Name, err)
}

// userData renders what Karpenter generates for the node: maxPods is the
// type's pod capacity when the class sets none (resolveLaunchTemplates).
func userData(p nodepool.Pool, family amifamily.Family, ct string, maxPods int64, f Facts) (string, rules.Findings) {
	if !family.Model().KarpenterBootstraps() {
		return p.Class.UserData, nil
	}
	if f.ClusterMissing != "" {
		return "", rules.Findings{rules.New(ruleUserData, PathNodeClass,
			"user_data is null: %s. Karpenter renders the cluster's name, endpoint and CA (and for AL2023 the service CIDR) into every node's userData; everything else of this data source is computed without them.", f.ClusterMissing)}
	}
	k := p.Class.Kubelet
	if k.MaxPods == nil {
		v := int32(min(maxPods, 1<<31-1))
		k.MaxPods = &v
	}
	out, fs := userdata.Render(family, nodepool.UserDataOptions(p, k, ct, f.Cluster, f.Karpenter))
	for i := range fs {
		fs[i].Path = PathNodeClass
		fs[i].Detail = fmt.Sprintf("the userData of this node would not render: %s", fs[i].Detail)
	}
	return out, fs
}

// The rules the checks of this file emit.
var (
	ruleClassMismatch = rules.Register(rules.Rule{
		ID: "node-class-mismatch", Severity: rules.Error, Category: Category,
		Title:     "the NodePool's nodeClassRef names another class than node_class",
		Behaviour: "Karpenter launches a NodePool's nodes with the EC2NodeClass its `spec.template.spec.nodeClassRef` names (group karpenter.k8s.aws, kind EC2NodeClass). A node computed for another class (another family, kubelet or block devices) would describe a node that never exists.",
		Source:    "sigs.k8s.io/karpenter v1.14.1 pkg/apis/v1/nodepool.go (nodeClassRef); aws/karpenter-provider-aws pkg/cloudprovider/cloudprovider.go resolveNodeClassFromNodeClaim",
		Bad:       example(poolYAML("general", ""), classYAML("gpu", ""), "  instance_type = \"m5.large\"\n"),
		Good:      example(poolYAML("general", ""), classYAML("default", ""), "  instance_type = \"m5.large\"\n"),
	})
	ruleTypeExcluded = rules.Register(rules.Rule{
		ID: "node-instance-type-excluded", Severity: rules.Error, Category: Category,
		Title:     "the NodePool or its EC2NodeClass does not admit the instance type",
		Behaviour: "Karpenter offers a NodePool only the instance types whose labels its requirements and template labels allow (computeRequirements against the NodeClaim template), after the class's family filters (no a1 on AL2023, no arm64 on Windows). A node of any other type is never launched for the pool; the error names the requirement that excludes the type.",
		Source:    "sigs.k8s.io/karpenter v1.14.1 pkg/controllers/provisioning/scheduling/nodeclaim.go (instance type filtering); aws/karpenter-provider-aws pkg/providers/instancetype/types.go computeRequirements and compatibility/compatibility.go",
		Bad:       example(poolYAML("graviton", arm64Only), classYAML("default", ""), "  instance_type = \"m5.large\"\n"),
		Good:      example(poolYAML("graviton", arm64Only), classYAML("default", ""), "  instance_type = \"m6g.large\"\n"),
	})
	ruleCapacityType = rules.Register(rules.Rule{
		ID: "node-capacity-type-excluded", Severity: rules.Error, Category: Category,
		Title:     "the capacity type is not one the NodePool and the instance type allow",
		Behaviour: "A node's karpenter.sh/capacity-type is one the NodePool's requirements allow and EC2 sells the type as (its usage classes: on-demand, spot), or `reserved` for the capacity reservations the class selects. Left unset, the data source takes what Karpenter prefers: spot when allowed, else on-demand.",
		Source:    "aws/karpenter-provider-aws v1.14.1 pkg/providers/instancetype/types.go computeRequirements (capacity types); pkg/providers/instance getCapacityType",
		Bad:       example(poolYAML("steady", onDemandReq), classYAML("default", ""), "  instance_type = \"m5.large\"\n  capacity_type = \"spot\"\n"),
		Good:      example(poolYAML("steady", onDemandReq), classYAML("default", ""), "  instance_type = \"m5.large\"\n  capacity_type = \"on-demand\"\n"),
	})
	ruleZone = rules.Register(rules.Rule{
		ID: "node-zone-excluded", Severity: rules.Error, Category: Category,
		Title:     "the zone is not one the NodePool, the class's subnets and the type's offerings allow",
		Behaviour: "Karpenter launches a node in a zone the NodePool's topology.kubernetes.io/zone requirement allows, where the EC2NodeClass has a subnet and EC2 offers the instance type (ec2:DescribeInstanceTypeOfferings). The subnets and offerings are read when AWS is configured.",
		Source:    "aws/karpenter-provider-aws v1.14.1 pkg/providers/instancetype/types.go computeRequirements (zones: offerings ∩ subnets); pkg/providers/instancetype/offering",
		Bad:       example(poolYAML("zonal", zoneReq), classYAML("default", ""), "  instance_type = \"m5.large\"\n  zone          = \"us-east-1c\"\n"),
		Good:      example(poolYAML("zonal", zoneReq), classYAML("default", ""), "  instance_type = \"m5.large\"\n  zone          = \"us-east-1a\"\n"),
	})
	ruleCapacity = rules.Register(rules.Rule{
		ID: "node-capacity-unavailable", Severity: rules.Error, Category: Category,
		Title:     "the node's capacity cannot be computed",
		Behaviour: "Capacity, overhead and allocatable follow the instance type's vCPUs, memory, ENIs, GPUs, Neuron devices, EFA and instance storage as ec2:DescribeInstanceTypes reports them; without AWS configured the provider has only family-level facts and does not guess. A class value Karpenter cannot parse (a kube_reserved quantity, an eviction threshold) also stops the computation, as it stops Karpenter's.",
		Source:    "aws/karpenter-provider-aws v1.14.1 pkg/providers/instancetype/types.go NewInstanceType",
		Bad:       "provider \"karpenter\" {\n  # no region: the embedded family facts only\n}\n\n" + example(poolYAML("general", ""), classYAML("default", ""), "  instance_type = \"m5.large\"\n"),
		Good:      "provider \"karpenter\" {\n  region = \"us-east-1\"\n}\n\n" + example(poolYAML("general", ""), classYAML("default", ""), "  instance_type = \"m5.large\"\n"),
	})
	ruleUserData = rules.Register(rules.Rule{
		ID: "node-user-data-unavailable", Severity: rules.Warning, Category: Category,
		Title:     "user_data is null: the cluster facts Karpenter renders into it are not known",
		Behaviour: "Karpenter renders the cluster's name, API endpoint and CA bundle (and for AL2023 the service CIDR) into every node's userData. Without them in the provider's `cluster` block, or a `cluster.name` to read them with eks:DescribeCluster, the data source computes everything else and leaves user_data null. Custom classes need none: their userData is passed through.",
		Source:    "aws/karpenter-provider-aws v1.14.1 pkg/providers/amifamily/resolver.go and bootstrap (Options)",
		Bad:       "provider \"karpenter\" {\n  region = \"us-east-1\"\n  cluster {\n    kubernetes_version = \"1.32\"\n  }\n}\n\n" + example(poolYAML("general", ""), classYAML("default", ""), "  instance_type = \"m5.large\"\n"),
		Good:      "provider \"karpenter\" {\n  region = \"us-east-1\"\n  cluster {\n    name = \"demo\" # endpoint, CA and service CIDR from eks:DescribeCluster\n  }\n}\n\n" + example(poolYAML("general", ""), classYAML("default", ""), "  instance_type = \"m5.large\"\n"),
	})
)
