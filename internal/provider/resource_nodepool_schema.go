package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/migration"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// nodeClassInputAttributes mirror karpenter_ec2nodeclass.node_class so that
// value can be passed as is; for a class managed elsewhere only name (and
// group and kind, for another NodeClass) is written.
func nodeClassInputAttributes() map[string]schema.Attribute {
	// The class's facts are plain typed values, not nested attributes: they
	// arrive whole from karpenter_ec2nodeclass.node_class, and the framework
	// validates every value of a nested attribute against the schema again,
	// which cost most of a pool's validation.
	return map[string]schema.Attribute{
		// group and kind are not computed defaults: the manifest's
		// nodeClassRef defaults them, and a value nobody wrote would be
		// printed in every pool's plan.
		"group": schema.StringAttribute{Optional: true,
			Description: "NodeClass API group; the manifest defaults it to `karpenter.k8s.aws` (the only one Karpenter's AWS provider manages)."},
		"kind": schema.StringAttribute{Optional: true,
			Description: "NodeClass kind; the manifest defaults it to `EC2NodeClass`."},
		"name":       schema.StringAttribute{Required: true, Description: "The EC2NodeClass name."},
		"ami_family": schema.StringAttribute{Optional: true, Description: "The class's resolved amiFamily."},
		"amis": schema.MapAttribute{ElementType: types.StringType, Optional: true,
			Description: classAMIsDoc + " From karpenter_ec2nodeclass.<name>.node_class; for a class managed elsewhere it may be written by hand, " +
				"and a value not in this form is an error (node-class-amis-invalid)."},
		"registered_taints": schema.ListAttribute{ElementType: types.ObjectType{AttrTypes: taintAttrTypes}, Optional: true,
			Description: "For a Custom class: the taints its userData registers."},
		"zones": schema.MapAttribute{ElementType: types.StringType, Optional: true,
			Description: "The zones of the class's subnets mapped to their zone ids: the pool's zone requirements and named instance families are checked against them."},
	}
}

func (r *nodePoolResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Renders a Karpenter `NodePool` (`karpenter.sh/v1`) and fails validate/plan on every incompatibility with its EC2NodeClass " +
			"that can be proven: architectures the class has no image for (before Karpenter fails with \"no instance types satisfy requirements " +
			"of amis\"), arm64 GPU families without an arm64 GPU image, mixed architectures, Custom userData that does not register the pool's " +
			"taints, and every CRD and runtime rule of the NodePool. Computes which image each admitted family gets; the userData a node boots with is " +
			"rendered and checked at plan (`data \"karpenter_node\"` shows it for an instance type).",
		Attributes: map[string]schema.Attribute{
			// No `id`: it would be the name again, printed in every plan of
			// the resource; neither Terraform nor the framework needs one.
			"name": schema.StringAttribute{
				Required: true, Description: "Name of the NodePool (metadata.name). Changing it replaces the resource.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"node_class": schema.SingleNestedAttribute{
				Required: true,
				// Sensitive only to keep it out of the plan's text: the class's
				// own plan prints the same images and zones once, and every pool
				// printed them again, on create and on every release bump.
				Sensitive: true,
				Description: "The EC2NodeClass: pass `karpenter_ec2nodeclass.<x>.node_class` so every cross-check runs, or `{ name = \"...\" }` for a " +
					"class managed elsewhere (cross-checks that need its facts are skipped with a warning). Marked sensitive, although nothing in it " +
					"is secret, so that plans print `node_class = (sensitive value)` instead of the class's images and zones once more per pool: the " +
					"class's plan prints them, the pool's `manifest` shows the `nodeClassRef` name and `ami_assignments` the images it boots. " +
					"A hand-written `{ name = \"...\" }` is hidden too, and an output of a pool's `node_class` needs `sensitive = true`; " +
					"`terraform show -json` still holds the value.",
				Attributes: nodeClassInputAttributes(),
			},
			"labels": schema.MapAttribute{ElementType: types.StringType, Optional: true,
				Description: "Labels of the pool's NODES (spec.template.metadata.labels). The NodePool object's own labels are `metadata { labels = ... }`."},
			"annotations": schema.MapAttribute{ElementType: types.StringType, Optional: true,
				Description: "Annotations of the pool's NODES (spec.template.metadata.annotations). The NodePool object's own annotations are `metadata { annotations = ... }`."},
			"expire_after":             schema.StringAttribute{Optional: true, Description: "Node lifetime, e.g. `720h`, or `Never`."},
			"termination_grace_period": schema.StringAttribute{Optional: true, Description: "Maximum drain time, e.g. `24h`."},
			"limits":                   schema.MapAttribute{ElementType: types.StringType, Optional: true, Description: "Resource limits of the pool (`cpu`, `memory`, `nodes`, ...), as quantities."},
			"weight":                   schema.Int64Attribute{Optional: true, Description: "Priority among NodePools, 1-100."},
			"replicas": schema.Int64Attribute{
				Optional: true, Description: "Static NodePool node count (Karpenter 1.8+). Switching between static and dynamic replaces the pool (the CRD forbids the transition).",
				PlanModifiers: []planmodifier.Int64{int64planmodifier.RequiresReplaceIf(staticTransition, "Karpenter forbids switching a NodePool between static and dynamic", "Karpenter forbids switching a NodePool between static (replicas set) and dynamic (replicas unset): \"Cannot transition NodePool between static (replicas set) and dynamic (replicas unset) provisioning modes\".")},
			},
			"ttl_seconds_until_expired": schema.Int64Attribute{Optional: true, Description: removedDescription(migration.AttrTTLUntilExpired)},
			"ttl_seconds_after_empty":   schema.Int64Attribute{Optional: true, Description: removedDescription(migration.AttrTTLAfterEmpty)},
			"acknowledged_warnings":     acknowledgedWarningsAttribute(),
			"manifest":                  schema.StringAttribute{Computed: true, Description: "The NodePool as YAML (sorted keys), validated against Karpenter's CRD."},
			"instance_families":         schema.ListAttribute{ElementType: types.StringType, Computed: true, Description: "The instance families the requirements admit for this class, sorted."},
			"ami_assignments": schema.MapAttribute{
				ElementType: types.StringType, Computed: true,
				Description: "Which image each admitted instance family boots (strict matching, as Karpenter since 1.4), one line per image, keyed as " +
					"the class's `amis` (`<architecture>/<variant>` for alias images, `<architecture>` otherwise): `<id> <name>: <families>`, e.g. " +
					"`ami-0a10f319e3e4c3de7 amazon-eks-node-al2023-x86_64-nvidia-1.32-v20251209: g4dn, g5`. A new release changes the lines of " +
					"the images this pool boots, and only those.",
			},
		},
		Blocks: map[string]schema.Block{
			"metadata": metadataBlock("NodePool"),
			"requirements": schema.ListNestedBlock{
				Description: "Scheduling requirements on well-known and custom labels (spec.template.spec.requirements), one block each.",
				NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
					"key":        schema.StringAttribute{Required: true, Description: "Label key, e.g. `karpenter.k8s.aws/instance-family`."},
					"operator":   schema.StringAttribute{Required: true, Description: "`In`, `NotIn`, `Exists`, `DoesNotExist`, `Gt`, `Lt`, and from Karpenter 1.9 `Gte`, `Lte`."},
					"values":     schema.ListAttribute{ElementType: types.StringType, Optional: true, Description: "Values (one non-negative integer for Gt/Lt/Gte/Lte)."},
					"min_values": schema.Int64Attribute{Optional: true, Description: "Minimum number of distinct values the chosen instance types must cover (1-50)."},
				}},
			},
			"kubelet": schema.SingleNestedBlock{
				Description: removedDescription(migration.AttrKubelet),
				Attributes:  removedKubeletAttributes(),
			},
			"taints":         taintsBlock("Taints of the nodes, one block each."),
			"startup_taints": taintsBlock("Taints applied at launch that something else (e.g. a DaemonSet) removes; pods need not tolerate them. One block each."),
			"disruption": schema.SingleNestedBlock{
				Description: "Consolidation settings and disruption budgets.",
				Attributes: map[string]schema.Attribute{
					"consolidation_policy": schema.StringAttribute{Optional: true, Description: "`WhenEmpty`, `WhenEmptyOrUnderutilized` or (1.14+) `Balanced`."},
					"consolidate_after":    schema.StringAttribute{Optional: true, Description: "Required inside disruption: e.g. `30s`, `5m`, or `Never`."},
					"expire_after":         schema.StringAttribute{Optional: true, Description: removedDescription(migration.AttrDisruptionExpireAfter)},
				},
				Blocks: map[string]schema.Block{
					"budgets": schema.ListNestedBlock{
						Description: "Disruption budgets (at most 50), one block each.",
						NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
							"nodes":    schema.StringAttribute{Required: true, Description: "Nodes that may be disrupted at once: a number or a percentage (`10%`)."},
							"schedule": schema.StringAttribute{Optional: true, Description: "Cron schedule (UTC) when the budget applies; needs `duration`."},
							"duration": schema.StringAttribute{Optional: true, Description: "How long the budget applies after each schedule hit, in hours and minutes (`8h`, `1h30m`)."},
							"reasons":  schema.ListAttribute{ElementType: types.StringType, Optional: true, Description: "`Underutilized`, `Empty`, `Drifted`; default all."},
						}},
					},
				},
			},
		},
	}
	for name, a := range driftHashAttributes("karpenter.sh/nodepool-hash", "karpenter.sh/nodepool-hash-version",
		"when the template holds a value Karpenter could not store (another rule reports it)") {
		resp.Schema.Attributes[name] = a
	}
}

// removedDescription documents a tombstone: an attribute of an older
// Karpenter API that the schema takes only to fail on it with where v1
// moved it.
func removedDescription(attr rules.Path) string {
	f, _ := migration.ByAttr(attr)
	return f.Summary() + " " + tombstoneAdvice[attr.String()]("<duration>") + " Accepted only to fail `terraform validate` at its line with that answer (`" + f.Rule.ID + "`)."
}

// removedKubeletAttributes are the EC2NodeClass's kubelet settings, which
// the v1beta1 NodePool had: accepted so that the block fails with where
// they went instead of "Unsupported block type".
func removedKubeletAttributes() map[string]schema.Attribute {
	attrs := kubeletAttributes()
	for name, a := range attrs {
		d := "Removed with the block: set `" + name + "` in the kubelet block of the `karpenter_ec2nodeclass`."
		switch a := a.(type) {
		case schema.Int64Attribute:
			a.Description = d
			attrs[name] = a
		case schema.BoolAttribute:
			a.Description = d
			attrs[name] = a
		case schema.ListAttribute:
			a.Description = d
			attrs[name] = a
		case schema.MapAttribute:
			a.Description = d
			attrs[name] = a
		}
	}
	return attrs
}

// staticTransition replaces the pool when replicas goes from unset to set
// or back (CRD transition rule 1).
func staticTransition(_ context.Context, req planmodifier.Int64Request, resp *int64planmodifier.RequiresReplaceIfFuncResponse) {
	if req.State.Raw.IsNull() || req.PlanValue.IsUnknown() {
		return
	}
	resp.RequiresReplace = req.StateValue.IsNull() != req.PlanValue.IsNull()
}
