package provider

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// providerNamesFile lists the words only a Terraform user knows, for
// karpenter-lint's language test (TestRuleExamplesSpeakYAML), which cannot
// import this package: its rules would join the catalogue it lists.
var providerNamesFile = filepath.Join("..", "cmd", "karpenter-lint", "testdata", "provider-names.txt")

// The names file is the provider's schemas' snake_case names: every
// attribute and block of the provider, its resources and data sources
// (nested attributes and object types too), the resource and data source
// types and the functions. Karpenter's fields are camelCase, so none of
// these is one of them. UPDATE_PROVIDER_NAMES=1 rewrites the file.
func TestProviderNamesFile(t *testing.T) {
	want := strings.Join(schemaNames(t), "\n") + "\n"
	if os.Getenv("UPDATE_PROVIDER_NAMES") == "1" {
		if err := os.WriteFile(providerNamesFile, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(providerNamesFile)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%s is not the schemas' names: run UPDATE_PROVIDER_NAMES=1 go test ./internal/provider/ -run TestProviderNamesFile", providerNamesFile)
	}
}

// schemaNames are the snake_case names of the provider's schemas as
// Terraform reads them, sorted.
func schemaNames(t *testing.T) []string {
	t.Helper()
	server, err := providerserver.NewProtocol6WithError(New("test")())()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := server.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil || len(resp.Diagnostics) > 0 {
		t.Fatalf("provider schema: %v %v", err, resp.Diagnostics)
	}
	seen := map[string]bool{}
	add := func(name string) {
		if strings.Contains(name, "_") {
			seen[name] = true
		}
	}
	var typ func(tftypes.Type)
	typ = func(ty tftypes.Type) {
		switch ty := ty.(type) {
		case tftypes.Object:
			for name, at := range ty.AttributeTypes {
				add(name)
				typ(at)
			}
		case tftypes.List:
			typ(ty.ElementType)
		case tftypes.Set:
			typ(ty.ElementType)
		case tftypes.Map:
			typ(ty.ElementType)
		}
	}
	var attrs func([]*tfprotov6.SchemaAttribute)
	attrs = func(as []*tfprotov6.SchemaAttribute) {
		for _, a := range as {
			add(a.Name)
			if a.NestedType != nil {
				attrs(a.NestedType.Attributes)
			}
			if a.Type != nil {
				typ(a.Type)
			}
		}
	}
	var block func(*tfprotov6.SchemaBlock)
	block = func(b *tfprotov6.SchemaBlock) {
		if b == nil {
			return
		}
		attrs(b.Attributes)
		for _, nb := range b.BlockTypes {
			add(nb.TypeName)
			block(nb.Block)
		}
	}
	block(resp.Provider.Block)
	for name, s := range resp.ResourceSchemas {
		add(name)
		block(s.Block)
	}
	for name, s := range resp.DataSourceSchemas {
		add(name)
		block(s.Block)
	}
	for name := range resp.Functions {
		add(name)
	}
	names := make([]string, 0, len(seen))
	for name := range seen {
		names = append(names, name)
	}
	slices.Sort(names)
	if len(names) < 100 || !seen["karpenter_version"] || !seen["image_gc_high_threshold_percent"] || !seen["karpenter_nodepool"] {
		t.Fatalf("the walk missed the schemas: %d names", len(names))
	}
	return names
}
