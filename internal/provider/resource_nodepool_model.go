package provider

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/migration"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodepool"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

type nodePoolModel struct {
	Name                   types.String `tfsdk:"name"`
	Metadata               types.Object `tfsdk:"metadata"`
	NodeClass              types.Object `tfsdk:"node_class"`
	Labels                 types.Map    `tfsdk:"labels"`
	Annotations            types.Map    `tfsdk:"annotations"`
	Requirements           types.List   `tfsdk:"requirements"`
	Taints                 types.List   `tfsdk:"taints"`
	StartupTaints          types.List   `tfsdk:"startup_taints"`
	ExpireAfter            types.String `tfsdk:"expire_after"`
	TerminationGracePeriod types.String `tfsdk:"termination_grace_period"`
	Disruption             types.Object `tfsdk:"disruption"`
	Limits                 types.Map    `tfsdk:"limits"`
	Weight                 types.Int64  `tfsdk:"weight"`
	Replicas               types.Int64  `tfsdk:"replicas"`
	Manifest               types.String `tfsdk:"manifest"`
	InstanceFamilies       types.List   `tfsdk:"instance_families"`
	AMIAssignments         types.Map    `tfsdk:"ami_assignments"`
	AcknowledgedWarnings   types.List   `tfsdk:"acknowledged_warnings"`
	// Tombstones of older Karpenter APIs (tombstoneFindings).
	Kubelet                types.Object `tfsdk:"kubelet"`
	TTLSecondsUntilExpired types.Int64  `tfsdk:"ttl_seconds_until_expired"`
	TTLSecondsAfterEmpty   types.Int64  `tfsdk:"ttl_seconds_after_empty"`
	DriftHash              types.String `tfsdk:"drift_hash"`
	DriftHashVersion       types.String `tfsdk:"drift_hash_version"`
}

// poolFromModel converts the configuration into the domain model, recording
// unknown values and strings written as "" (which the manifest model cannot
// tell from unset). The findings are values it could not read (a malformed
// node_class.amis entry written by hand).
func poolFromModel(m nodePoolModel) (nodepool.Pool, rules.Findings) {
	r := newReader()
	empty := nodepool.PathSet{}
	emptyStr := func(v attr.Value, p rules.Path) string {
		s, ok := v.(types.String)
		if ok && !s.IsNull() && !s.IsUnknown() && s.ValueString() == "" {
			empty.Add(p)
		}
		return r.str(v, p)
	}
	np := manifest.NodePool{Metadata: manifest.ObjectMeta{Name: r.str(m.Name, rules.Root("name"))}}
	np.Metadata.Labels, np.Metadata.Annotations = objectMetadata(r, m.Metadata)
	spec := &np.Spec
	labels, annotations := r.strMap(m.Labels, rules.Root("labels")), r.strMap(m.Annotations, rules.Root("annotations"))
	if len(labels) > 0 || len(annotations) > 0 {
		spec.Template.Metadata = &manifest.TemplateMeta{Labels: labels, Annotations: annotations}
	}
	ts := &spec.Template.Spec
	p := rules.Root("requirements")
	for i, o := range r.objects(m.Requirements, p) {
		rp := p.Index(i)
		ts.Requirements = append(ts.Requirements, manifest.Requirement{
			Key: r.str(o["key"], rp.Attr("key")), Operator: r.str(o["operator"], rp.Attr("operator")),
			Values: r.strList(o["values"], rp.Attr("values")), MinValues: r.intPtr(o["min_values"], rp.Attr("min_values")),
		})
	}
	for _, list := range []struct {
		v   types.List
		p   rules.Path
		dst *[]manifest.Taint
	}{{m.Taints, rules.Root("taints"), &ts.Taints}, {m.StartupTaints, rules.Root("startup_taints"), &ts.StartupTaints}} {
		for i, o := range r.objects(list.v, list.p) {
			tp := list.p.Index(i)
			*list.dst = append(*list.dst, manifest.Taint{
				Key: r.str(o["key"], tp.Attr("key")), Value: emptyStr(o["value"], tp.Attr("value")), Effect: r.str(o["effect"], tp.Attr("effect")),
			})
		}
	}
	ts.ExpireAfter = emptyStr(m.ExpireAfter, rules.Root("expire_after"))
	ts.TerminationGracePeriod = emptyStr(m.TerminationGracePeriod, rules.Root("termination_grace_period"))
	p = rules.Root("disruption")
	if o := r.object(m.Disruption, p); o != nil {
		d := &manifest.Disruption{
			ConsolidationPolicy: emptyStr(o["consolidation_policy"], p.Attr("consolidation_policy")),
			ConsolidateAfter:    r.strPtr(o["consolidate_after"], p.Attr("consolidate_after")),
		}
		bp := p.Attr("budgets")
		for i, b := range r.objects(o["budgets"], bp) {
			ip := bp.Index(i)
			d.Budgets = append(d.Budgets, manifest.Budget{
				Nodes: r.str(b["nodes"], ip.Attr("nodes")), Schedule: r.strPtr(b["schedule"], ip.Attr("schedule")),
				Duration: r.strPtr(b["duration"], ip.Attr("duration")), Reasons: r.strList(b["reasons"], ip.Attr("reasons")),
			})
		}
		spec.Disruption = d
	}
	spec.Limits = r.strMap(m.Limits, rules.Root("limits"))
	spec.Weight = r.int32Ptr(m.Weight, rules.Root("weight"))
	spec.Replicas = r.int64Ptr(m.Replicas, rules.Root("replicas"))

	p = rules.Root("node_class")
	class := nodepool.ClassFacts{}
	if o := r.object(m.NodeClass, p); o != nil {
		ts.NodeClassRef = nodepool.NodeClassRef(r.strPtr(o["group"], p.Attr("group")), r.strPtr(o["kind"], p.Attr("kind")), r.str(o["name"], p.Attr("name")))
		if f := r.str(o["ami_family"], p.Attr("ami_family")); f != "" {
			class.Family = amifamily.Family(f)
		}
		amis, ok := o["amis"].(types.Map)
		class.Known = ok && !amis.IsNull()
		class.AMIs = amisFromMap(r, amis, p.Attr("amis"))
		class.RegisteredTaints = taintsFromList(r, o["registered_taints"], p.Attr("registered_taints"))
	}
	return nodepool.Pool{Manifest: np, Unknown: r.unknown, Empty: empty, Class: class}, r.findings
}

// tombstoneFindings fails every attribute of an older Karpenter API that
// the configuration sets (null is unset; unknown is set), with where v1
// moved it. A v1 NodePool has none of them.
func tombstoneFindings(m nodePoolModel) rules.Findings {
	var expire attr.Value = types.StringNull()
	if attrs, ok := knownAttrs(m.Disruption); ok {
		expire = attrs["expire_after"]
	}
	var fs rules.Findings
	for _, t := range []struct {
		at rules.Path
		v  attr.Value
	}{
		{migration.AttrDisruptionExpireAfter, expire},
		{migration.AttrKubelet, m.Kubelet},
		{migration.AttrTTLUntilExpired, m.TTLSecondsUntilExpired},
		{migration.AttrTTLAfterEmpty, m.TTLSecondsAfterEmpty},
	} {
		if t.v == nil || t.v.IsNull() {
			continue
		}
		if f, ok := migration.ByAttr(t.at); ok {
			fs = append(fs, tombstoneFinding(f, firstSet(t.at, t.v), hclValue(t.v)))
		}
	}
	return fs
}

// firstSet is the first attribute a block at p sets (where Terraform can
// point), or p itself.
func firstSet(p rules.Path, v attr.Value) rules.Path {
	if o, ok := v.(types.Object); ok {
		if attrs, ok := knownAttrs(o); ok {
			for _, k := range slices.Sorted(maps.Keys(attrs)) {
				if !attrs[k].IsNull() {
					return p.Attr(k)
				}
			}
		}
	}
	return p
}

// hclValue writes a known value as the configuration would ("" when
// unknown); a block by the attributes it sets.
func hclValue(v attr.Value) string {
	switch x := v.(type) {
	case types.String:
		if x.IsUnknown() {
			return ""
		}
		return strconv.Quote(x.ValueString())
	case types.Int64:
		if x.IsUnknown() {
			return ""
		}
		return strconv.FormatInt(x.ValueInt64(), 10)
	case types.Object:
		attrs, ok := knownAttrs(x)
		if !ok {
			return ""
		}
		var set []string
		for _, k := range slices.Sorted(maps.Keys(attrs)) {
			if !attrs[k].IsNull() {
				set = append(set, k)
			}
		}
		return "{ " + strings.Join(set, ", ") + " }"
	}
	return ""
}
