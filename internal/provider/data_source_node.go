package provider

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/cluster"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/node"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodeclass"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodepool"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/taints"
)

var (
	_ datasource.DataSourceWithConfigure      = (*nodeDataSource)(nil)
	_ datasource.DataSourceWithValidateConfig = (*nodeDataSource)(nil)
)

// NewNodeDataSource is the factory of karpenter_node.
func NewNodeDataSource() datasource.DataSource { return &nodeDataSource{} }

type nodeDataSource struct{ configuredDataSource }

type nodeModel struct {
	NodePool      types.String  `tfsdk:"node_pool"`
	NodeClass     types.String  `tfsdk:"node_class"`
	InstanceType  types.String  `tfsdk:"instance_type"`
	CapacityType  types.String  `tfsdk:"capacity_type"`
	Zone          types.String  `tfsdk:"zone"`
	Labels        types.Map     `tfsdk:"labels"`
	Taints        types.List    `tfsdk:"taints"`
	StartupTaints types.List    `tfsdk:"startup_taints"`
	Capacity      types.Map     `tfsdk:"capacity"`
	Allocatable   types.Map     `tfsdk:"allocatable"`
	Overhead      types.Object  `tfsdk:"overhead"`
	MaxPods       types.Int64   `tfsdk:"max_pods"`
	AMI           types.Object  `tfsdk:"ami"`
	UserData      types.String  `tfsdk:"user_data"`
	HourlyPrice   types.Float64 `tfsdk:"hourly_price"`
}

var (
	quantitiesType   = types.MapType{ElemType: types.StringType}
	overheadAttrType = map[string]attr.Type{"vm_memory": types.StringType, "kube_reserved": quantitiesType, "system_reserved": quantitiesType, "eviction": quantitiesType}
	nodeAMIAttrType  = map[string]attr.Type{"id": types.StringType, "name": types.StringType}
)

func (d *nodeDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_node"
}

func (d *nodeDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	quantities := func(desc string) schema.MapAttribute {
		return schema.MapAttribute{ElementType: types.StringType, Computed: true, Description: desc}
	}
	taintList := func(desc string) schema.ListNestedAttribute {
		return schema.ListNestedAttribute{Computed: true, Description: desc, NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"key":    schema.StringAttribute{Computed: true, Description: "Taint key."},
			"value":  schema.StringAttribute{Computed: true, Description: "Taint value; null when the taint has none."},
			"effect": schema.StringAttribute{Computed: true, Description: "`NoSchedule`, `PreferNoSchedule` or `NoExecute`."},
		}}}
	}
	resp.Schema = schema.Schema{
		Description: "The node Karpenter would launch for one NodePool, its EC2NodeClass and one instance type: every label it puts on the " +
			"node, its taints, and its capacity, overhead and allocatable exactly as karpenter-provider-aws computes them " +
			"(`NewInstanceType`: memory less the VM overhead, kube-reserved, system-reserved, the hard eviction threshold, the ENI-limited " +
			"pod count, ephemeral storage from the root volume or the RAID0 instance stores, GPUs, Neuron, EFA), the image it boots and its " +
			"userData. It fails, with a rule id, when Karpenter would never launch that node: the pool's requirements or the class's family " +
			"or images exclude the type, or the capacity type or zone is not allowed. Needs AWS configured (the region's " +
			"ec2:DescribeInstanceTypes); reads the controller block for Karpenter's VM memory overhead and reserved ENIs.",
		Attributes: map[string]schema.Attribute{
			"node_pool": schema.StringAttribute{Required: true, Description: "One NodePool (karpenter.sh/v1), YAML or JSON: " +
				"`karpenter_nodepool.<name>.manifest`, or `file()` of a GitOps manifest."},
			"node_class": schema.StringAttribute{Required: true, Description: "The EC2NodeClass (karpenter.k8s.aws/v1) the pool's " +
				"nodeClassRef names, YAML or JSON: `karpenter_ec2nodeclass.<name>.manifest`, or `file()` of a manifest."},
			"instance_type": schema.StringAttribute{Required: true, Description: "The instance type, e.g. `g5.xlarge`."},
			"capacity_type": schema.StringAttribute{Optional: true, Computed: true, Description: "`on-demand`, `spot` or `reserved`. " +
				"Default: what Karpenter prefers, spot when the pool and the type allow it, else on-demand (capacity reservations, " +
				"which Karpenter would use first, are not considered: ask for `reserved` explicitly)."},
			"zone": schema.StringAttribute{Optional: true, Description: "The availability zone, e.g. `us-east-1a`; checked against the " +
				"pool's requirements, the class's subnets and the type's offerings. Unset, the zone labels are left out."},
			"labels": schema.MapAttribute{ElementType: types.StringType, Computed: true, Description: "Every label Karpenter puts on the " +
				"node: the instance type's well-known labels, region (and zone, zone ID when `zone` is set), capacity type, the pool's " +
				"template labels and single-valued custom requirement labels, `karpenter.sh/nodepool`, `karpenter.k8s.aws/ec2nodeclass`, " +
				"the labels Karpenter's userData registers (`karpenter.sh/do-not-sync-taints`), and `karpenter.sh/registered`/`initialized`. " +
				"Not included: what the kubelet sets itself (`kubernetes.io/hostname`), values Karpenter picks at random (custom " +
				"requirements with several values, `Exists`), and the labels of a capacity reservation."},
			"taints":         taintList("The pool's taints, registered with the node."),
			"startup_taints": taintList("The pool's startup taints, registered with the node until something on it removes them."),
			"capacity": quantities("The node's capacity as Karpenter's scheduler sees it: `cpu`, `memory` (less the VM overhead), " +
				"`ephemeral-storage`, `pods`, and the extended resources the type has (`nvidia.com/gpu`, `amd.com/gpu`, `aws.amazon.com/neuron`, " +
				"`aws.amazon.com/neuroncore`, `habana.ai/gaudi`, `vpc.amazonaws.com/efa`, `vpc.amazonaws.com/pod-eni`, and on Windows " +
				"`vpc.amazonaws.com/PrivateIPv4Address`); zero quantities are left out."),
			"allocatable": quantities("Capacity less kube-reserved, system-reserved and the eviction threshold: what pods can request " +
				"(before DaemonSets). Same keys as `capacity`."),
			"overhead": schema.SingleNestedAttribute{Computed: true, Description: "What Karpenter subtracts.", Attributes: map[string]schema.Attribute{
				"vm_memory": schema.StringAttribute{Computed: true, Description: "Memory taken off capacity for the hypervisor " +
					"(`vm_memory_overhead_percent` of the type's memory, rounded up to a MiB; already out of `capacity.memory`)."},
				"kube_reserved": quantities("kube-reserved: CPU by tiers of the type's cores, 11 MiB per pod + 255 MiB of memory " +
					"(pods: the ENI-limited count on AL2/AL2023/Custom), 1 GiB of ephemeral storage, each replaced by the class's `kubeReserved`."),
				"system_reserved": quantities("The class's `systemReserved` (empty when unset)."),
				"eviction": quantities("The hard eviction threshold: 100 MiB of memory and 10 % of ephemeral storage, or the class's " +
					"`evictionHard` memory.available / nodefs.available (percentages of capacity). Soft thresholds do not lower allocatable."),
			}},
			"max_pods": schema.Int64Attribute{Computed: true, Description: "The pod capacity: the class's `maxPods`, else the " +
				"ENI-limited count (less `reserved_enis`; 110 on Windows), at most `podsPerCore` × vCPUs where the family honours it. " +
				"It is the maxPods Karpenter writes into the userData."},
			"ami": schema.SingleNestedAttribute{Computed: true, Description: "The image the node boots: the first image of the class's " +
				"`status.amis` whose requirements the type satisfies, matched strictly as Karpenter does since 1.4.", Attributes: map[string]schema.Attribute{
				"id":   schema.StringAttribute{Computed: true, Description: "Image id."},
				"name": schema.StringAttribute{Computed: true, Description: "Image name."},
			}},
			"user_data": schema.StringAttribute{Computed: true, Description: "The userData Karpenter generates for this node (this pool, " +
				"class, type and capacity type): the family's bootstrap with the cluster facts of the provider's `cluster` block (or " +
				"eks:DescribeCluster), merged with the class's userData; a Custom class's userData unchanged. Null, with a warning, " +
				"when the cluster facts are not known."},
			"hourly_price": nodePriceAttribute(),
		},
	}
}

// ValidateConfig checks what is literal: the manifests (the offline rules
// of the default release), the instance type's shape and the capacity
// type. Read repeats the manifest rules for the configured release.
func (d *nodeDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var m nodeModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	kv := providerDataOrDefault(d.data).Karpenter
	pool, poolKnown := knownString(m.NodePool)
	class, classKnown := knownString(m.NodeClass)
	var fs rules.Findings
	if poolKnown {
		fs = append(fs, node.CheckManifests(ctx, pool, "", kv)...)
	}
	if classKnown {
		fs = append(fs, node.CheckManifests(ctx, "", class, kv)...)
	}
	if poolKnown && classKnown && !fs.HasErrors() {
		_, _, fs = node.Decode(pool, class)
	}
	appendFindings(&resp.Diagnostics, path.Empty(), fs)
	if s, ok := knownString(m.InstanceType); ok {
		if _, _, ok := instancetype.SplitType(s); !ok {
			addRuleDiag(&resp.Diagnostics, path.Root("instance_type"), ruleInstanceTypeInvalid,
				fmt.Sprintf("%q is not an instance type name; write family.size, e.g. \"g5.xlarge\".", s))
		}
	}
	if s, ok := knownString(m.CapacityType); ok {
		appendFindings(&resp.Diagnostics, path.Empty(), node.CheckCapacityType(s))
	}
}

func (d *nodeDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m nodeModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	pd := providerDataOrDefault(d.data)
	defer func() { resp.Diagnostics = pd.oncePerPlan(dropAcknowledged(resp.Diagnostics, pd.Acknowledged), true) }()
	diags := &resp.Diagnostics
	poolYAML, classYAML := m.NodePool.ValueString(), m.NodeClass.ValueString()
	fs := node.CheckManifests(ctx, poolYAML, classYAML, pd.Karpenter)
	if !fs.HasErrors() {
		var pool manifest.NodePool
		var class manifest.EC2NodeClass
		pool, class, fs = node.Decode(poolYAML, classYAML)
		if !fs.HasErrors() {
			d.read(ctx, pd, &m, node.Request{Pool: pool, Class: class, CapacityType: m.CapacityType.ValueString(), Zone: m.Zone.ValueString()}, diags)
		}
	}
	appendFindings(diags, path.Empty(), fs)
	if diags.HasError() {
		return
	}
	diags.Append(resp.State.Set(ctx, &m)...)
}

// read gathers the facts, computes the node and fills m.
func (d *nodeDataSource) read(ctx context.Context, pd *ProviderData, m *nodeModel, r node.Request, diags *diag.Diagnostics) {
	if pd.ControllerUnknown {
		addRuleDiag(diags, path.Empty(), ruleInputsUnknown, "The provider's controller block is not known until apply; the node's "+
			"capacity depends on it. Set vm_memory_overhead_percent and reserved_enis from known values.")
		return
	}
	cat, err := instancetype.Load(ctx, pd.AWS)
	if err != nil {
		addAWSFailure(diags, path.Root("instance_type"), err, "")
		return
	}
	t, ok := cat.Type(m.InstanceType.ValueString())
	if !ok {
		addRuleDiag(diags, path.Root("instance_type"), ruleInstanceTypeInvalid, unknownTypeDetail(cat, m.InstanceType.ValueString()))
		return
	}
	r.Type = t
	if fs := node.CheckTypeFacts(r); fs.HasErrors() {
		appendFindings(diags, path.Empty(), fs)
		return
	}
	f := node.Facts{Settings: pd.Controller, Karpenter: pd.Karpenter}
	res, err := resolveAMIs(ctx, pd, nodeclass.Terms(r.Class), types.StringNull(), path.Empty(), diags)
	if err != nil {
		addDeferredError(err, diags)
		return
	}
	appendFindings(diags, path.Empty(), atNodeClass(res.result.Findings))
	if diags.HasError() {
		return
	}
	f.Images, f.Kubernetes = res.result, res.kubernetes
	if err := offeringFacts(ctx, pd, r, &f); err != nil {
		addAWSFailure(diags, path.Root("zone"), err, "")
		return
	}
	if family, ok := node.Family(r.Class, pd.Karpenter); ok {
		if err := clusterFactsFor(ctx, pd, family, &f); err != nil {
			addAWSFailure(diags, path.Root("node_class"), err, "")
			return
		}
	}
	n, fs := node.Compute(r, f)
	appendFindings(diags, path.Empty(), fs)
	if diags.HasError() {
		return
	}
	fill(m, n, diags)
	m.HourlyPrice = nodePrice(ctx, pd, n, r.Type.Name, f.Region, diags)
}

// atNodeClass points the image resolution's findings (paths of the class
// resource) at node_class.
func atNodeClass(fs rules.Findings) rules.Findings {
	out := make(rules.Findings, len(fs))
	for i, f := range fs {
		f.Path = node.PathNodeClass
		out[i] = f
	}
	return out
}

// offeringFacts reads the region, and for a requested zone the class's
// subnets and the type offerings, when AWS is configured.
func offeringFacts(ctx context.Context, pd *ProviderData, r node.Request, f *node.Facts) error {
	if pd.AWS == nil || !pd.AWS.Clients().Configured() {
		return nil
	}
	region, err := pd.AWS.Clients().Region(ctx)
	if err != nil {
		return err
	}
	f.Region = region
	if r.Zone == "" {
		return nil
	}
	var terms []awsclient.SubnetTerm
	for _, t := range r.Class.Spec.SubnetSelectorTerms {
		terms = append(terms, awsclient.SubnetTerm{ID: t.ID, Tags: t.Tags})
	}
	sel, err := pd.AWS.SelectSubnets(ctx, terms)
	switch {
	case errors.Is(err, awsclient.ErrNotServed):
	case err != nil:
		return err
	default:
		f.Zones = []instancetype.Zone{}
		for _, s := range sel.All {
			f.Zones = append(f.Zones, instancetype.Zone{Name: s.Zone, ID: s.ZoneID})
		}
	}
	if f.Offerings, err = pd.AWS.OfferingsByZone(ctx); err != nil {
		return err
	}
	return nil
}

// clusterFactsFor resolves the facts the family's userData needs; missing
// or unknown ones leave user_data null (node.Facts.ClusterMissing).
func clusterFactsFor(ctx context.Context, pd *ProviderData, family amifamily.Family, f *node.Facts) error {
	need := nodepool.PreviewNeeds(family)
	if len(need) == 0 {
		return nil
	}
	facts, err := pd.ClusterFacts(ctx, need, "user_data")
	var missing *cluster.MissingError
	switch {
	case errors.Is(err, cluster.ErrUnknown):
		f.ClusterMissing = "the cluster facts in the provider's cluster block are not known until apply"
	case errors.As(err, &missing):
		f.ClusterMissing = missing.Error()
	case err != nil:
		return err
	default:
		f.Cluster = facts
	}
	return nil
}

// fill sets the computed attributes.
func fill(m *nodeModel, n node.Node, diags *diag.Diagnostics) {
	var d diag.Diagnostics
	m.CapacityType = types.StringValue(n.CapacityType)
	m.Labels, d = types.MapValueFrom(context.Background(), types.StringType, n.Labels)
	diags.Append(d...)
	m.Taints, m.StartupTaints = nodeTaints(n.Taints, diags), nodeTaints(n.StartupTaints, diags)
	m.Capacity = quantitiesValue(n.Resources.Capacity, true, diags)
	m.Allocatable = quantitiesValue(pick(n.Resources.Allocatable, n.Resources.Capacity), false, diags)
	m.Overhead, d = types.ObjectValue(overheadAttrType, map[string]attr.Value{
		"vm_memory":       types.StringValue(n.Resources.VMMemoryOverhead.String()),
		"kube_reserved":   quantitiesValue(n.Resources.Overhead.KubeReserved, false, diags),
		"system_reserved": quantitiesValue(n.Resources.Overhead.SystemReserved, false, diags),
		"eviction":        quantitiesValue(n.Resources.Overhead.EvictionThreshold, false, diags),
	})
	diags.Append(d...)
	m.MaxPods = types.Int64Value(n.Resources.MaxPods)
	m.AMI, d = types.ObjectValue(nodeAMIAttrType, map[string]attr.Value{"id": types.StringValue(n.AMI.ID), "name": types.StringValue(n.AMI.Name)})
	diags.Append(d...)
	m.UserData = types.StringNull()
	if n.UserData != "" {
		m.UserData = types.StringValue(n.UserData)
	}
}

// pick keeps the resources of l whose capacity is not zero.
func pick(l, capacity corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	for name, q := range l {
		if c := capacity[name]; !c.IsZero() {
			out[name] = q
		}
	}
	return out
}

func quantitiesValue(l corev1.ResourceList, dropZero bool, diags *diag.Diagnostics) types.Map {
	out := map[string]attr.Value{}
	for _, name := range slices.Sorted(maps.Keys(l)) {
		q := l[name]
		if dropZero && q.IsZero() {
			continue
		}
		// Karpenter computes some thresholds through a float
		// ("2.147483648e+09" bytes): the same value is shown in full.
		if q.Format == resource.DecimalExponent {
			q = *resource.NewMilliQuantity(q.MilliValue(), resource.DecimalSI)
		}
		out[string(name)] = types.StringValue(q.String())
	}
	v, d := types.MapValue(types.StringType, out)
	diags.Append(d...)
	return v
}

// nodeTaints is the taint list value of the pool's taints.
func nodeTaints(ts []manifest.Taint, diags *diag.Diagnostics) types.List {
	conv := make([]taints.Taint, len(ts))
	for i, t := range ts {
		conv[i] = taints.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect}
	}
	l, d := taintsValue(conv)
	diags.Append(d...)
	return l
}
