package provider

import (
	"context"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/crd"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// validateAgainstCRD validates a rendered EC2NodeClass or NodePool against
// Karpenter's own CRD (defaults, pruning, OpenAPI schema, CEL), as the API
// server would on create. It runs after the provider's own rules passed, so
// it reports only what they do not cover.
func validateAgainstCRD(ctx context.Context, obj any) rules.Findings {
	m, err := manifest.Object(obj)
	if err != nil {
		// Object fails only where json.Marshal does, and both callers have
		// rendered the YAML of the same object with json.Marshal first and
		// reported that failure ("Rendering the manifest failed").
		return nil
	}
	var fs rules.Findings
	switch obj.(type) {
	case manifest.EC2NodeClass:
		_, fs = crd.ValidateEC2NodeClass(ctx, m)
	case manifest.NodePool:
		_, fs = crd.ValidateNodePool(ctx, m)
	}
	return fs
}
