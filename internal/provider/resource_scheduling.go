package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
)

var (
	_ resource.ResourceWithConfigure      = (*schedulingResource)(nil)
	_ resource.ResourceWithValidateConfig = (*schedulingResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*schedulingResource)(nil)
)

// NewSchedulingResource is the factory of resource karpenter_scheduling:
// the data source's decision made in ModifyPlan, so that a plan that
// changes the NodePools it reads shows (and fails on) the new decision.
// Terraform reads a data source that depends on a resource with pending
// changes only during apply; a resource's plan is computed from the
// other resources' planned values.
func NewSchedulingResource() resource.Resource { return &schedulingResource{} }

type schedulingResource struct{ data *ProviderData }

func (r *schedulingResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_scheduling"
}

func (r *schedulingResource) Configure(_ context.Context, req resource.ConfigureRequest, _ *resource.ConfigureResponse) {
	if pd, ok := req.ProviderData.(*ProviderData); ok {
		r.data = pd
	}
}

func (r *schedulingResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: schedulingDescription + "The resource decides at every `terraform plan` whose inputs are known, from " +
			"the planned manifests of the NodePools and EC2NodeClasses it reads, so the plan of a change that leaves a " +
			"workload without a node fails, and the plan's diff of `pods`, `node_claims` and `explanation` is what the " +
			"change does to the workloads; inputs known only at apply are decided at apply. It creates nothing: apply " +
			"stores the planned decision, destroy forgets it.",
		Attributes: schedulingAttributes(),
	}
}

func (r *schedulingResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	validateScheduling(ctx, req.Config, &resp.Diagnostics)
}

// ModifyPlan decides whenever the inputs are known: the planned outputs
// are the decision, and pod-unschedulable fails the plan. At every plan,
// also when nothing changed, so that new facts (a region's instance
// types, the provider's version) show; a decision that reads the same
// plans no change.
func (r *schedulingResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return // destroy: nothing to decide
	}
	var m schedulingModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	r.decideInto(ctx, &m, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &m)...)
}

// decideInto sets m's outputs to the decision, or unknown when the
// inputs (or the provider's AWS configuration) are not known yet.
func (r *schedulingResource) decideInto(ctx context.Context, m *schedulingModel, diags *diag.Diagnostics) {
	in, known := m.input(diags)
	if diags.HasError() {
		return
	}
	if !known {
		m.setUnknown()
		return
	}
	pd := providerDataOrDefault(r.data)
	out := decide(ctx, pd, in)
	diags.Append(dropAcknowledged(out.diags, pd.Acknowledged)...)
	switch {
	case out.deferred:
		m.setUnknown()
	case out.dec != nil:
		diags.Append(m.setDecision(ctx, out.dec)...)
	}
}

func (r *schedulingResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.store(ctx, req.Plan, &resp.State, &resp.Diagnostics)
}

func (r *schedulingResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.store(ctx, req.Plan, &resp.State, &resp.Diagnostics)
}

// store keeps the planned decision; one planned unknown (inputs known
// only at apply) is decided now, and fails the apply as the plan would
// have.
func (r *schedulingResource) store(ctx context.Context, plan tfsdk.Plan, state *tfsdk.State, diags *diag.Diagnostics) {
	var m schedulingModel
	diags.Append(plan.Get(ctx, &m)...)
	if diags.HasError() {
		return
	}
	if m.Pods.IsUnknown() {
		r.decideInto(ctx, &m, diags)
		if diags.HasError() {
			return
		}
		if m.Pods.IsUnknown() { // still not known: nothing to store
			diags.AddError("the scheduling decision could not be made at apply",
				"The provider's AWS configuration or an input of karpenter_scheduling is still not known during apply; this is a bug to report.")
			return
		}
	}
	diags.Append(state.Set(ctx, &m)...)
}

// Read keeps the stored decision: nothing outside Terraform's state exists.
func (r *schedulingResource) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

// Delete forgets the decision: it created nothing.
func (r *schedulingResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {
}
