package provider

import (
	"context"
	"errors"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodeclass"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling"
)

var (
	_ datasource.DataSourceWithConfigure      = (*schedulingDataSource)(nil)
	_ datasource.DataSourceWithValidateConfig = (*schedulingDataSource)(nil)
)

// NewSchedulingDataSource is the factory of karpenter_scheduling.
func NewSchedulingDataSource() datasource.DataSource { return &schedulingDataSource{} }

type schedulingDataSource struct{ configuredDataSource }

type schedulingModel struct {
	NodePools          types.List `tfsdk:"node_pools"`
	NodeClasses        types.List `tfsdk:"node_classes"`
	Workloads          types.List `tfsdk:"workloads"`
	AllowUnschedulable types.List `tfsdk:"allow_unschedulable"`
	NodeOverlays       types.List `tfsdk:"node_overlays"`
	Pods               types.Map  `tfsdk:"pods"`
	NodeClaims         types.List `tfsdk:"node_claims"`
	Skipped            types.List `tfsdk:"skipped"`
}

var (
	workloadAttrTypes = map[string]attr.Type{
		"pods": types.Int64Type, "node_pools": types.MapType{ElemType: types.Int64Type},
		"unschedulable": types.Int64Type, "reason": types.StringType,
	}
	stringList         = types.ListType{ElemType: types.StringType}
	nodeClaimAttrTypes = map[string]attr.Type{
		"node_pool": types.StringType, "instance_types": stringList, "pods": stringList,
		"zones": stringList, "capacity_types": stringList, "architectures": stringList,
	}
)

func (d *schedulingDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_scheduling"
}

func (d *schedulingDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	manifests := func(what string) schema.ListAttribute {
		return schema.ListAttribute{ElementType: types.StringType, Required: true, Description: what +
			" as YAML or JSON; an element may hold several documents separated by `---` lines (`file()` of a GitOps file)."}
	}
	list := func(desc string) schema.ListAttribute {
		return schema.ListAttribute{ElementType: types.StringType, Computed: true, Description: desc}
	}
	resp.Schema = schema.Schema{
		Description: "Karpenter's provisioning decision for an empty cluster, made before the cluster exists: which NodePool " +
			"takes each workload's pods and which NodeClaims Karpenter would create, or why it would not place a pod. It runs " +
			"Karpenter v1.14's own scheduler (taints and tolerations, node selectors and required and preferred node affinity, " +
			"well-known labels, topology spread, pod (anti-)affinity, volume topology, DaemonSet overhead, limits, minValues, " +
			"weights, in-flight NodeClaim packing, price order) on the NodePools, the subnets and capacity reservations of " +
			"their EC2NodeClasses, the region's instance types and offerings (ec2:DescribeInstanceTypes and " +
			"DescribeInstanceTypeOfferings, once per run), and the pods the workloads' controllers would create. A workload " +
			"with a pod Karpenter would not place fails the plan (`pod-unschedulable`) unless listed in `allow_unschedulable`. " +
			"Needs AWS (a region, profile or endpoint). Terraform reads it at plan, or at apply when a NodePool or EC2NodeClass it " +
			"reads changes in the same run.",
		Attributes: map[string]schema.Attribute{
			"node_pools":   manifests("karpenter.sh/v1 NodePools (e.g. `karpenter_nodepool.x.manifest`)"),
			"node_classes": manifests("karpenter.k8s.aws/v1 EC2NodeClasses (e.g. `karpenter_ec2nodeclass.x.manifest`)"),
			"workloads": manifests("Kubernetes objects: Pods, Deployments, ReplicaSets, StatefulSets (with their " +
				"volumeClaimTemplates), Jobs and CronJobs make pods; DaemonSets are overhead on every node they tolerate and " +
				"select; PersistentVolumeClaims, PersistentVolumes and StorageClasses give volume zones; PriorityClasses and " +
				"Namespaces are read; other kinds are listed in `skipped`"),
			"node_overlays": nodeOverlaysAttribute(),
			"allow_unschedulable": schema.ListAttribute{ElementType: types.StringType, Optional: true,
				Description: "Workloads, as `\"<namespace>/<kind>/<name>\"`, whose unschedulable pods are reported as warnings instead of errors."},
			"pods": schema.MapNestedAttribute{Computed: true,
				Description: "Each workload that makes pods, keyed `\"<namespace>/<kind>/<name>\"`.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"pods":          schema.Int64Attribute{Computed: true, Description: "Pods its controller would create at once (replicas; min(parallelism, completions) for a Job)."},
					"node_pools":    schema.MapAttribute{ElementType: types.Int64Type, Computed: true, Description: "How many of them each NodePool would take."},
					"unschedulable": schema.Int64Attribute{Computed: true, Description: "How many Karpenter would not place (or never considers)."},
					"reason":        schema.StringAttribute{Computed: true, Description: "Karpenter's message for the first pod it would not place; empty when all land."},
				}},
			},
			"node_claims": schema.ListNestedAttribute{Computed: true,
				Description: "The NodeClaims Karpenter would create, sorted by NodePool, zones, capacity types, architectures and " +
					"instance types; replicas of one workload are numbered in that order.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"node_pool":      schema.StringAttribute{Computed: true, Description: "The NodePool."},
					"instance_types": list("Its instance-type options, cheapest first (Karpenter's static prices; equal prices by name), at most 600."),
					"pods":           list("Its pods, `\"<namespace>/<kind>/<name>/<index>\"`."),
					"zones":          list("Zones it can launch in: of its instance types' offerings, those its requirements admit."),
					"capacity_types": list("Capacity types (`on-demand`, `spot`, `reserved`) it can launch as."),
					"architectures":  list("Architectures of the instance types it can launch."),
				}},
			},
			"skipped": list("Objects of `workloads` of kinds the decision does not read, `\"<namespace>/<kind>/<name>\"`."),
		},
	}
}

// nodeOverlaysAttribute is the decision's NodeOverlay input.
func nodeOverlaysAttribute() schema.ListAttribute {
	return schema.ListAttribute{ElementType: types.StringType, Optional: true, Description: "karpenter.sh/v1alpha1 NodeOverlays " +
		"(e.g. `karpenter_nodeoverlay.x.manifest`) as YAML or JSON, an element may hold several documents. With the provider's " +
		"`controller { feature_gates { node_overlay = true } }` they are applied to the NodePools' instance types by Karpenter's own " +
		"overlay controller (weight order, requirements, `price`/`priceAdjustment` per offering, extended resources added to " +
		"capacity), so the pods asking for those resources schedule and the instance types are ordered by the adjusted prices; " +
		"an overlay Karpenter sets aside (runtime validation, a conflict of equal weights) is a warning. With the gate off " +
		"(Karpenter's default) each is a warning that Karpenter ignores it."}
}

// knownElements returns a list's elements, "" for the unknown ones, and
// whether all were known.
func knownElements(l types.List) ([]string, bool) {
	if l.IsUnknown() {
		return nil, false
	}
	out := make([]string, 0, len(l.Elements()))
	known := true
	for _, e := range l.Elements() {
		s, ok := knownString(e)
		known = known && ok
		out = append(out, s)
	}
	return out, known
}

func (m schedulingModel) input() (scheduling.Input, bool) {
	var in scheduling.Input
	var ok [5]bool
	in.NodePools, ok[0] = knownElements(m.NodePools)
	in.NodeClasses, ok[1] = knownElements(m.NodeClasses)
	in.Workloads, ok[2] = knownElements(m.Workloads)
	in.AllowUnschedulable, ok[3] = knownElements(m.AllowUnschedulable)
	in.NodeOverlays, ok[4] = knownElements(m.NodeOverlays)
	return in, ok[0] && ok[1] && ok[2] && ok[3] && ok[4]
}

// ValidateConfig reports the documents that cannot be read (terraform
// validate), among the elements already known.
func (d *schedulingDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var m schedulingModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	in, _ := m.input()
	appendSchedulingFindings(&resp.Diagnostics, scheduling.Parse(in).Findings())
}

func (d *schedulingDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m schedulingModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	in, known := m.input()
	if !known {
		addDeferredError(errDeferred, &resp.Diagnostics)
		return
	}
	pd := providerDataOrDefault(d.data)
	if len(in.NodeOverlays) > 0 && pd.NodeOverlayGateUnknown {
		addDeferredError(errDeferred, &resp.Diagnostics)
		return
	}
	defer func() { resp.Diagnostics = dropAcknowledged(resp.Diagnostics, pd.Acknowledged) }()
	if pd.AWS == nil || !pd.AWS.Clients().Configured() {
		addRuleDiag(&resp.Diagnostics, path.Empty(), scheduling.RuleNeedsAWS,
			"The decision needs the region's instance types and offerings and the EC2NodeClasses' subnets, which only AWS knows, "+
				"and AWS is not configured (no region, profile or endpoint in the provider block, and none of AWS_REGION, "+
				"AWS_DEFAULT_REGION, AWS_PROFILE, AWS_ENDPOINT_URL, AWS_ENDPOINT_URL_EC2 set). Set the provider's `region`.")
		return
	}
	p := scheduling.Parse(in)
	facts, ok := schedulingFacts(ctx, pd, p, &resp.Diagnostics)
	if !ok {
		return
	}
	dec, err := p.Decide(ctx, facts)
	if err != nil {
		// The plan was cancelled (Terraform's Stop, an interrupt).
		addRuleDiag(&resp.Diagnostics, path.Empty(), ruleAWSRequestFailed, "the decision was interrupted: "+err.Error())
		return
	}
	appendSchedulingFindings(&resp.Diagnostics, dec.Findings)
	var diags diag.Diagnostics
	m.Pods, diags = workloadsValue(dec.Workloads)
	resp.Diagnostics.Append(diags...)
	m.NodeClaims, diags = nodeClaimsValue(dec.NodeClaims)
	resp.Diagnostics.Append(diags...)
	m.Skipped, diags = types.ListValueFrom(ctx, types.StringType, nonNil(dec.Skipped))
	resp.Diagnostics.Append(diags...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func appendSchedulingFindings(diags *diag.Diagnostics, fs []scheduling.Finding) {
	out := make(rules.Findings, 0, len(fs))
	for _, f := range fs {
		out = append(out, f.Finding)
	}
	appendFindings(diags, path.Empty(), out)
}

// catalogues caches the decision's instance types per provider cache:
// every karpenter_scheduling of a plan reads the same region.
var catalogues sync.Map // *awsclient.Cache -> *catalogueEntry

type catalogueEntry struct {
	once sync.Once
	c    *scheduling.Catalogue
	err  error
}

func catalogueFor(ctx context.Context, cache *awsclient.Cache) (*scheduling.Catalogue, error) {
	v, _ := catalogues.LoadOrStore(cache, &catalogueEntry{})
	e, _ := v.(*catalogueEntry) // catalogues holds only *catalogueEntry
	e.once.Do(func() { e.c, e.err = readCatalogue(ctx, cache) })
	return e.c, e.err
}

func readCatalogue(ctx context.Context, cache *awsclient.Cache) (*scheduling.Catalogue, error) {
	region, err := cache.Clients().Region(ctx)
	if err != nil {
		return nil, err
	}
	return scheduling.ReadCatalogue(ctx, region, cache)
}

// schedulingFacts reads the decision's AWS facts: the catalogue, and each
// class's status predicted as the resources predict it (images, subnets,
// security groups, instance profile, capacity reservations).
func schedulingFacts(ctx context.Context, pd *ProviderData, p *scheduling.Parsed, diags *diag.Diagnostics) (scheduling.Facts, bool) {
	cat, err := catalogueFor(ctx, pd.AWS)
	if errors.Is(err, awsclient.ErrUnknownConfig) {
		addDeferredError(errDeferred, diags)
		return scheduling.Facts{}, false
	}
	if err != nil {
		addRuleDiag(diags, path.Empty(), ruleAWSRequestFailed, awsErrorDetail(err))
		return scheduling.Facts{}, false
	}
	f := scheduling.Facts{Catalogue: cat, Classes: map[string]scheduling.ClassStatus{}, Settings: pd.Controller, Karpenter: pd.Karpenter,
		NodeOverlayGate: pd.NodeOverlayGate}
	type pending struct {
		name  string
		wait  func() classReadiness
		terms []ami.Term
	}
	var all []pending
	for _, c := range p.Classes {
		nc := nodeclass.FromManifest(c.Manifest)
		all = append(all, pending{name: nc.Name, wait: startClassReadiness(ctx, pd, nc), terms: nc.Terms})
	}
	deniedSeen := map[string]bool{}
	for _, c := range all {
		notReady, ok := amisNotReady(ctx, pd, c.terms, diags)
		r := c.wait()
		switch {
		case !ok:
			continue
		case r.failed != nil:
			r.report(pd, diags)
			continue
		case r.state != readinessRead:
			f.Classes[c.name] = scheduling.ClassStatus{Unknown: "the AWS endpoint does not answer the readiness reads " +
				"(ec2:DescribeSubnets), so the class's subnets, and the zones its NodePools launch in, are not known"}
			continue
		}
		for _, d := range r.denied {
			if !deniedSeen[d.action] {
				deniedSeen[d.action] = true
				appendFindings(diags, path.Empty(), rules.Findings{pd.readDenied(d.action, d.err)})
			}
		}
		f.Classes[c.name] = scheduling.StatusOf(r.result, notReady)
	}
	return f, !diags.HasError()
}

// amisNotReady resolves a class's images: "" when they resolve, else why
// not (Karpenter's AMIsReady False). ok is false when the resolution
// could not be made (its diagnostics say why).
func amisNotReady(ctx context.Context, pd *ProviderData, terms []ami.Term, diags *diag.Diagnostics) (string, bool) {
	res, err := resolveAMIs(ctx, pd, terms, types.StringNull(), path.Empty(), diags)
	if errors.Is(err, errDeferred) {
		addDeferredError(err, diags)
		return "", false
	}
	if err != nil {
		return "", false
	}
	return scheduling.ImagesNotReady(res.result), true
}

func workloadsValue(ws []scheduling.WorkloadResult) (types.Map, diag.Diagnostics) {
	var diags diag.Diagnostics
	elems := make(map[string]attr.Value, len(ws))
	for _, w := range ws {
		pools := make(map[string]attr.Value, len(w.NodePools))
		for p, n := range w.NodePools {
			pools[p] = types.Int64Value(int64(n))
		}
		pm, d := types.MapValue(types.Int64Type, pools)
		diags.Append(d...)
		o, d := types.ObjectValue(workloadAttrTypes, map[string]attr.Value{
			"pods": types.Int64Value(int64(w.Pods)), "node_pools": pm,
			"unschedulable": types.Int64Value(int64(w.Unschedulable)), "reason": types.StringValue(w.Reason),
		})
		diags.Append(d...)
		elems[w.Key] = o
	}
	m, d := types.MapValue(types.ObjectType{AttrTypes: workloadAttrTypes}, elems)
	diags.Append(d...)
	return m, diags
}

func nodeClaimsValue(ncs []scheduling.NodeClaim) (types.List, diag.Diagnostics) {
	var diags diag.Diagnostics
	strs := func(vs []string) types.List {
		elems := make([]attr.Value, len(vs))
		for i, v := range vs {
			elems[i] = types.StringValue(v)
		}
		l, d := types.ListValue(types.StringType, elems)
		diags.Append(d...)
		return l
	}
	elems := make([]attr.Value, 0, len(ncs))
	for _, nc := range ncs {
		o, d := types.ObjectValue(nodeClaimAttrTypes, map[string]attr.Value{
			"node_pool": types.StringValue(nc.NodePool), "instance_types": strs(nc.InstanceTypes), "pods": strs(nc.Pods),
			"zones": strs(nc.Zones), "capacity_types": strs(nc.CapacityTypes), "architectures": strs(nc.Architectures),
		})
		diags.Append(d...)
		elems = append(elems, o)
	}
	l, d := types.ListValue(types.ObjectType{AttrTypes: nodeClaimAttrTypes}, elems)
	diags.Append(d...)
	return l, diags
}
