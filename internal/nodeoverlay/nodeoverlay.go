// Package nodeoverlay is Karpenter's NodeOverlay (karpenter.sh/v1alpha1):
// what the API server and Karpenter's runtime validation make of one, the
// warning that Karpenter ignores overlays while its NodeOverlay feature gate
// is off (the default in v1.14), and, with the gate on, the overlays applied
// to the instance types of the NodePools by Karpenter's own controller
// (sigs.k8s.io/karpenter pkg/controllers/nodeoverlay) run in-process: weight
// order, requirements, price or priceAdjustment per offering, extended
// resources added to capacity, and the conflicts that make Karpenter set an
// overlay aside.
package nodeoverlay

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/karpenter/pkg/apis/v1alpha1"
	coreoptions "sigs.k8s.io/karpenter/pkg/operator/options"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// The kind as manifests spell it.
const (
	Kind       = "NodeOverlay"
	APIVersion = "karpenter.sh/v1alpha1"
	// FeatureGate is the Karpenter feature gate that turns overlays on
	// (FEATURE_GATES, the Helm value settings.featureGates.nodeOverlay).
	FeatureGate = "NodeOverlay"
)

// Category is the docs section of the NodeOverlay rules.
const Category = "NodeOverlay"

const source = "sigs.k8s.io/karpenter v1.14.1 pkg/apis/v1alpha1 (nodeoverlay.go, nodeoverlay_validation.go), pkg/controllers/nodeoverlay, pkg/cloudprovider/overlay (the NodeOverlay feature gate), pkg/operator/options"

var (
	// RuleGateOff: Karpenter ignores every overlay while the gate is off.
	RuleGateOff = rules.Register(rules.Rule{
		ID: "nodeoverlay-feature-gate-off", Severity: rules.Warning, Category: Category,
		Title: "Karpenter ignores NodeOverlays while its NodeOverlay feature gate is off",
		Behaviour: "NodeOverlay is alpha in Karpenter v1.14 and off by default: the controller reads overlays only when it runs with " +
			"`FEATURE_GATES=...,NodeOverlay=true` (Helm value `settings.featureGates.nodeOverlay: true`). With the gate off the API server " +
			"stores the overlay and nothing uses it: prices stay the on-demand or spot list prices and the extended resources it adds are " +
			"never offered, so pods requesting them stay pending. The provider assumes the gate off unless told: " +
			"`controller { feature_gates { node_overlay = true } }` in the provider block, `--feature-gates NodeOverlay=true` for karpenter-lint.",
		Source: source,
		Bad: `resource "karpenter_nodeoverlay" "savings_plan" {
  name             = "savings-plan"
  price_adjustment = "-30%"

  requirements {
    key      = "karpenter.sh/capacity-type"
    operator = "In"
    values   = ["on-demand"]
  }
}`,
		Good: `provider "karpenter" {
  controller {
    feature_gates { node_overlay = true } # and settings.featureGates.nodeOverlay=true in the Helm chart
  }
}

resource "karpenter_nodeoverlay" "savings_plan" {
  name             = "savings-plan"
  price_adjustment = "-30%"

  requirements {
    key      = "karpenter.sh/capacity-type"
    operator = "In"
    values   = ["on-demand"]
  }
}`,
	})
	// RuleRuntime: the API server stores it, Karpenter's runtime
	// validation refuses it.
	RuleRuntime = rules.Register(rules.Rule{
		ID: "nodeoverlay-runtime-invalid", Severity: rules.Error, Category: Category,
		Title: "Karpenter's runtime validation refuses the NodeOverlay, so it is never applied",
		Behaviour: "Karpenter validates every overlay again before it applies any (NodeOverlay.RuntimeValidate): a requirement key that is " +
			"not a qualified name (a name part over 63 characters), a label of a restricted domain that is not well known " +
			"(`karpenter.k8s.aws/ec2nodeclass`), values outside a well-known label's set (`karpenter.sh/capacity-type In [ondemand]`), or a " +
			"capacity that names cpu, memory, ephemeral-storage or pods. The API server accepted it, so `kubectl apply` succeeds; the " +
			"overlay then gets ValidationSucceeded=False (reason RuntimeValidation) and none of its price or capacity changes is made.",
		Source: source,
		Bad: `resource "karpenter_nodeoverlay" "spot_discount" {
  name             = "spot-discount"
  price_adjustment = "-10%"

  requirements {
    key      = "karpenter.sh/capacity-type"
    operator = "In"
    values   = ["Spot"]
  }
}`,
		Good: `resource "karpenter_nodeoverlay" "spot_discount" {
  name             = "spot-discount"
  price_adjustment = "-10%"

  requirements {
    key      = "karpenter.sh/capacity-type"
    operator = "In"
    values   = ["spot"]
  }
}`,
	})
)

// Decode reads a NodeOverlay from its JSON. An error means a field has the
// wrong type, which the CRD validation reports.
func Decode(raw []byte) (v1alpha1.NodeOverlay, error) {
	var o v1alpha1.NodeOverlay
	err := json.Unmarshal(raw, &o)
	return o, err
}

// GateOff is the warning that Karpenter ignores the overlay name; gateHow
// is GateHow of the caller's front end.
func GateOff(name, gateHow string) rules.Finding {
	return rules.New(RuleGateOff, rules.Path{},
		"NodeOverlay %q: Karpenter v1.14 ignores NodeOverlays unless its feature gate %s is on (off by default; Helm value "+
			"settings.featureGates.nodeOverlay=true, or FEATURE_GATES=%s=true on the controller), so its price and capacity "+
			"changes are not made and predictions leave them out. %s",
		name, FeatureGate, FeatureGate, gateHow)
}

// RuntimeFindings is Karpenter's RuntimeValidate, one finding per
// requirement or capacity entry it refuses, each at its attribute.
func RuntimeFindings(ctx context.Context, o v1alpha1.NodeOverlay) rules.Findings {
	var fs rules.Findings
	why := "Karpenter's runtime validation refuses it, so the overlay gets ValidationSucceeded=False (RuntimeValidation) and none of its changes is applied, although kubectl apply accepts it"
	for i, r := range o.Spec.Requirements {
		one := v1alpha1.NodeOverlay{Spec: v1alpha1.NodeOverlaySpec{Requirements: []v1alpha1.NodeSelectorRequirement{r}}}
		if err := one.RuntimeValidate(ctx); err != nil {
			fs = append(fs, rules.New(RuleRuntime, rules.Root("requirements").Index(i),
				"requirements[%d] (%s %s %q): %v: %s. Use a well-known label with one of its values, or a label of your own outside the karpenter.sh and karpenter.k8s.aws domains.",
				i, r.Key, r.Operator, r.Values, err, why))
		}
	}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range o.Spec.Capacity {
			if !yield(string(n)) {
				return
			}
		}
	}) {
		n := corev1.ResourceName(name)
		one := v1alpha1.NodeOverlay{Spec: v1alpha1.NodeOverlaySpec{Capacity: corev1.ResourceList{n: o.Spec.Capacity[n]}}}
		if err := one.RuntimeValidate(ctx); err != nil {
			fs = append(fs, rules.New(RuleRuntime, rules.Root("capacity").Key(name),
				"capacity %q: %v: %s. An overlay adds extended resources only (e.g. smarter-devices/fuse, hugepages-2Mi); cpu, memory, ephemeral-storage and pods come from the instance type.",
				name, err, why))
		}
	}
	return fs
}

// The front ends, for GateHow.
const (
	FrontEndProvider = ""
	FrontEndCLI      = "cli"
	FrontEndFunction = "function"
)

// GateHow is the sentence that tells a front end's user how to say the
// cluster runs with the gate on.
func GateHow(frontEnd string) string {
	switch frontEnd {
	case FrontEndCLI:
		return "If the cluster runs with the gate on, pass --feature-gates " + FeatureGate + "=true."
	case FrontEndFunction:
		return "validate_manifest cannot read the provider's controller block: if the cluster runs with the gate on, leave out the findings of rule " + RuleGateOff.ID + "."
	default:
		// The provider words its own sentence (internal/provider): no
		// Terraform name is said here.
		return "If the cluster runs with the gate on (the controller's FEATURE_GATES has " + FeatureGate + "=true), say so where these findings come from."
	}
}

// ParseFeatureGates reads Karpenter's --feature-gates value
// ("NodeOverlay=true,SpotToSpotConsolidation=false") with Karpenter's own
// parser, over its defaults. Karpenter ignores a gate name it does not know;
// here it is an error naming the gates, since a misspelt gate is a gate
// left at its default.
func ParseFeatureGates(s string) (coreoptions.FeatureGates, error) {
	gates, err := coreoptions.ParseFeatureGates(s)
	if err != nil {
		return gates, fmt.Errorf("--feature-gates %q: %w", s, err)
	}
	known := []string{"NodeRepair", "ReservedCapacity", "SpotToSpotConsolidation", "NodeOverlay", "StaticCapacity", "CapacityBuffer"}
	for _, kv := range strings.Split(s, ",") {
		name, _, _ := strings.Cut(strings.TrimSpace(kv), "=")
		if name != "" && !slices.Contains(known, name) {
			return gates, fmt.Errorf("--feature-gates %q: unknown feature gate %q; Karpenter v1.14's gates are %s", s, name, strings.Join(known, ", "))
		}
	}
	return gates, nil
}
