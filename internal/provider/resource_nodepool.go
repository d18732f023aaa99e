package provider

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/checks"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/cluster"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/drift"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodepool"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

var (
	_ resource.ResourceWithConfigure      = (*nodePoolResource)(nil)
	_ resource.ResourceWithValidateConfig = (*nodePoolResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*nodePoolResource)(nil)
	_ resource.ResourceWithImportState    = (*nodePoolResource)(nil)
)

// NewNodePoolResource is the factory of karpenter_nodepool.
func NewNodePoolResource() resource.Resource { return &nodePoolResource{} }

type nodePoolResource struct{ data *ProviderData }

func (r *nodePoolResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_nodepool"
}

func (r *nodePoolResource) Configure(_ context.Context, req resource.ConfigureRequest, _ *resource.ConfigureResponse) {
	if pd, ok := req.ProviderData.(*ProviderData); ok {
		r.data = pd
	}
}

func (r *nodePoolResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m nodePoolModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	appendFindings(&resp.Diagnostics, path.Empty(), tombstoneFindings(m))
	p, unread := poolFromModel(m)
	appendFindings(&resp.Diagnostics, path.Empty(), unread)
	if r.data == nil {
		// Configured (the plan walk, where Terraform validates each
		// resource again with the variables known and then plans it),
		// ModifyPlan reports these with the checks that need AWS; an
		// error here would stop Terraform before them.
		fs := acknowledgeNearMisses(nodepool.Validate(p, versions.DefaultKarpenter), acknowledgedSet(m.AcknowledgedWarnings))
		appendFindings(&resp.Diagnostics, path.Empty(), nodepool.Locate(p, errorsOnly(fs)))
	}
	resp.Diagnostics.Append(validateAcknowledged(path.Root("acknowledged_warnings"), m.AcknowledgedWarnings, true)...)
}

func (r *nodePoolResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var m nodePoolModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	pd := providerDataOrDefault(r.data)
	defer func() {
		// A failure of the whole plan is reported once, not as this
		// object's (oncePerPlan keeps it free of the object's name).
		resp.Diagnostics = pd.oncePerPlan(aboutObject(dropAcknowledged(resp.Diagnostics, pd.Acknowledged, acknowledgedSet(m.AcknowledgedWarnings)),
			objectName(manifest.NodePoolKind, m.Name)), false)
	}()
	p, unread := poolFromModel(m)
	appendFindings(&resp.Diagnostics, path.Empty(), unread)
	facts := checks.PoolFacts{Karpenter: pd.Karpenter, Converted: unread,
		Catalogue: func(ctx context.Context) (*instancetype.Catalogue, error) { return instancetype.Load(ctx, pd.AWS) }}
	if attrs, ok := knownAttrs(m.NodeClass); ok {
		// The zones of the class's subnets; null for a class managed
		// elsewhere or whose checks were skipped, unknown until read.
		facts.Subnets, facts.SubnetsKnown = classZones(attrs["zones"])
	}
	if pd.AWS != nil && pd.AWS.Clients().Configured() {
		facts.Offerings = pd.AWS
	}
	// An error the cross-checks do not build on (a limit, a duration, a
	// taint) does not hide theirs: the plan fails with all of them.
	checked := checks.NodePool(ctx, p, facts)
	appendFindings(&resp.Diagnostics, path.Empty(), pd.strictReadiness(acknowledgeNearMisses(checked.Findings, acknowledgedSet(m.AcknowledgedWarnings))))
	if checked.Failed != nil {
		addAWSFailure(&resp.Diagnostics, tfPath(path.Empty(), checked.FailedAt), checked.Failed, "")
		return
	}
	if !checked.CrossChecked {
		return
	}
	var plan nodePoolModel
	if d := req.Plan.Get(ctx, &plan); d.HasError() {
		resp.Diagnostics.Append(d...)
		return
	}
	res := checked.Result
	if resp.Diagnostics.HasError() {
		return
	}
	var d diag.Diagnostics
	plan.InstanceFamilies = types.ListUnknown(types.StringType)
	if res.FamiliesKnown {
		plan.InstanceFamilies, d = types.ListValueFrom(ctx, types.StringType, nonNil(res.InstanceFamilies))
		resp.Diagnostics.Append(d...)
	}
	plan.AMIAssignments = types.MapUnknown(types.StringType)
	if res.AssignmentsKnown {
		plan.AMIAssignments, d = assignmentsMapValue(p.Class.AMIs, res.Assignments)
		resp.Diagnostics.Append(d...)
	}
	r.checkUserData(ctx, pd, p, res, &resp.Diagnostics)
	plan.Manifest = types.StringUnknown()
	plan.DriftHash = types.StringUnknown()
	plan.DriftHashVersion = types.StringValue(drift.NodePoolHashVersion(pd.Karpenter))
	if !manifestInputsUnknown(p) {
		obj := nodepool.Object(p)
		y, err := manifest.YAML(obj)
		if err != nil {
			addRuleDiag(&resp.Diagnostics, path.Empty(), ruleManifestRender, err.Error())
			return
		}
		appendFindings(&resp.Diagnostics, path.Empty(), validateAgainstCRD(ctx, obj))
		plan.Manifest = types.StringValue(y)
		plan.DriftHash = poolDriftHash(obj.Spec, pd)
		var preview drift.Preview
		var ok bool
		if !req.State.Raw.IsNull() {
			var prior nodePoolModel
			resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
			preview, ok = poolDriftPreview(prior, plan, obj.Spec, pd)
		}
		if preview, ok = withPoolCluster(preview, ok, pd, y, obj.Spec, obj.Metadata.Name); ok {
			warnDrift(&resp.Diagnostics, preview)
		}
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// manifestInputsUnknown reports whether anything the manifest renders is
// unknown; the class's facts (amis, userData, ...) are not rendered.
func manifestInputsUnknown(p nodepool.Pool) bool {
	for k := range p.Unknown {
		if k != "node_class" && !hasPrefixPath(k, "node_class") {
			return true
		}
		if k == "node_class" || k == "node_class.name" || k == "node_class.group" || k == "node_class.kind" {
			return true
		}
	}
	return false
}

func hasPrefixPath(k, prefix string) bool {
	return len(k) > len(prefix) && k[:len(prefix)] == prefix && (k[len(prefix)] == '.' || k[len(prefix)] == '[')
}

// checkUserData renders the userData Karpenter would generate for a node
// of the pool, for what it reports: cluster facts Karpenter would put into
// it that no node could join with (nodepool.PreviewFor's findings). The
// text itself is not kept: data "karpenter_node" shows a node's userData
// for an instance type the user names. Nothing is checked while the class
// or the cluster facts are unknown, or when they are not configured.
func (r *nodePoolResource) checkUserData(ctx context.Context, pd *ProviderData, p nodepool.Pool, res nodepool.Result, diags *diag.Diagnostics) {
	if p.Unknown.Within(rules.Root("node_class")) || !p.Class.Known {
		return
	}
	var facts cluster.Facts
	if need := nodepool.PreviewNeeds(p.Class.Family); len(need) > 0 {
		var err error
		facts, err = pd.ClusterFacts(ctx, need, "the userData checks of the pool's nodes")
		var missing *cluster.MissingError
		switch {
		case errors.Is(err, cluster.ErrUnknown), errors.As(err, &missing):
			return
		case err != nil:
			addRuleDiag(diags, path.Root("node_class"), ruleUserDataUnchecked, awsErrorDetail(err))
			return
		}
	}
	appendFindings(diags, path.Empty(), nodepool.Locate(p, nodepool.PreviewFor(p, res, facts, pd.Karpenter).Findings))
}

func (r *nodePoolResource) Create(_ context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	resp.State.Raw = req.Plan.Raw
}

func (r *nodePoolResource) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

func (r *nodePoolResource) Update(_ context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.State.Raw = req.Plan.Raw
}

func (r *nodePoolResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {
}

// ImportState refuses with the reason: the resource renders a manifest and
// creates nothing outside Terraform state, so there is nothing to import.
func (r *nodePoolResource) ImportState(_ context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	addRuleDiag(&resp.Diagnostics, path.Empty(), ruleImport, fmt.Sprintf(
		"%s renders a Karpenter manifest and creates nothing outside Terraform state, so there is no object %q to import. "+
			"Write the resource block and run terraform plan: its manifest is rendered from the configuration. To adopt a NodePool that "+
			"already exists in a cluster, import it into the resource that applies the manifest (kubernetes_manifest, kubectl_manifest), "+
			"and remove this import block.", "karpenter_nodepool", req.ID))
}

// The rules the checks of this file emit.
var (
	ruleUserDataUnchecked = rules.Register(rules.Rule{
		ID: "node-user-data-unchecked", Severity: rules.Warning, Category: categoryProvider,
		Title: "the userData of the pool's nodes could not be checked",
		Behaviour: "A pool's plan renders the userData Karpenter would generate for its nodes, with the cluster facts Karpenter reads " +
			"(name, API endpoint, CA bundle, service CIDR), and reports what would keep a node from joining. When the provider's cluster " +
			"block names a cluster that eks:DescribeCluster cannot describe, those checks are skipped with this warning; the manifests and " +
			"every other check still plan.",
		Source: "aws/karpenter-provider-aws pkg/providers/amifamily/bootstrap; pkg/providers/launchtemplate (cluster endpoint, CA bundle and CIDR)",
		Bad:    "provider \"karpenter\" {\n  cluster {\n    name               = \"ghost\" # not a cluster of this account and region\n    kubernetes_version = \"1.32\"\n  }\n}\n",
		Good:   "provider \"karpenter\" {\n  cluster {\n    name = \"demo\" # facts from eks:DescribeCluster\n  }\n}\n",
	})
)
