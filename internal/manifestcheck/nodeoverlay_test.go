package manifestcheck

import (
	"context"
	"os"
	"strings"
	"testing"

	coreoptions "sigs.k8s.io/karpenter/pkg/operator/options"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodeoverlay"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// With the gate on, a valid overlay has no finding; with it off, the
// warning says how the front end turns it on.
func TestNodeOverlayGate(t *testing.T) {
	b, err := os.ReadFile("testdata/good/nodeoverlay-savings-plan.yaml")
	if err != nil {
		t.Fatal(err)
	}
	in := []Input{{Name: "overlays.yaml", Text: string(b)}}
	on := Run(context.Background(), in, Options{Karpenter: versions.DefaultKarpenter, FeatureGates: coreoptions.FeatureGates{NodeOverlay: true}})
	if len(on.Findings) != 0 {
		t.Errorf("gate on: %v", on.Findings)
	}
	for _, d := range on.Documents {
		if !d.Checked {
			t.Errorf("%s not checked", d.Object())
		}
	}
	off := Run(context.Background(), in, Options{Karpenter: versions.DefaultKarpenter, GateHow: nodeoverlay.GateHow(nodeoverlay.FrontEndCLI)})
	if len(off.Findings) != 2 {
		t.Fatalf("gate off: %v", off.Findings)
	}
	for _, f := range off.Findings {
		if f.Rule != nodeoverlay.RuleGateOff || !strings.Contains(f.Message, "--feature-gates NodeOverlay=true") {
			t.Errorf("gate off: %v", f)
		}
	}
	if fs := check(string(b)); len(fs) != 2 || !strings.Contains(fs[0].Message, "validate_manifest cannot read") {
		t.Errorf("validate_manifest: %v", fs)
	}
}
