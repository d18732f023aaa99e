package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/checks"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/crd"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodeoverlay"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

var (
	_ resource.ResourceWithConfigure      = (*nodeOverlayResource)(nil)
	_ resource.ResourceWithValidateConfig = (*nodeOverlayResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*nodeOverlayResource)(nil)
	_ resource.ResourceWithImportState    = (*nodeOverlayResource)(nil)
)

// NewNodeOverlayResource is the factory of karpenter_nodeoverlay.
func NewNodeOverlayResource() resource.Resource { return &nodeOverlayResource{} }

type nodeOverlayResource struct{ data *ProviderData }

type nodeOverlayModel struct {
	Name            types.String `tfsdk:"name"`
	Weight          types.Int64  `tfsdk:"weight"`
	Price           types.String `tfsdk:"price"`
	PriceAdjustment types.String `tfsdk:"price_adjustment"`
	Capacity        types.Map    `tfsdk:"capacity"`
	Requirements    types.List   `tfsdk:"requirements"`
	Manifest        types.String `tfsdk:"manifest"`
}

func (r *nodeOverlayResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_nodeoverlay"
}

func (r *nodeOverlayResource) Configure(_ context.Context, req resource.ConfigureRequest, _ *resource.ConfigureResponse) {
	if pd, ok := req.ProviderData.(*ProviderData); ok {
		r.data = pd
	}
}

func (r *nodeOverlayResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Renders a Karpenter `NodeOverlay` (`karpenter.sh/v1alpha1`): a price, a price adjustment (Savings Plans, EDP " +
			"discounts) or extended resources (device plugins such as smarter-devices/fuse) Karpenter applies to the instance types " +
			"its requirements match, heaviest weight first. Fails validate/plan on every rule of the CRD (schema and CEL) and of " +
			"Karpenter's runtime validation, and warns that Karpenter ignores the overlay unless the provider's " +
			"`controller { feature_gates { node_overlay = true } }` says the cluster runs with the NodeOverlay gate on. Pass " +
			"`manifest` to `data \"karpenter_scheduling\"`'s `node_overlays` to see its effect on scheduling and prices.",
		Attributes: map[string]schema.Attribute{
			"name": schema.StringAttribute{Required: true, Description: "Name of the NodeOverlay (metadata.name); equal weights apply in " +
				"reverse name order. Changing it replaces the resource.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"weight": schema.Int64Attribute{Optional: true, Description: "spec.weight, 1 to 10000: heavier overlays apply first and win " +
				"a price or resource both set. Unset is the lightest."},
			"price": schema.StringAttribute{Optional: true, Description: "spec.price: the hourly price of every matching offering, a " +
				"non-negative decimal (`\"0.0832\"`). Not with `price_adjustment`."},
			"price_adjustment": schema.StringAttribute{Optional: true, Description: "spec.priceAdjustment: a signed change of the " +
				"matching offerings' price, absolute (`\"-0.01\"`, `\"+0.5\"`) or in percent (`\"-20%\"`, not below `\"-100%\"`). Not with `price`."},
			"capacity": schema.MapAttribute{ElementType: types.StringType, Optional: true, Description: "spec.capacity: extended " +
				"resources added to the matching instance types (`{ \"smarter-devices/fuse\" = \"20\" }`); cpu, memory, ephemeral-storage " +
				"and pods are refused."},
			"manifest": schema.StringAttribute{Computed: true, Description: "The NodeOverlay as YAML, validated against Karpenter's " +
				"CRD. Unknown until every argument is known."},
		},
		Blocks: map[string]schema.Block{
			"requirements": schema.ListNestedBlock{
				Description: "spec.requirements, one block each (at least one; the CRD requires the list): the instance types, " +
					"offerings (`karpenter.sh/capacity-type`, zones) and NodePools (`karpenter.sh/nodepool`) the overlay applies to.",
				NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
					"key":      schema.StringAttribute{Required: true, Description: "Label key, e.g. `karpenter.k8s.aws/instance-family`."},
					"operator": schema.StringAttribute{Required: true, Description: "`In`, `NotIn`, `Exists`, `DoesNotExist`, `Gt`, `Lt`, `Gte`, `Lte`."},
					"values":   schema.ListAttribute{ElementType: types.StringType, Optional: true, Description: "Values; one non-negative integer for `Gt`, `Lt`, `Gte`, `Lte`."},
				}},
			},
		},
	}
}

// overlayFromModel builds the manifest; ok is false while an argument is
// unknown.
func overlayFromModel(m nodeOverlayModel) (nodeoverlay.Manifest, bool) {
	known := !m.Name.IsUnknown()
	str := func(v types.String) *string {
		if v.IsUnknown() {
			known = false
		}
		if v.IsNull() || v.IsUnknown() {
			return nil
		}
		s := v.ValueString()
		return &s
	}
	spec := nodeoverlay.Spec{Price: str(m.Price), PriceAdjustment: str(m.PriceAdjustment)}
	if m.Weight.IsUnknown() {
		known = false
	} else if !m.Weight.IsNull() {
		w := m.Weight.ValueInt64()
		spec.Weight = &w
	}
	if m.Capacity.IsUnknown() {
		known = false
	} else if !m.Capacity.IsNull() {
		spec.Capacity = map[string]string{}
		for k, v := range m.Capacity.Elements() {
			s, ok := knownString(v)
			known = known && ok
			spec.Capacity[k] = s
		}
	}
	if m.Requirements.IsUnknown() {
		known = false
	}
	for _, e := range m.Requirements.Elements() {
		o, ok := e.(types.Object)
		attrs, isKnown := knownAttrs(o)
		if !ok || !isKnown {
			known = false
			continue
		}
		req := nodeoverlay.Requirement{}
		var k1, k2 bool
		req.Key, k1 = knownString(attrs["key"])
		req.Operator, k2 = knownString(attrs["operator"])
		valuesList, _ := attrs["values"].(types.List) // the schema's type; a zero List reads as no values
		values, k3 := knownStrings(valuesList)
		req.Values = values
		known = known && k1 && k2 && k3
		spec.Requirements = append(spec.Requirements, req)
	}
	return nodeoverlay.New(m.Name.ValueString(), spec), known
}

// ValidateConfig fails on the CRD's and Karpenter's runtime rules as soon as
// every argument is known (terraform validate); the gate warning waits for
// the plan, which knows the provider's controller block.
func (r *nodeOverlayResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m nodeOverlayModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	o, known := overlayFromModel(m)
	if !known {
		return
	}
	_, obj, err := o.Render()
	if err != nil {
		addRuleDiag(&resp.Diagnostics, path.Empty(), ruleManifestRender, err.Error())
		return
	}
	appendFindings(&resp.Diagnostics, path.Empty(), errorsOnly(checkOverlay(ctx, obj, checks.OverlayFacts{GateOn: true})))
}

func (r *nodeOverlayResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var m nodeOverlayModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	pd := providerDataOrDefault(r.data)
	defer func() {
		resp.Diagnostics = aboutObject(dropAcknowledged(resp.Diagnostics, pd.Acknowledged), objectName(nodeoverlay.Kind, m.Name))
	}()
	o, known := overlayFromModel(m)
	m.Manifest = types.StringUnknown()
	if known {
		y, obj, err := o.Render()
		if err != nil {
			addRuleDiag(&resp.Diagnostics, path.Empty(), ruleManifestRender, err.Error())
			return
		}
		// An unknown gate is judged at apply, when it is known.
		gateOn := pd.NodeOverlayGate || pd.NodeOverlayGateUnknown
		appendFindings(&resp.Diagnostics, path.Empty(), checkOverlay(ctx, obj, checks.OverlayFacts{GateOn: gateOn, GateHow: providerGateHow}))
		if resp.Diagnostics.HasError() {
			return
		}
		m.Manifest = types.StringValue(y)
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &m)...)
}

// checkOverlay is the overlay's CRD findings in attribute paths, then its
// check sequence.
func checkOverlay(ctx context.Context, obj map[string]any, f checks.OverlayFacts) rules.Findings {
	_, fs := crd.NodeOverlay.Findings(ctx, obj)
	return append(fs, checks.NodeOverlay(ctx, obj, !fs.HasErrors(), f)...)
}

func (r *nodeOverlayResource) Create(_ context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	resp.State.Raw = req.Plan.Raw
}

func (r *nodeOverlayResource) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

func (r *nodeOverlayResource) Update(_ context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.State.Raw = req.Plan.Raw
}

func (r *nodeOverlayResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {
}

// ImportState refuses with the reason, as the other renderers do.
func (r *nodeOverlayResource) ImportState(_ context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	addRuleDiag(&resp.Diagnostics, path.Empty(), ruleImport, fmt.Sprintf(
		"%s renders a Karpenter manifest and creates nothing outside Terraform state, so there is no object %q to import. "+
			"Write the resource block and run terraform plan: its manifest is rendered from the configuration. To adopt a NodeOverlay that "+
			"already exists in a cluster, import it into the resource that applies the manifest (kubernetes_manifest, kubectl_manifest), "+
			"and remove this import block.", "karpenter_nodeoverlay", req.ID))
}

// providerGateHow tells a Terraform user how to say the cluster runs with
// Karpenter's NodeOverlay gate on.
const providerGateHow = "If the cluster runs with the gate on, set controller { feature_gates { node_overlay = true } } in the provider block."

// The rules the checks of this file emit.
var (
	ruleManifestRender = rules.Register(rules.Rule{
		ID: "manifest-render-failed", Severity: rules.Error, Category: categoryProvider,
		Title:     "the manifest could not be rendered",
		Behaviour: "The manifest is rendered as JSON and converted to YAML; a failure means a value could not be serialised. This is a provider bug: please report it with the configuration.",
		Source:    "sigs.k8s.io/yaml JSONToYAML",
		Bad:       "# a provider bug, not a configuration mistake\n",
		Good:      "# report it at the provider's issue tracker\n",
	})
)
