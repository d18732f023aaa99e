package provider

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/checks"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/cluster"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/drift"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodeclass"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/taints"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

var (
	_ resource.ResourceWithConfigure      = (*ec2NodeClassResource)(nil)
	_ resource.ResourceWithValidateConfig = (*ec2NodeClassResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*ec2NodeClassResource)(nil)
	_ resource.ResourceWithImportState    = (*ec2NodeClassResource)(nil)
)

// NewEC2NodeClassResource is the factory of karpenter_ec2nodeclass.
func NewEC2NodeClassResource() resource.Resource { return &ec2NodeClassResource{} }

type ec2NodeClassResource struct{ data *ProviderData }

func (r *ec2NodeClassResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_ec2nodeclass"
}

func (r *ec2NodeClassResource) Configure(_ context.Context, req resource.ConfigureRequest, _ *resource.ConfigureResponse) {
	if pd, ok := req.ProviderData.(*ProviderData); ok {
		r.data = pd
	}
}

// ValidateConfig runs every check decidable from literal values; under
// terraform validate it sees no provider configuration, so it judges with
// the default Karpenter release.
func (r *ec2NodeClassResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m ec2NodeClassModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if r.data == nil {
		// Configured (the plan walk), ModifyPlan reports these with the
		// image, userData and readiness checks; an error here would stop
		// Terraform before them.
		fs := acknowledgeNearMisses(nodeclass.Validate(classFromModel(m), versions.DefaultKarpenter), acknowledgedSet(m.AcknowledgedWarnings))
		appendFindings(&resp.Diagnostics, path.Empty(), errorsOnly(fs))
	}
	resp.Diagnostics.Append(validateAcknowledged(path.Root("acknowledged_warnings"), m.AcknowledgedWarnings, true)...)
}

// ModifyPlan resolves the images, renders the userData and the manifest,
// and fails the plan on whatever needs AWS or the configured release.
func (r *ec2NodeClassResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return // destroy: nothing to check
	}
	var m ec2NodeClassModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	pd := providerDataOrDefault(r.data)
	defer func() {
		// A failure of the whole plan is reported once, not as this
		// object's (oncePerPlan keeps it free of the object's name).
		resp.Diagnostics = pd.oncePerPlan(aboutObject(dropAcknowledged(resp.Diagnostics, pd.Acknowledged, acknowledgedSet(m.AcknowledgedWarnings)),
			objectName(manifest.EC2NodeClassKind, m.Name)), false)
	}()
	c := classFromModel(m)
	var imageDiags diag.Diagnostics
	res := checks.EC2NodeClass(ctx, c, classFacts(pd, c, &imageDiags))
	appendFindings(&resp.Diagnostics, path.Empty(), acknowledgeNearMisses(res.Own, acknowledgedSet(m.AcknowledgedWarnings)))
	// An error in one part of the class does not hide the plan-time checks
	// of the others: a tag or kubelet error and a snapshot larger than the
	// root volume fail the plan together.
	if resp.Diagnostics.HasError() && !res.ImagesChecked && !res.ReadinessChecked {
		return
	}

	var plan ec2NodeClassModel
	if d := req.Plan.Get(ctx, &plan); d.HasError() {
		resp.Diagnostics.Append(d...)
		return
	}
	// user_data is computed only when bootstrap renders it into a null
	// user_data; otherwise it is exactly what the configuration says (an
	// unknown included): a user_data set next to bootstrap is an error
	// found once both are known, and the plan must not contradict it.
	renderUserData := c.Bootstrap != nil && m.UserData.IsNull()
	if !renderUserData {
		plan.UserData = m.UserData
	}
	if res.ImagesAsked {
		resp.Diagnostics.Append(imageDiags...)
	}
	computed, err := r.compute(ctx, c, res, &resp.Diagnostics)
	ready := classReadiness{res.Readiness}
	ready.report(pd, &resp.Diagnostics)
	deferred := errors.Is(err, errDeferred)
	switch {
	case deferred:
		// Inputs are unknown until apply: leave the computed values unknown;
		// ModifyPlan runs again at apply with them known.
		plan.Manifest = types.StringUnknown()
		plan.AMIs = types.MapUnknown(types.StringType)
		plan.NodeClass = types.ObjectUnknown(nodeClassAttrTypes)
		if renderUserData {
			plan.UserData = types.StringUnknown()
		}
	case err != nil || resp.Diagnostics.HasError():
		return
	default:
		plan.AMIs = computed.amis
		plan.NodeClass = computed.nodeClass
		plan.Manifest = computed.manifest
		if renderUserData {
			plan.UserData = computed.userData
		}
	}
	if resp.Diagnostics.HasError() {
		return
	}
	values, d := ready.values(!deferred)
	resp.Diagnostics.Append(d...)
	var prior ec2NodeClassModel
	if !req.State.Raw.IsNull() {
		resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	}
	plan.Subnets = keepRecordedSubnets(values.subnets, prior.Subnets)
	plan.SecurityGroups = values.securityGroups
	plan.CapacityReservations = values.capacityReservations
	plan.StatusConditions = values.conditions
	if !deferred {
		plan.NodeClass, d = withAttribute(plan.NodeClass, "zones", values.zones)
		resp.Diagnostics.Append(d...)
	}
	plan.DriftHash = types.StringUnknown()
	plan.DriftHashVersion = types.StringValue(drift.EC2NodeClassHashVersion(pd.Karpenter))
	if !deferred && computed.spec != nil {
		var ca string
		plan.DriftHash, ca = classDriftHash(ctx, *computed.spec, pd)
		preview, ok := classDriftPreview(prior, plan, *computed.spec, ca, pd)
		if preview, ok = withClassCluster(preview, ok, pd, plan.Name.ValueString(), plan); ok {
			warnDrift(&resp.Diagnostics, preview)
		}
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// withAttribute returns o with one attribute replaced.
func withAttribute(o types.Object, name string, v attr.Value) (types.Object, diag.Diagnostics) {
	if o.IsNull() || o.IsUnknown() {
		return o, nil
	}
	attrs := maps.Clone(o.Attributes())
	attrs[name] = v
	return types.ObjectValue(o.AttributeTypes(context.Background()), attrs)
}

type nodeClassComputed struct {
	amis      types.Map
	nodeClass types.Object
	manifest  types.String
	userData  types.String
	// spec is the rendered spec when every input of the manifest is known.
	spec *manifest.EC2NodeClassSpec
}

// classFacts are the facts of the class's checks: the images resolved
// with the provider's cache and cluster (their failures go to imageDiags),
// the cluster facts of a bootstrap block, the readiness reads.
func classFacts(pd *ProviderData, c nodeclass.Class, imageDiags *diag.Diagnostics) checks.ClassFacts {
	f := checks.ClassFacts{
		Karpenter: pd.Karpenter,
		Images: func(ctx context.Context) (ami.Result, error) {
			*imageDiags = nil
			res, err := resolveAMIs(ctx, pd, c.Terms, types.StringNull(), path.Empty(), imageDiags)
			if errors.Is(err, errDeferred) {
				err = checks.ErrDeferred
			}
			return res.result, err
		},
		// Only a hint: not worth waiting on an AWS that is not set up.
		SuggestFamily: pd.AWS.Clients().Configured(),
		ClusterFacts: func(ctx context.Context, need []string) (cluster.Facts, error) {
			return pd.ClusterFacts(ctx, need, "the bootstrap block")
		},
		Readiness: readinessSource(pd),
	}
	if !pd.Cluster.Unknown[cluster.FieldName] {
		f.Cluster = pd.Cluster.Name
	}
	return f
}

// compute reports what the checks found on the images and turns their
// answer into the computed values.
func (r *ec2NodeClassResource) compute(ctx context.Context, c nodeclass.Class, res checks.ClassResult, diags *diag.Diagnostics) (nodeClassComputed, error) {
	var out nodeClassComputed
	appendFindings(diags, path.Empty(), res.OnImages)
	switch err := res.ClusterErr; {
	case res.Deferred:
		return out, errDeferred
	case res.ImagesErr != nil:
		return out, res.ImagesErr // reported by resolveAMIs
	case err == nil:
	default:
		if _, denied := awsclient.Denied(err); denied || awsFailureIsProviderWide(err) {
			addAWSFailure(diags, path.Root("bootstrap"), err, "Or set the cluster facts in the bootstrap block itself, so eks:DescribeCluster is not needed.")
		} else {
			addRuleDiag(diags, path.Root("bootstrap"), ruleClusterFactsNeeded, awsErrorDetail(err)+"\n\nOr set them in the bootstrap block itself.")
		}
		return out, err
	}
	if res.Planned == nil || diags.HasError() {
		return out, nil
	}
	p := *res.Planned
	var d diag.Diagnostics
	// The class's amis and node_class.amis are the same lines: the pools
	// read the images, and a release bump changes one line per image.
	out.amis, d = classAMIsValue(res.Images.AMIs)
	diags.Append(d...)
	out.userData = types.StringPointerValue(p.UserData)
	out.nodeClass, d = nodeClassValue(c, p, out.amis)
	diags.Append(d...)
	// The manifest needs every spec value; role, subnets and tags may come
	// from resources created in the same run, node_class does not need them.
	if c.Unknown.Within(rules.Path{}) {
		out.manifest = types.StringUnknown()
		return out, nil
	}
	out.manifest = r.renderManifest(ctx, p.Manifest, diags)
	out.spec = &p.Manifest.Spec
	return out, nil
}

func (r *ec2NodeClassResource) renderManifest(ctx context.Context, obj manifest.EC2NodeClass, diags *diag.Diagnostics) types.String {
	y, err := manifest.YAML(obj)
	if err != nil {
		addRuleDiag(diags, path.Empty(), ruleManifestRender, err.Error())
		return types.StringUnknown()
	}
	appendFindings(diags, path.Empty(), validateAgainstCRD(ctx, obj))
	return types.StringValue(y)
}

// nodeClassValue is node_class: what a pool's checks read of the class,
// and nothing the class's manifest already holds. Its images and family are
// known here; a fact whose inputs are not known yet (a name or user_data
// from a resource created in the same run) is planned unknown, so pools
// wait for it instead of checking a value the apply would change.
func nodeClassValue(c nodeclass.Class, p nodeclass.Planned, amis types.Map) (types.Object, diag.Diagnostics) {
	var diags diag.Diagnostics
	var registered attr.Value = types.ListNull(types.ObjectType{AttrTypes: taintAttrTypes})
	if !p.Family.Model().KarpenterBootstraps() {
		// Custom: the taints its userData registers, which the pools'
		// taints are checked against.
		var d diag.Diagnostics
		registered, d = taintsValue(p.RegisteredTaints)
		diags.Append(d...)
		if c.Bootstrap == nil && c.Unknown.Within(rules.Root("user_data")) {
			registered = types.ListUnknown(types.ObjectType{AttrTypes: taintAttrTypes})
		}
	}
	var name attr.Value = types.StringValue(c.Name)
	if c.Unknown.Is(rules.Root("name")) {
		name = types.StringUnknown()
	}
	o, d := types.ObjectValue(nodeClassAttrTypes, map[string]attr.Value{
		"name": name, "ami_family": types.StringValue(string(p.Family)), "amis": amis, "registered_taints": registered,
		// The plan sets the zones from the readiness reads.
		"zones": types.MapNull(types.StringType),
	})
	diags.Append(d...)
	return o, diags
}

func taintsValue(ts []taints.Taint) (types.List, diag.Diagnostics) {
	var diags diag.Diagnostics
	elems := make([]attr.Value, 0, len(ts))
	for _, t := range ts {
		value := types.StringNull()
		if t.Value != "" {
			value = types.StringValue(t.Value)
		}
		o, d := types.ObjectValue(taintAttrTypes, map[string]attr.Value{"key": types.StringValue(t.Key), "value": value, "effect": types.StringValue(t.Effect)})
		diags.Append(d...)
		elems = append(elems, o)
	}
	l, d := types.ListValue(types.ObjectType{AttrTypes: taintAttrTypes}, elems)
	diags.Append(d...)
	return l, diags
}

// Create, Read, Update and Delete touch nothing outside Terraform: the
// resource is a renderer, its plan is its state.
func (r *ec2NodeClassResource) Create(_ context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	resp.State.Raw = req.Plan.Raw
}

func (r *ec2NodeClassResource) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

func (r *ec2NodeClassResource) Update(_ context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.State.Raw = req.Plan.Raw
}

func (r *ec2NodeClassResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {
}

// ImportState refuses with the reason: the resource renders a manifest and
// creates nothing outside Terraform state, so there is nothing to import.
func (r *ec2NodeClassResource) ImportState(_ context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	addRuleDiag(&resp.Diagnostics, path.Empty(), ruleImport, fmt.Sprintf(
		"%s renders a Karpenter manifest and creates nothing outside Terraform state, so there is no object %q to import. "+
			"Write the resource block and run terraform plan: its manifest is rendered from the configuration. To adopt a EC2NodeClass that "+
			"already exists in a cluster, import it into the resource that applies the manifest (kubernetes_manifest, kubectl_manifest), "+
			"and remove this import block.", "karpenter_ec2nodeclass", req.ID))
}

// The rules the checks of this file emit.
var (
	ruleClusterFactsNeeded = rules.Register(rules.Rule{
		ID: "cluster-facts-needed", Severity: rules.Error, Category: categoryProvider,
		Title:     "bootstrap needs cluster facts that are not known",
		Behaviour: "Rendered Custom userData must name the cluster, its API endpoint and CA (and for nodeadm the service CIDR); Karpenter passes Custom userData through untouched, so a node booted without them never joins.",
		Source:    "awslabs/amazon-eks-ami bootstrap.sh and nodeadm NodeConfig (required fields)",
		Bad:       "resource \"karpenter_ec2nodeclass\" \"custom\" {\n  # ...\n  bootstrap {\n    format = \"nodeadm\"\n  }\n}\n",
		Good:      "resource \"karpenter_ec2nodeclass\" \"custom\" {\n  # ...\n  bootstrap {\n    format                = \"nodeadm\"\n    cluster_name          = \"demo\"\n    api_server_endpoint   = \"https://ABC.gr7.us-west-2.eks.amazonaws.com\"\n    certificate_authority = var.cluster_ca\n    service_cidr          = \"172.20.0.0/16\"\n  }\n}\n",
	})
	ruleImport = rules.Register(rules.Rule{
		ID: "import-not-supported", Severity: rules.Error, Category: categoryProvider,
		Title:     "these resources live only in Terraform state: there is nothing to import",
		Behaviour: "karpenter_ec2nodeclass and karpenter_nodepool render manifests; they create nothing outside Terraform state, so there is no remote object to import. Write the resource and plan: the manifest is rendered from configuration. To take over objects already in a cluster, import them in the resource that applies the manifest (kubernetes_manifest, kubectl_manifest).",
		Source:    "Terraform import (developer.hashicorp.com/terraform/language/import)",
		Bad:       "import {\n  to = karpenter_nodepool.default\n  id = \"default\"\n}\n",
		Good:      "resource \"karpenter_nodepool\" \"default\" {\n  name       = \"default\"\n  node_class = karpenter_ec2nodeclass.default.node_class\n}\n",
	})
)
