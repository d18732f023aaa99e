package provider

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling"
)

// The decision's schema, model, input and engine call, shared by
// resource "karpenter_scheduling" and data source "karpenter_scheduling":
// an attribute added here is in both.

type schedulingModel struct {
	NodePools          types.List    `tfsdk:"node_pools"`
	NodeClasses        types.List    `tfsdk:"node_classes"`
	Workloads          types.Dynamic `tfsdk:"workloads"`
	Scale              types.String  `tfsdk:"scale"`
	AllowUnschedulable types.List    `tfsdk:"allow_unschedulable"`
	NodeOverlays       types.List    `tfsdk:"node_overlays"`
	Pods               types.Map     `tfsdk:"pods"`
	NodeClaims         types.List    `tfsdk:"node_claims"`
	Skipped            types.List    `tfsdk:"skipped"`
	Explanation        types.Map     `tfsdk:"explanation"`
	Cost               types.Object  `tfsdk:"cost"`
	ClusterState       types.String  `tfsdk:"cluster_state"`
	ExistingNodes      types.Map     `tfsdk:"existing_nodes"`
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
		"hourly_price": types.Float64Type, "hourly_price_max": types.Float64Type,
	}
)

const schedulingDescription = "Karpenter's provisioning decision for an empty cluster, made before the cluster exists: which NodePool " +
	"takes each workload's pods and which NodeClaims Karpenter would create, or why it would not place a pod. It runs " +
	"Karpenter v1.14's own scheduler (taints and tolerations, node selectors and required and preferred node affinity, " +
	"well-known labels, topology spread, pod (anti-)affinity, volume topology, DaemonSet overhead, limits, minValues, " +
	"weights, in-flight NodeClaim packing, price order) on the NodePools, the subnets and capacity reservations of " +
	"their EC2NodeClasses, the region's instance types and offerings (ec2:DescribeInstanceTypes and " +
	"DescribeInstanceTypeOfferings, once per run), and the pods the workloads' controllers would create. A workload " +
	"with a pod Karpenter would not place fails the plan (`pod-unschedulable`) unless listed in `allow_unschedulable`. " +
	"Needs AWS (a region, profile or endpoint). "

// schedulingAttributes is the schema of the decision, in the resource's
// form (the data source converts it, dataSourceAttributes).
func schedulingAttributes() map[string]rschema.Attribute {
	manifests := func(what string) rschema.ListAttribute {
		return rschema.ListAttribute{ElementType: types.StringType, Required: true, Description: what +
			" as YAML or JSON; an element may hold several documents separated by `---` lines (`file()` of a GitOps file)."}
	}
	list := func(desc string) rschema.ListAttribute {
		return rschema.ListAttribute{ElementType: types.StringType, Computed: true, Description: desc}
	}
	attrs := map[string]rschema.Attribute{
		"node_pools":   manifests("karpenter.sh/v1 NodePools (e.g. `karpenter_nodepool.x.manifest`)"),
		"node_classes": manifests("karpenter.k8s.aws/v1 EC2NodeClasses (e.g. `karpenter_ec2nodeclass.x.manifest`)"),
		"workloads": rschema.DynamicAttribute{Required: true, Description: "Kubernetes objects as YAML or JSON, several " +
			"documents per string: a list of strings, or a map of file name to content (`{ for f in fileset(...) : f => file(f) }`), " +
			"with which findings name the file and its line. Pods, Deployments, ReplicaSets, StatefulSets (with their " +
			"volumeClaimTemplates), Jobs and CronJobs make pods; DaemonSets are overhead on every node they tolerate and " +
			"select; HorizontalPodAutoscalers scale their targets (`scale`); PersistentVolumeClaims, PersistentVolumes and " +
			"StorageClasses give volume zones; PriorityClasses and Namespaces are read; other kinds are listed in `skipped`."},
		"scale": rschema.StringAttribute{Optional: true, Description: "How many pods a Deployment, ReplicaSet or StatefulSet " +
			"that a HorizontalPodAutoscaler of `workloads` targets makes: `\"replicas\"` (the default) its manifest's " +
			"`replicas`, `\"max\"` the HPA's `maxReplicas`, the most the HPA scales it to."},
		"node_overlays": nodeOverlaysAttribute(),
		"allow_unschedulable": rschema.ListAttribute{ElementType: types.StringType, Optional: true,
			Description: "Workloads, as `\"<namespace>/<kind>/<name>\"`, whose unschedulable pods are reported as warnings instead of errors."},
		"pods": rschema.MapNestedAttribute{Computed: true,
			Description: "Each workload that makes pods, keyed `\"<namespace>/<kind>/<name>\"`.",
			NestedObject: rschema.NestedAttributeObject{Attributes: map[string]rschema.Attribute{
				"pods":          rschema.Int64Attribute{Computed: true, Description: "Pods its controller would create at once (replicas; min(parallelism, completions) for a Job; maxReplicas with `scale = \"max\"`)."},
				"node_pools":    rschema.MapAttribute{ElementType: types.Int64Type, Computed: true, Description: "How many of them each NodePool would take."},
				"unschedulable": rschema.Int64Attribute{Computed: true, Description: "How many Karpenter would not place (or never considers)."},
				"reason":        rschema.StringAttribute{Computed: true, Description: "Karpenter's message for the first pod it would not place; empty when all land."},
			}},
		},
		"node_claims": rschema.ListNestedAttribute{Computed: true,
			Description: "The NodeClaims Karpenter would create, sorted by NodePool, zones, capacity types, architectures and " +
				"instance types; replicas of one workload are numbered in that order.",
			NestedObject: rschema.NestedAttributeObject{Attributes: map[string]rschema.Attribute{
				"node_pool":      rschema.StringAttribute{Computed: true, Description: "The NodePool."},
				"instance_types": list("Its instance-type options, cheapest first (the prices `cost.source` names; equal prices by name), at most 600."),
				"pods":           list("Its pods, `\"<namespace>/<kind>/<name>/<index>\"`."),
				"zones": list("Zones it can launch in: of its instance types' offerings, those its requirements admit. Where " +
					"Karpenter breaks a tie between zones at random (a topology spread or affinity with several zones equally " +
					"good), all the tied zones are listed: which one it picks is chance, not configuration."),
				"capacity_types":   list("Capacity types (`on-demand`, `spot`, `reserved`) it can launch as."),
				"architectures":    list("Architectures of the instance types it can launch."),
				"hourly_price":     nodeClaimPriceAttribute(),
				"hourly_price_max": nodeClaimPriceMaxAttribute(),
			}},
		},
		"cost":    costAttribute(),
		"skipped": list("Objects of `workloads` of kinds the decision does not read, `\"<namespace>/<kind>/<name>\"`."),
		"explanation": rschema.MapAttribute{ElementType: types.StringType, Computed: true, Description: "Per NodePool, " +
			"its place in Karpenter's order and what it took, or why Karpenter leaves it out. " + scheduling.OrderRule + "."},
	}
	maps.Copy(attrs, clusterStateAttributes())
	return attrs
}

// nodeOverlaysAttribute is the decision's NodeOverlay input.
func nodeOverlaysAttribute() rschema.ListAttribute {
	return rschema.ListAttribute{ElementType: types.StringType, Optional: true, Description: "karpenter.sh/v1alpha1 NodeOverlays " +
		"(e.g. `karpenter_nodeoverlay.x.manifest`) as YAML or JSON, an element may hold several documents. With the provider's " +
		"`controller { feature_gates { node_overlay = true } }` they are applied to the NodePools' instance types by Karpenter's own " +
		"overlay controller (weight order, requirements, `price`/`priceAdjustment` per offering, extended resources added to " +
		"capacity), so the pods asking for those resources schedule and the instance types are ordered and priced by the " +
		"adjusted prices; an overlay Karpenter sets aside (runtime validation, a conflict of equal weights) is a warning. With " +
		"the gate off (Karpenter's default) each is a warning that Karpenter ignores it."}
}

// dataSourceAttributes converts the resource form of a schema to the data
// source's; the attribute kinds it does not know are reported, so a
// test catches one added without a conversion.
func dataSourceAttributes(in map[string]rschema.Attribute) (map[string]dschema.Attribute, []string) {
	out := make(map[string]dschema.Attribute, len(in))
	var unknown []string
	for name, a := range in {
		switch a := a.(type) {
		case rschema.StringAttribute:
			out[name] = dschema.StringAttribute{Required: a.Required, Optional: a.Optional, Computed: a.Computed, Sensitive: a.Sensitive, Description: a.Description}
		case rschema.Int64Attribute:
			out[name] = dschema.Int64Attribute{Required: a.Required, Optional: a.Optional, Computed: a.Computed, Sensitive: a.Sensitive, Description: a.Description}
		case rschema.Float64Attribute:
			out[name] = dschema.Float64Attribute{Required: a.Required, Optional: a.Optional, Computed: a.Computed, Sensitive: a.Sensitive, Description: a.Description}
		case rschema.BoolAttribute:
			out[name] = dschema.BoolAttribute{Required: a.Required, Optional: a.Optional, Computed: a.Computed, Sensitive: a.Sensitive, Description: a.Description}
		case rschema.DynamicAttribute:
			out[name] = dschema.DynamicAttribute{Required: a.Required, Optional: a.Optional, Computed: a.Computed, Sensitive: a.Sensitive, Description: a.Description}
		case rschema.ListAttribute:
			out[name] = dschema.ListAttribute{ElementType: a.ElementType, Required: a.Required, Optional: a.Optional, Computed: a.Computed, Sensitive: a.Sensitive, Description: a.Description}
		case rschema.MapAttribute:
			out[name] = dschema.MapAttribute{ElementType: a.ElementType, Required: a.Required, Optional: a.Optional, Computed: a.Computed, Sensitive: a.Sensitive, Description: a.Description}
		case rschema.ObjectAttribute:
			out[name] = dschema.ObjectAttribute{AttributeTypes: a.AttributeTypes, Required: a.Required, Optional: a.Optional, Computed: a.Computed, Sensitive: a.Sensitive, Description: a.Description}
		case rschema.ListNestedAttribute:
			nested, u := dataSourceAttributes(a.NestedObject.Attributes)
			unknown = append(unknown, u...)
			out[name] = dschema.ListNestedAttribute{NestedObject: dschema.NestedAttributeObject{Attributes: nested},
				Required: a.Required, Optional: a.Optional, Computed: a.Computed, Sensitive: a.Sensitive, Description: a.Description}
		case rschema.MapNestedAttribute:
			nested, u := dataSourceAttributes(a.NestedObject.Attributes)
			unknown = append(unknown, u...)
			out[name] = dschema.MapNestedAttribute{NestedObject: dschema.NestedAttributeObject{Attributes: nested},
				Required: a.Required, Optional: a.Optional, Computed: a.Computed, Sensitive: a.Sensitive, Description: a.Description}
		case rschema.SingleNestedAttribute:
			nested, u := dataSourceAttributes(a.Attributes)
			unknown = append(unknown, u...)
			out[name] = dschema.SingleNestedAttribute{Attributes: nested,
				Required: a.Required, Optional: a.Optional, Computed: a.Computed, Sensitive: a.Sensitive, Description: a.Description}
		default:
			unknown = append(unknown, fmt.Sprintf("%s (%T)", name, a))
		}
	}
	return out, unknown
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

// errWorkloadsType: workloads holds something else than strings.
var errWorkloadsType = errors.New("`workloads` is a list of strings (YAML or JSON documents) or a map of file name to " +
	"content (`{ for f in fileset(path.module, \"k8s/*.yaml\") : f => file(\"${path.module}/${f}\") }`)")

// dynamicElements reads workloads: the elements of a list, tuple or set,
// or the values of a map or object with their keys (sorted), "" for the
// unknown ones.
func dynamicElements(d types.Dynamic) (vals, names []string, known bool, err error) {
	if d.IsNull() {
		return nil, nil, true, nil
	}
	if d.IsUnknown() || d.IsUnderlyingValueUnknown() {
		return nil, nil, false, nil
	}
	var elems []attr.Value
	switch v := d.UnderlyingValue().(type) {
	case basetypes.ListValue:
		elems = v.Elements()
	case basetypes.TupleValue:
		elems = v.Elements()
	case basetypes.SetValue:
		elems = v.Elements()
	case basetypes.MapValue:
		names, elems = sortedEntries(v.Elements())
	case basetypes.ObjectValue:
		names, elems = sortedEntries(v.Attributes())
	default:
		return nil, nil, false, errWorkloadsType
	}
	known = true
	for _, e := range elems {
		if e.IsUnknown() {
			known = false
			vals = append(vals, "")
			continue
		}
		if dv, ok := e.(basetypes.DynamicValue); ok {
			e = dv.UnderlyingValue()
		}
		s, ok := e.(basetypes.StringValue)
		if !ok || s.IsNull() {
			return nil, nil, false, errWorkloadsType
		}
		vals = append(vals, s.ValueString())
	}
	return vals, names, known, nil
}

func sortedEntries(m map[string]attr.Value) ([]string, []attr.Value) {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	vals := make([]attr.Value, len(names))
	for i, k := range names {
		vals[i] = m[k]
	}
	return names, vals
}

// input is the decision's input; known is false when a part of it is not
// known yet.
func (m schedulingModel) input(diags *diag.Diagnostics) (scheduling.Input, bool) {
	var in scheduling.Input
	var ok [5]bool
	in.NodePools, ok[0] = knownElements(m.NodePools)
	in.NodeClasses, ok[1] = knownElements(m.NodeClasses)
	var err error
	in.Workloads, in.WorkloadNames, ok[2], err = dynamicElements(m.Workloads)
	if err != nil {
		addRuleDiag(diags, path.Root(scheduling.ListWorkloads), ruleSchedulingArguments, err.Error())
	}
	in.AllowUnschedulable, ok[3] = knownElements(m.AllowUnschedulable)
	in.Scale = m.Scale.ValueString()
	in.GateHow = providerGateHow
	in.NodeOverlays, ok[4] = knownElements(m.NodeOverlays)
	return in, ok[0] && ok[1] && ok[2] && ok[3] && ok[4] && !m.Scale.IsUnknown() && clusterStateInput(&in, m.ClusterState)
}

// validateScheduling reports the documents that cannot be read (terraform
// validate), among the elements already known, and a scale Karpenter
// has no meaning for.
func validateScheduling(ctx context.Context, config tfsdk.Config, diags *diag.Diagnostics) {
	var m schedulingModel
	diags.Append(config.Get(ctx, &m)...)
	if diags.HasError() {
		return
	}
	if s := m.Scale; !s.IsNull() && !s.IsUnknown() && s.ValueString() != scheduling.ScaleReplicas && s.ValueString() != scheduling.ScaleMax {
		addRuleDiag(diags, path.Root("scale"), ruleSchedulingArguments,
			fmt.Sprintf("scale = %q: write \"replicas\" (the default: each workload's manifest replicas) or \"max\" (a HorizontalPodAutoscaler's target at its maxReplicas).", s.ValueString()))
	}
	in, _ := m.input(diags)
	appendSchedulingFindings(diags, scheduling.Parse(in).Findings())
}

// decided is the outcome of one decision: the decision (nil when it could
// not be made) and its diagnostics; deferred is set when what it needs
// (the provider's AWS configuration) is known only at apply.
type decided struct {
	dec      *scheduling.Decision
	diags    diag.Diagnostics
	deferred bool
}

// decisions caches the decisions of a provider process by its AWS cache
// and the input: a resource and a data source of one plan that ask the
// same decide once.
var decisions sync.Map // decisionKey -> *decisionEntry

type decisionKey struct {
	aws   *awsclient.Cache
	input [sha256.Size]byte
}

type decisionEntry struct {
	once sync.Once
	out  decided
}

// decisionsMade counts the decisions made (not answered from the cache),
// for tests.
var decisionsMade atomic.Int64

func inputKey(in scheduling.Input) [sha256.Size]byte {
	j, _ := json.Marshal([]any{in.NodePools, in.NodeClasses, in.Workloads, in.WorkloadNames, in.AllowUnschedulable, in.Scale, in.ClusterState, in.NodeOverlays}) // strings only: cannot fail
	return sha256.Sum256(j)
}

// decide makes the decision of a known input, once per provider process.
func decide(ctx context.Context, pd *ProviderData, in scheduling.Input) decided {
	if pd.AWS == nil || !pd.AWS.Clients().Configured() {
		var diags diag.Diagnostics
		addRuleDiag(&diags, path.Empty(), scheduling.RuleNeedsAWS,
			"The decision needs the region's instance types and offerings and the EC2NodeClasses' subnets, which only AWS knows, "+
				"and AWS is not configured (no region, profile or endpoint in the provider block, and none of AWS_REGION, "+
				"AWS_DEFAULT_REGION, AWS_PROFILE, AWS_ENDPOINT_URL, AWS_ENDPOINT_URL_EC2 set). Set the provider's `region`.")
		return decided{diags: diags}
	}
	v, _ := decisions.LoadOrStore(decisionKey{pd.AWS, inputKey(in)}, &decisionEntry{})
	e, _ := v.(*decisionEntry) // decisions holds only *decisionEntry
	e.once.Do(func() { e.out = decideOnce(ctx, pd, in) })
	return decided{dec: e.out.dec, diags: slices.Clone(e.out.diags), deferred: e.out.deferred}
}

func decideOnce(ctx context.Context, pd *ProviderData, in scheduling.Input) (out decided) {
	decisionsMade.Add(1)
	if len(in.NodeOverlays) > 0 && pd.NodeOverlayGateUnknown {
		// Whether the overlays apply is known at apply.
		out.deferred = true
		return out
	}
	p := scheduling.Parse(in)
	var facts scheduling.Facts
	var ok bool
	facts, ok, out.deferred = schedulingFacts(ctx, pd, p, &out.diags)
	if !ok {
		return out
	}
	dec, err := p.Decide(ctx, facts)
	if err != nil {
		// The plan was cancelled (Terraform's Stop, an interrupt).
		addRuleDiag(&out.diags, path.Empty(), ruleAWSRequestFailed, "the decision was interrupted: "+err.Error())
		return out
	}
	appendSchedulingFindings(&out.diags, dec.Findings)
	out.dec = dec
	return out
}

// setDecision writes the decision's outputs into m.
func (m *schedulingModel) setDecision(ctx context.Context, dec *scheduling.Decision) diag.Diagnostics {
	var diags, d diag.Diagnostics
	m.Pods, d = workloadsValue(dec.Workloads)
	diags.Append(d...)
	m.NodeClaims, d = nodeClaimsValue(dec.NodeClaims)
	diags.Append(d...)
	m.Skipped, d = types.ListValueFrom(ctx, types.StringType, nonNil(dec.Skipped))
	diags.Append(d...)
	m.Explanation, d = types.MapValueFrom(ctx, types.StringType, dec.Explain())
	diags.Append(d...)
	m.Cost, d = costValue(dec.Cost)
	diags.Append(d...)
	m.ExistingNodes, d = existingNodesValue(dec.ExistingNodes)
	diags.Append(d...)
	return diags
}

// setUnknown marks the outputs unknown: decided at apply.
func (m *schedulingModel) setUnknown() {
	m.Pods = types.MapUnknown(types.ObjectType{AttrTypes: workloadAttrTypes})
	m.NodeClaims = types.ListUnknown(types.ObjectType{AttrTypes: nodeClaimAttrTypes})
	m.Skipped = types.ListUnknown(types.StringType)
	m.Explanation = types.MapUnknown(types.StringType)
	m.Cost = types.ObjectUnknown(costAttrTypes)
	m.ExistingNodes = types.MapUnknown(types.ListType{ElemType: types.StringType})
}

// appendSchedulingFindings adds the findings; a warning's summary names
// its object (a workload, a NodePool), so Terraform does not fold the
// warnings of several into "(and N more similar warnings elsewhere)".
func appendSchedulingFindings(diags *diag.Diagnostics, fs []scheduling.Finding) {
	for _, f := range fs {
		var added diag.Diagnostics
		appendFindings(&added, path.Empty(), rules.Findings{f.Finding})
		diags.Append(aboutObject(added, objectOfKey(f.Object))...)
	}
}

// objectOfKey is an object's key ("<namespace>/<kind>/<name>") as
// summaries name objects: `Deployment "default/web"`, `NodePool "general"`.
func objectOfKey(key string) string {
	parts := strings.SplitN(key, "/", 3)
	if len(parts) != 3 || parts[1] == "" {
		return ""
	}
	name := parts[2]
	if parts[0] != "" {
		name = parts[0] + "/" + name
	}
	return rules.Object(parts[1], name)
}

// The rules the checks of this file emit.
var (
	ruleSchedulingArguments = rules.Register(rules.Rule{
		ID: "scheduling-arguments-invalid", Severity: rules.Error, Category: categoryProvider,
		Title: "karpenter_scheduling's workloads or scale has a value it cannot read",
		Behaviour: "`workloads` is a list of strings or a map of file name to content (each string YAML or JSON documents); " +
			"`scale` is `\"replicas\"` (each workload's manifest replicas) or `\"max\"` (a HorizontalPodAutoscaler's target at " +
			"its maxReplicas). Anything else would leave the decision to a guess.",
		Source: "the provider's karpenter_scheduling arguments",
		Bad:    "data \"karpenter_scheduling\" \"prod\" {\n  node_pools   = [file(\"pools.yaml\")]\n  node_classes = [file(\"classes.yaml\")]\n  workloads    = { \"web.yaml\" = file(\"web.yaml\") }\n  scale        = \"maximum\"\n}\n",
		Good:   "data \"karpenter_scheduling\" \"prod\" {\n  node_pools   = [file(\"pools.yaml\")]\n  node_classes = [file(\"classes.yaml\")]\n  workloads    = { \"web.yaml\" = file(\"web.yaml\") }\n  scale        = \"max\"\n}\n",
	})
)
