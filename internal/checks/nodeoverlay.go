package checks

import (
	"context"
	"encoding/json"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodeoverlay"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// OverlayFacts are what a NodeOverlay's checks use besides the overlay.
type OverlayFacts struct {
	// GateOn says the cluster runs Karpenter with the NodeOverlay feature
	// gate on; GateHow is nodeoverlay.GateHow of the front end, which says
	// how to tell it so.
	GateOn  bool
	GateHow string
}

// NodeOverlay is what Karpenter makes of an overlay as written (obj as JSON
// decodes it), after the API server's schema and CEL rules, whose findings
// the front end reports in its own paths (stored says none of them is an
// error): for an object the server would store, Karpenter's runtime
// validation at the requirement or capacity it refuses, then, with the gate
// off, that Karpenter ignores it.
func NodeOverlay(ctx context.Context, obj map[string]any, stored bool, f OverlayFacts) rules.Findings {
	var fs rules.Findings
	if stored {
		if raw, err := json.Marshal(obj); err == nil {
			if o, err := nodeoverlay.Decode(raw); err == nil {
				fs = append(fs, nodeoverlay.RuntimeFindings(ctx, o)...)
			}
		}
	}
	if !f.GateOn {
		name := ""
		if md, ok := obj["metadata"].(map[string]any); ok {
			name, _ = md["name"].(string)
		}
		fs = append(fs, nodeoverlay.GateOff(name, f.GateHow))
	}
	return fs
}
