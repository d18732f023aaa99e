package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodepool"
)

// `labels = {}` renders no empty template metadata.
func TestEmptyLabelsRenderNoTemplateMetadata(t *testing.T) {
	m := nodePoolModel{
		Name:        types.StringValue("x"),
		Labels:      types.MapValueMust(types.StringType, nil),
		Annotations: types.MapNull(types.StringType),
	}
	p, _ := poolFromModel(m)
	y, err := manifest.YAML(nodepool.Object(p))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(y, "metadata: {}") {
		t.Fatalf("empty template metadata rendered:\n%s", y)
	}
}
