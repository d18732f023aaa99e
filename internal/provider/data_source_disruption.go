package provider

import (
	"context"
	"encoding/base64"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/cluster"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/disruption"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/drift"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodeclass"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot"
)

var (
	_ datasource.DataSourceWithConfigure      = (*disruptionDataSource)(nil)
	_ datasource.DataSourceWithValidateConfig = (*disruptionDataSource)(nil)
)

// NewDisruptionDataSource is the factory of karpenter_disruption.
func NewDisruptionDataSource() datasource.DataSource { return &disruptionDataSource{} }

type disruptionDataSource struct{ configuredDataSource }

var ruleDisruptionArguments = rules.Register(rules.Rule{
	ID: "disruption-arguments-invalid", Severity: rules.Error, Category: categoryProvider,
	Title: "karpenter_disruption's node_pools, at or ca_bundle has a value it cannot read",
	Behaviour: "`at` is an RFC 3339 time (budgets' schedules are evaluated at it, in UTC), `ca_bundle` the base64 CA bundle " +
		"`aws eks describe-cluster` prints, and `node_pools` must hold NodePools the API server would store: a pool that " +
		"cannot be read has no drift or pacing to predict, and a guess would be read as the answer.",
	Source: "the provider's karpenter_disruption arguments; kubernetes-sigs/karpenter pkg/apis/v1/nodepool.go Budget.IsActive",
	Bad:    "data \"karpenter_disruption\" \"prod\" {\n  node_pools    = [file(\"pools.yaml\")]\n  cluster_state = file(\"cluster.yaml\")\n  at            = \"Monday 10:00\"\n}\n",
	Good:   "data \"karpenter_disruption\" \"prod\" {\n  node_pools    = [file(\"pools.yaml\")]\n  cluster_state = file(\"cluster.yaml\")\n  at            = \"2026-11-30T10:00:00Z\"\n}\n",
})

type disruptionModel struct {
	NodePools     types.List   `tfsdk:"node_pools"`
	NodeClasses   types.List   `tfsdk:"node_classes"`
	ClusterState  types.String `tfsdk:"cluster_state"`
	At            types.String `tfsdk:"at"`
	CABundle      types.String `tfsdk:"ca_bundle"`
	Drifted       types.List   `tfsdk:"drifted"`
	Pacing        types.Map    `tfsdk:"pacing"`
	Totals        types.Object `tfsdk:"totals"`
	Findings      types.List   `tfsdk:"findings"`
	Consolidation types.List   `tfsdk:"consolidation"`
}

var (
	driftedAttrTypes = map[string]attr.Type{
		"node_claim": types.StringType, "node": types.StringType, "node_pool": types.StringType,
		"reason": types.StringType, "detail": types.StringType, "blocked_by": types.StringType,
	}
	pacingAttrTypes = map[string]attr.Type{
		"nodes": types.Int64Type, "disrupting": types.Int64Type, "drifted": types.Int64Type, "candidates": types.Int64Type,
		"allowed": types.Int64Type, "rounds": types.Int64Type, "budgets": stringList,
	}
	totalsAttrTypes = map[string]attr.Type{
		"nodes": types.Int64Type, "drifted": types.Int64Type, "candidates": types.Int64Type, "blocked": types.Int64Type,
	}
)

func (d *disruptionDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_disruption"
}

func (d *disruptionDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	manifests := func(what string, required bool) schema.ListAttribute {
		return schema.ListAttribute{ElementType: types.StringType, Required: required, Optional: !required, Description: what +
			" as YAML or JSON; an element may hold several documents separated by `---` lines (`file()` of a GitOps file)."}
	}
	count := func(desc string) schema.Int64Attribute {
		return schema.Int64Attribute{Computed: true, Description: desc}
	}
	resp.Schema = schema.Schema{
		Description: "What a NodePool configuration does to a running cluster, offline: which NodeClaims of `cluster_state` " +
			"Karpenter v1.14 would find drifted and why, which of them it would not disrupt now, and how the pools' disruption " +
			"budgets pace the rest at `at`. Drift is decided as Karpenter's NodeClaim disruption controller decides it: " +
			"`NodePoolDrifted` (the NodeClaim's `karpenter.sh/nodepool-hash` against the configured spec.template's hash, same " +
			"hash version), then `RequirementsDrifted` (its labels against the configured requirements), then `NodeClassDrift` " +
			"(its `karpenter.k8s.aws/ec2nodeclass-hash` against the configured class's, when the class is in `node_classes` and " +
			"the CA bundle is known), then `AMIDrift` (its `status.imageID` is not the image the class resolves to for its " +
			"instance type now: only when the provider is configured for AWS and the class is in `node_classes`; the images " +
			"are resolved as `karpenter_ec2nodeclass` resolves them, otherwise `findings` says they were not compared). " +
			"Subnets, security groups and capacity reservations are not compared. A drifted node is blocked while it or one of its pods has `karpenter.sh/do-not-disrupt`, or a " +
			"PodDisruptionBudget allows one of its pods no disruption (waived by a `terminationGracePeriod`). Never connects to " +
			"the cluster; reads AWS only for the images and for `consolidation` (what Karpenter's consolidation does next, " +
			"decided when the provider is configured for AWS). Terraform reads a data source at plan only when its arguments are known; with pools managed " +
			"in the same run it is read during apply.",
		Attributes: map[string]schema.Attribute{
			"node_pools":   manifests("karpenter.sh/v1 NodePools (e.g. `karpenter_nodepool.x.manifest`)", true),
			"node_classes": manifests("karpenter.k8s.aws/v1 EC2NodeClasses (e.g. `karpenter_ec2nodeclass.x.manifest`), for the class hash", false),
			"cluster_state": schema.StringAttribute{Required: true,
				Description: "The running cluster, as the List `" + snapshot.Command + "` prints, or `karpenter-lint snapshot` " +
					"writes (`file(\"cluster.yaml\")`). Items that cannot be read are `cluster-state-incomplete` warnings and in `findings`."},
			"at": schema.StringAttribute{Optional: true, Computed: true,
				Description: "The instant budgets are evaluated at, RFC 3339 (their schedules are UTC cron expressions). Default: " +
					"the time `karpenter-lint snapshot` wrote on the snapshot's first line, else the time of the read. The second " +
					"default moves: anything that reads this data source's outputs may change at every plan; set `at` to compare " +
					"plans."},
			"ca_bundle": schema.StringAttribute{Optional: true,
				Description: "The cluster's CA bundle (base64, as `aws eks describe-cluster` prints it), which Karpenter hashes into " +
					"the EC2NodeClass hash from 1.12. Default: the provider's `cluster.certificate_authority` when set. Without " +
					"either the class hash is not compared (before 1.12 it needs none)."},
			"drifted": schema.ListNestedAttribute{Computed: true,
				Description: "The drifted NodeClaims, by NodePool and name.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"node_claim": schema.StringAttribute{Computed: true, Description: "The NodeClaim."},
					"node":       schema.StringAttribute{Computed: true, Description: "Its node."},
					"node_pool":  schema.StringAttribute{Computed: true, Description: "The NodePool that owns it."},
					"reason": schema.StringAttribute{Computed: true, Description: "Karpenter's drift reason: `NodePoolDrifted`, " +
						"`RequirementsDrifted`, `NodeClassDrift` or `AMIDrift`."},
					"detail": schema.StringAttribute{Computed: true, Description: "What differs."},
					"blocked_by": schema.StringAttribute{Computed: true, Description: "Why Karpenter would not disrupt it now " +
						"(do-not-disrupt, a PodDisruptionBudget); empty when it would."},
				}},
			},
			"pacing": schema.MapNestedAttribute{Computed: true,
				Description: "Each configured NodePool's drift pacing at `at`, by name.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"nodes":      count("The nodes Karpenter counts for its budgets (initialized, not terminating)."),
					"disrupting": count("Those already using the budget (NotReady or being deleted)."),
					"drifted":    count("Its drifted NodeClaims."),
					"candidates": count("The drifted NodeClaims Karpenter may disrupt (not blocked)."),
					"allowed":    count("How many Karpenter replaces at once at `at`: the drift budget less `disrupting`."),
					"rounds": count("ceil(candidates / allowed): how many waves the replacement takes if the budget stays as " +
						"at `at`; 0 with no candidate, -1 when the budget allows none at `at`."),
					"budgets": schema.ListAttribute{ElementType: types.StringType, Computed: true,
						Description: "The budgets that limit drift at `at` (`nodes \"2\"`, `nodes \"0\" at \"0 9 * * mon-fri\" for 8h0m0s`)."},
				}},
			},
			"totals": schema.SingleNestedAttribute{Computed: true, Description: "All configured pools together.",
				Attributes: map[string]schema.Attribute{
					"nodes":      count("Nodes counted."),
					"drifted":    count("Drifted NodeClaims."),
					"candidates": count("Drifted NodeClaims Karpenter may disrupt."),
					"blocked":    count("Drifted NodeClaims it would not disrupt now."),
				}},
			"findings": schema.ListAttribute{ElementType: types.StringType, Computed: true,
				Description: "What could not be read or decided: the snapshot's items left out or not holding together, a hash " +
					"that cannot be computed, images that were not compared."},
			"consolidation": consolidationAttribute(),
		},
	}
}

// ValidateConfig checks the literal arguments (terraform validate).
func (d *disruptionDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var m disruptionModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	_, _ = m.at(&resp.Diagnostics)
	if s, ok := knownString(m.CABundle); ok {
		if _, err := base64.StdEncoding.DecodeString(s); err != nil {
			addRuleDiag(&resp.Diagnostics, path.Root("ca_bundle"), ruleDisruptionArguments,
				"ca_bundle is not base64: pass the bundle exactly as `aws eks describe-cluster` prints it (cluster.certificateAuthority.data), which Karpenter hashes as it is.")
		}
	}
}

// at is the at argument; zero when unset or unknown.
func (m disruptionModel) at(diags *diag.Diagnostics) (time.Time, bool) {
	s, ok := knownString(m.At)
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		addRuleDiag(diags, path.Root("at"), ruleDisruptionArguments,
			fmt.Sprintf("at = %q is not an RFC 3339 time: write e.g. \"2026-11-30T10:00:00Z\" (budget schedules are UTC).", s))
		return time.Time{}, false
	}
	return t.UTC(), true
}

func (d *disruptionDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m disruptionModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	pd := providerDataOrDefault(d.data)
	pools, ok1 := knownStrings(m.NodePools)
	classes, ok2 := knownStrings(m.NodeClasses)
	if !ok1 || !ok2 || m.ClusterState.IsUnknown() || m.At.IsUnknown() || m.CABundle.IsUnknown() || pd.KarpenterUnknown {
		// Decided when the inputs are known (apply).
		m.setUnknown()
		resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
		return
	}
	in := disruption.Input{Karpenter: append(pools, classes...), Cluster: snapshot.Parse(m.ClusterState.ValueString()), Version: pd.Karpenter}
	at, set := m.at(&resp.Diagnostics)
	switch {
	case resp.Diagnostics.HasError():
		return
	case set:
		in.At = at
	case !in.Cluster.Taken.IsZero():
		in.At = in.Cluster.Taken
	default:
		in.At = time.Now().UTC().Truncate(time.Second)
	}
	in.CABundle = disruptionCABundle(m.CABundle, pd)
	aws := pd.AWS.Clients().Configured()
	if aws && len(classes) > 0 {
		in.Images = disruptionImages(ctx, pd, classes, &resp.Diagnostics)
		if resp.Diagnostics.HasError() {
			return
		}
	}
	plan := disruption.Decide(in)
	if aws && len(plan.Unread) == 0 {
		disruptionConsolidate(ctx, pd, in, plan, &resp.Diagnostics)
	} else if !aws {
		plan.Notes = append(plan.Notes, "consolidation is not decided: it needs the region's instance types and prices (configure the provider for AWS)")
	}
	for _, u := range plan.Unread {
		addRuleDiag(&resp.Diagnostics, path.Root("node_pools"), ruleDisruptionArguments, u+".")
	}
	for _, f := range in.Cluster.Findings {
		what := "left out of the cluster state"
		if !f.Dropped {
			what = "read as it is"
		}
		appendFindings(&resp.Diagnostics, path.Root("cluster_state"),
			rules.Findings{rules.New(scheduling.RuleClusterState, rules.Path{}, "cluster_state: %s (%s).", f, what)})
	}
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(m.setPlan(plan)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// disruptionCABundle is the CA bundle the class hash is compared with:
// the argument, else the provider's cluster.certificate_authority; none is
// needed before Karpenter 1.12. Nil when not known: the class hash is then
// not compared.
func disruptionCABundle(arg types.String, pd *ProviderData) *string {
	if !drift.HashUsesCABundle(pd.Karpenter) {
		empty := ""
		return &empty
	}
	if s, ok := knownString(arg); ok {
		return &s
	}
	if s := pd.Cluster.CertificateAuthority; s != "" && !pd.Cluster.Unknown[cluster.FieldCertificateAuthority] {
		return &s
	}
	return nil
}

func (m *disruptionModel) setUnknown() {
	if m.At.IsNull() {
		m.At = types.StringUnknown()
	}
	m.Drifted = types.ListUnknown(types.ObjectType{AttrTypes: driftedAttrTypes})
	m.Pacing = types.MapUnknown(types.ObjectType{AttrTypes: pacingAttrTypes})
	m.Totals = types.ObjectUnknown(totalsAttrTypes)
	m.Findings = types.ListUnknown(types.StringType)
	m.Consolidation = types.ListUnknown(types.ObjectType{AttrTypes: consolidationAttrTypes})
}

func (m *disruptionModel) setPlan(p *disruption.Plan) diag.Diagnostics {
	var diags diag.Diagnostics
	add := func(d diag.Diagnostics) { diags.Append(d...) }
	m.At = types.StringValue(p.At.UTC().Format(time.RFC3339))
	var drifted []attr.Value
	pacing := map[string]attr.Value{}
	var nodes, total, candidates int
	for _, pp := range p.Pools {
		for _, d := range pp.Drifted {
			o, dd := types.ObjectValue(driftedAttrTypes, map[string]attr.Value{
				"node_claim": types.StringValue(d.NodeClaim), "node": types.StringValue(d.Node), "node_pool": types.StringValue(d.Pool),
				"reason": types.StringValue(d.Reason), "detail": types.StringValue(d.Detail), "blocked_by": types.StringValue(d.Blocked),
			})
			add(dd)
			drifted = append(drifted, o)
		}
		budgets, dd := types.ListValueFrom(context.Background(), types.StringType, nonNil(pp.Budgets))
		add(dd)
		o, dd := types.ObjectValue(pacingAttrTypes, map[string]attr.Value{
			"nodes": count64(pp.Nodes), "disrupting": count64(pp.Disrupting), "drifted": count64(len(pp.Drifted)),
			"candidates": count64(pp.Candidates), "allowed": count64(pp.Allowed), "rounds": count64(pp.Rounds), "budgets": budgets,
		})
		add(dd)
		pacing[pp.Name] = o
		nodes, total, candidates = nodes+pp.Nodes, total+len(pp.Drifted), candidates+pp.Candidates
	}
	var dd diag.Diagnostics
	m.Drifted, dd = types.ListValue(types.ObjectType{AttrTypes: driftedAttrTypes}, append([]attr.Value{}, drifted...))
	add(dd)
	m.Pacing, dd = types.MapValue(types.ObjectType{AttrTypes: pacingAttrTypes}, pacing)
	add(dd)
	m.Totals, dd = types.ObjectValue(totalsAttrTypes, map[string]attr.Value{
		"nodes": count64(nodes), "drifted": count64(total), "candidates": count64(candidates), "blocked": count64(total - candidates),
	})
	add(dd)
	m.Findings, dd = types.ListValueFrom(context.Background(), types.StringType, nonNil(append(p.Findings, p.Notes...)))
	add(dd)
	m.Consolidation, dd = consolidationValue(p.Consolidation)
	add(dd)
	return diags
}

func count64(n int) types.Int64 { return types.Int64Value(int64(n)) }

// disruptionImages resolves the images of the classes of node_classes as
// the karpenter_ec2nodeclass resource does (the provider's AWS
// configuration, one request per distinct query), by class name, in
// Karpenter's status order. A class whose resolution needs what is known
// only at apply is left out: its images are not compared.
func disruptionImages(ctx context.Context, pd *ProviderData, texts []string, diags *diag.Diagnostics) map[string][]disruption.Image {
	out := map[string][]disruption.Image{}
	for _, m := range disruption.NodeClasses(texts) {
		res, err := resolveAMIs(ctx, pd, nodeclass.FromManifest(m).Terms, types.StringNull(), path.Root("node_classes"), diags)
		if err != nil {
			continue // deferred, or reported
		}
		out[m.Metadata.Name] = disruption.ImagesOf(res.result.AMIs)
	}
	return out
}

// disruptionConsolidate decides consolidation on the snapshot as
// karpenter-lint disruption does: the pools' instance types built as the
// scheduling decision builds them (the region's catalogue, prices, the
// classes' predicted status), then Karpenter's own methods, command after
// command. What could not be read is in findings; a failed AWS request is
// an error.
func disruptionConsolidate(ctx context.Context, pd *ProviderData, in disruption.Input, plan *disruption.Plan, diags *diag.Diagnostics) {
	p := scheduling.Parse(scheduling.Input{Karpenter: in.Karpenter})
	facts, ok, deferred := schedulingFacts(ctx, pd, p, diags)
	if !ok || deferred {
		plan.Notes = append(plan.Notes, "consolidation is not decided: the region's instance types or the classes' status could not be read now")
		return
	}
	its, findings := p.InstanceTypes(ctx, facts)
	cons, errs := disruption.Consolidate(ctx, in, disruption.ConsolidationInput{InstanceTypes: its, Bound: disruption.DefaultBound})
	plan.Consolidation = cons
	for _, f := range findings {
		plan.Findings = append(plan.Findings, "consolidation: "+f.Detail)
	}
	for _, e := range errs {
		plan.Findings = append(plan.Findings, "consolidation: "+e)
	}
}
