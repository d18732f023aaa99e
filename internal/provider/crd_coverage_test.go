package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/crd"
)

// Every property of Karpenter v1.14.1's EC2NodeClass and NodePool CRDs has
// an attribute or block in the resource's schema, so a team using any field
// can write it. internal/crd's own walk proves the model and the path table
// cover every property (with its justified exceptions: status, the taints'
// timeAdded, apiVersion/kind); this proves the schema does.
func TestSchemaCoversEveryCRDProperty(t *testing.T) {
	for _, c := range []struct {
		name string
		kind *crd.Kind
		res  resource.Resource
	}{{"EC2NodeClass", crd.EC2NodeClass, NewEC2NodeClassResource()}, {"NodePool", crd.NodePool, NewNodePoolResource()}} {
		var resp resource.SchemaResponse
		c.res.Schema(context.Background(), resource.SchemaRequest{}, &resp)
		props, err := crd.Properties(c.kind)
		if err != nil {
			t.Fatal(err)
		}
		checked := 0
		for _, prop := range props {
			attr, ok := c.kind.TerraformAttribute(prop)
			if !ok || attr == "" {
				continue // an exception of internal/crd's walk, or a container without its own attribute (spec)
			}
			checked++
			if !schemaHas(resp.Schema.Attributes, resp.Schema.Blocks, strings.Split(attr, ".")) {
				t.Errorf("%s: CRD property %s maps to %q, which the schema does not declare", c.name, prop, attr)
			}
		}
		if checked < 25 {
			t.Errorf("%s: only %d properties checked", c.name, checked)
		}
	}
}

// schemaHas walks attribute and block names; list and single nesting add no step.
func schemaHas(attrs map[string]schema.Attribute, blocks map[string]schema.Block, steps []string) bool {
	name, rest := steps[0], steps[1:]
	if a, ok := attrs[name]; ok {
		if len(rest) == 0 {
			return true
		}
		switch a := a.(type) {
		case schema.SingleNestedAttribute:
			return schemaHas(a.Attributes, nil, rest)
		case schema.ListNestedAttribute:
			return schemaHas(a.NestedObject.Attributes, nil, rest)
		case schema.MapNestedAttribute:
			return schemaHas(a.NestedObject.Attributes, nil, rest)
		}
		return false
	}
	if b, ok := blocks[name]; ok {
		if len(rest) == 0 {
			return true
		}
		switch b := b.(type) {
		case schema.SingleNestedBlock:
			return schemaHas(b.Attributes, b.Blocks, rest)
		case schema.ListNestedBlock:
			return schemaHas(b.NestedObject.Attributes, b.NestedObject.Blocks, rest)
		}
	}
	return false
}
