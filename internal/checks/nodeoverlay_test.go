package checks

import (
	"context"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/crd"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodeoverlay"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// overlayCheck is what the resource runs: the CRD's findings, then the
// sequence.
func overlayCheck(ctx context.Context, obj map[string]any, gateOn bool, how string) rules.Findings {
	_, fs := crd.NodeOverlay.Findings(ctx, obj)
	return append(fs, NodeOverlay(ctx, obj, !fs.HasErrors(), OverlayFacts{GateOn: gateOn, GateHow: how})...)
}

func overlay(spec map[string]any) map[string]any {
	return map[string]any{"apiVersion": nodeoverlay.APIVersion, "kind": nodeoverlay.Kind, "metadata": map[string]any{"name": "x"}, "spec": spec}
}

func findingsAt(fs rules.Findings) map[string]string {
	out := map[string]string{}
	for _, f := range fs {
		out[f.Rule.ID+" "+f.Path.String()] = f.Detail
	}
	return out
}

// TestNodeOverlaySequence: a valid overlay is clean with the gate on and
// ignored with it off; Karpenter's runtime validation runs on what the
// API server stores, and not on what it refuses.
func TestNodeOverlaySequence(t *testing.T) {
	ctx := context.Background()
	good := overlay(map[string]any{"priceAdjustment": "-10%", "requirements": []any{map[string]any{"key": "karpenter.sh/capacity-type", "operator": "In", "values": []any{"spot"}}}})
	if fs := overlayCheck(ctx, good, true, nodeoverlay.GateHow("cli")); len(fs) != 0 {
		t.Errorf("valid overlay: %v", fs)
	}
	off := findingsAt(overlayCheck(ctx, good, false, nodeoverlay.GateHow("cli")))
	if d, ok := off["nodeoverlay-feature-gate-off "]; !ok || !strings.Contains(d, "--feature-gates NodeOverlay=true") || !strings.Contains(d, "settings.featureGates.nodeOverlay") {
		t.Errorf("gate off: %v", off)
	}
	runtime := findingsAt(overlayCheck(ctx, overlay(map[string]any{
		"requirements": []any{
			map[string]any{"key": "kubernetes.io/arch", "operator": "In", "values": []any{"arm64"}},
			map[string]any{"key": "karpenter.sh/capacity-type", "operator": "In", "values": []any{"Spot"}},
		},
	}), true, nodeoverlay.GateHow("")))
	if d, ok := runtime["nodeoverlay-runtime-invalid requirements[1]"]; !ok || !strings.Contains(d, "Spot") {
		t.Errorf("runtime: %v", runtime)
	}
	exists := []any{map[string]any{"key": "karpenter.sh/capacity-type", "operator": "Exists"}}
	both := findingsAt(overlayCheck(ctx, overlay(map[string]any{"requirements": exists, "price": "1", "priceAdjustment": "+1"}), true, ""))
	if d, ok := both["crd-validation "]; !ok || !strings.Contains(d, "cannot set both 'price' and 'priceAdjustment'") {
		t.Errorf("price and priceAdjustment: %v", both)
	}
	cpu := findingsAt(overlayCheck(ctx, overlay(map[string]any{"requirements": exists, "capacity": map[string]any{"cpu": "1"}}), true, ""))
	if _, ok := cpu["crd-validation capacity"]; !ok {
		t.Errorf("capacity cpu: %v", cpu)
	}
}
