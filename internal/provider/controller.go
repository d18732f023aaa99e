package provider

import (
	"fmt"
	"math"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/capacity"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

var ruleControllerSettings = rules.Register(rules.Rule{
	ID: "controller-settings-invalid", Severity: rules.Error, Category: categoryProvider,
	Title: "a Karpenter controller setting in the controller block has a value Karpenter refuses",
	Behaviour: "The controller block states two settings of the Karpenter controller (its Helm values, one per cluster) that change every node's capacity: " +
		"`vm_memory_overhead_percent` (VM_MEMORY_OVERHEAD_PERCENT, default 0.075), the fraction of each instance type's memory taken off for the hypervisor, and " +
		"`reserved_enis` (RESERVED_ENIS, default 0), ENIs VPC CNI custom networking keeps from pods, taken off the ENI-limited pod count. " +
		"Karpenter refuses to start with a negative value of either (\"vm-memory-overhead-percent cannot be negative\", \"reserved-enis cannot be negative\"); " +
		"an overhead of 1 or more would leave every node with no memory, so no pod could schedule.",
	Source: "aws/karpenter-provider-aws v1.14.1 pkg/operator/options/options.go and options_validation.go; pkg/providers/instancetype/types.go (memory, ENILimitedPods)",
	Bad:    "provider \"karpenter\" {\n  controller {\n    vm_memory_overhead_percent = 7.5\n    reserved_enis              = -1\n  }\n}\n",
	Good:   "provider \"karpenter\" {\n  controller {\n    vm_memory_overhead_percent = 0.075\n    reserved_enis              = 1\n  }\n}\n",
})

func controllerBlock() schema.Block {
	return schema.SingleNestedBlock{
		Description: "Settings of the Karpenter controller (its Helm values, one per cluster) that change the capacity Karpenter computes " +
			"for every node: `data \"karpenter_node\"` reads them for capacity, allocatable, max pods and the maxPods in user_data. " +
			"Unset, they are Karpenter's defaults.",
		Attributes: map[string]schema.Attribute{
			"vm_memory_overhead_percent": schema.Float64Attribute{Optional: true, Description: fmt.Sprintf(
				"VM_MEMORY_OVERHEAD_PERCENT (`settings.vmMemoryOverheadPercent` in the Helm chart): the fraction of each instance type's memory "+
					"Karpenter takes off for the hypervisor, in [0, 1). Default %v.", capacity.DefaultSettings().VMMemoryOverheadPercent)},
			"reserved_enis": schema.Int64Attribute{Optional: true, Description: "RESERVED_ENIS (`settings.reservedENIs`): ENIs the VPC CNI " +
				"may not use for pods (custom networking), taken off the ENI-limited pod count. Default 0."},
		},
		Blocks: map[string]schema.Block{
			"feature_gates": schema.SingleNestedBlock{
				Description: "The controller's FEATURE_GATES (Helm values `settings.featureGates.*`) the predictions depend on. Unset, Karpenter's defaults.",
				Attributes: map[string]schema.Attribute{
					"node_overlay": schema.BoolAttribute{Optional: true, Description: "NodeOverlay (`settings.featureGates.nodeOverlay`, " +
						"alpha, default false): Karpenter applies NodeOverlays (`karpenter_nodeoverlay`) to instance types only with it on. " +
						"On, `data \"karpenter_scheduling\"` applies the `node_overlays` it is given as Karpenter does (capacity, price); " +
						"off, each overlay is a warning that Karpenter ignores it."},
				},
			},
		},
	}
}

// featureGates reads controller.feature_gates: whether NodeOverlay is on,
// and whether that is not known yet.
func featureGates(o types.Object) (nodeOverlay, unknown bool) {
	if o.IsUnknown() {
		return false, true
	}
	attrs, ok := knownAttrs(o)
	if !ok {
		return false, false
	}
	fg, _ := attrs["feature_gates"].(types.Object)
	if fg.IsUnknown() {
		return false, true
	}
	gates, ok := knownAttrs(fg)
	if !ok {
		return false, false
	}
	v, _ := gates["node_overlay"].(types.Bool)
	return v.ValueBool(), v.IsUnknown()
}

// validateController reports the literal controller settings Karpenter
// would refuse, each at its attribute.
func validateController(o types.Object, diags *diag.Diagnostics) {
	attrs, ok := knownAttrs(o)
	if !ok {
		return
	}
	at := func(n string) path.Path { return path.Root("controller").AtName(n) }
	if v, ok := attrs["vm_memory_overhead_percent"].(types.Float64); ok && !v.IsNull() && !v.IsUnknown() {
		if err := capacity.ValidateVMMemoryOverheadPercent(v.ValueFloat64()); err != nil {
			addRuleDiag(diags, at("vm_memory_overhead_percent"), ruleControllerSettings, "vm_memory_overhead_percent = "+err.Error()+".")
		}
	}
	if v, ok := attrs["reserved_enis"].(types.Int64); ok && !v.IsNull() && !v.IsUnknown() {
		if err := capacity.ValidateReservedENIs(clampInt(v.ValueInt64())); err != nil {
			addRuleDiag(diags, at("reserved_enis"), ruleControllerSettings, "reserved_enis = "+err.Error()+".")
		}
	}
}

// controllerSettings reads the block over Karpenter's defaults; unknown is
// set when a value is not known yet.
func controllerSettings(o types.Object) (s capacity.Settings, unknown bool, err error) {
	s = capacity.DefaultSettings()
	if o.IsUnknown() {
		return s, true, nil
	}
	attrs, ok := knownAttrs(o)
	if !ok {
		return s, false, nil
	}
	if v, ok := attrs["vm_memory_overhead_percent"].(types.Float64); ok && !v.IsNull() {
		if v.IsUnknown() {
			unknown = true
		} else {
			s.VMMemoryOverheadPercent = v.ValueFloat64()
		}
	}
	if v, ok := attrs["reserved_enis"].(types.Int64); ok && !v.IsNull() {
		if v.IsUnknown() {
			unknown = true
		} else {
			s.ReservedENIs = clampInt(v.ValueInt64())
		}
	}
	if err := s.Validate(); err != nil {
		return s, unknown, fmt.Errorf("controller: %w", err)
	}
	return s, unknown, nil
}

// clampInt keeps an int64 inside int's range (32-bit platforms).
func clampInt(n int64) int {
	return int(max(min(n, math.MaxInt32), math.MinInt32))
}
