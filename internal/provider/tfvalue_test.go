package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// unknown marks a value as unknown in the map form of a configuration.
var unknown = struct{ unknown bool }{true}

// tfValue builds a tftypes.Value of type typ from a Go value: nil is null,
// `unknown` is unknown, maps fill objects (missing attributes are null) and
// maps, slices fill lists and sets. Blocks are values of the same types: a
// list of blocks is a list of objects, a single block an object; an absent
// one is null, which is also what the framework makes of the empty list
// Terraform sends for no blocks (fwschemadata.NullifyCollectionBlocks).
func tfValue(t testing.TB, typ tftypes.Type, v any) tftypes.Value {
	t.Helper()
	if v == nil {
		return tftypes.NewValue(typ, nil)
	}
	if v == unknown {
		return tftypes.NewValue(typ, tftypes.UnknownValue)
	}
	switch typ := typ.(type) {
	case tftypes.Object:
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("object needs map[string]any, got %T", v)
		}
		vals := map[string]tftypes.Value{}
		for name, at := range typ.AttributeTypes {
			vals[name] = tfValue(t, at, m[name])
		}
		for name := range m {
			if _, ok := typ.AttributeTypes[name]; !ok {
				t.Fatalf("no attribute %q in %s", name, typ)
			}
		}
		return tftypes.NewValue(typ, vals)
	case tftypes.Map:
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("map needs map[string]any, got %T", v)
		}
		vals := map[string]tftypes.Value{}
		for k, e := range m {
			vals[k] = tfValue(t, typ.ElementType, e)
		}
		return tftypes.NewValue(typ, vals)
	case tftypes.List:
		return tftypes.NewValue(typ, tfElems(t, typ.ElementType, v))
	case tftypes.Set:
		return tftypes.NewValue(typ, tfElems(t, typ.ElementType, v))
	}
	switch {
	case typ.Is(tftypes.String):
		return tftypes.NewValue(typ, v.(string))
	case typ.Is(tftypes.Bool):
		return tftypes.NewValue(typ, v.(bool))
	case typ.Is(tftypes.Number):
		switch n := v.(type) {
		case int:
			return tftypes.NewValue(typ, int64(n))
		case float64:
			return tftypes.NewValue(typ, n)
		}
	}
	t.Fatalf("cannot build %s from %T", typ, v)
	return tftypes.Value{}
}

func tfElems(t testing.TB, et tftypes.Type, v any) []tftypes.Value {
	t.Helper()
	var out []tftypes.Value
	switch s := v.(type) {
	case []any:
		for _, e := range s {
			out = append(out, tfValue(t, et, e))
		}
	case []string:
		for _, e := range s {
			out = append(out, tfValue(t, et, e))
		}
	default:
		t.Fatalf("list needs a slice, got %T", v)
	}
	return out
}

func providerConfig(t *testing.T, cfg map[string]any) tfsdk.Config {
	t.Helper()
	p := New("test")()
	var sresp provider.SchemaResponse
	p.Schema(context.Background(), provider.SchemaRequest{}, &sresp)
	typ := sresp.Schema.Type().TerraformType(context.Background())
	var raw tftypes.Value
	if cfg == nil {
		raw = tftypes.NewValue(typ, nil)
	} else {
		raw = tfValue(t, typ, cfg)
	}
	return tfsdk.Config{Schema: sresp.Schema, Raw: raw}
}

func validateProviderConfig(t *testing.T, cfg map[string]any) diag.Diagnostics {
	t.Helper()
	p := New("test")().(*karpenterProvider)
	var resp provider.ValidateConfigResponse
	p.ValidateConfig(context.Background(), provider.ValidateConfigRequest{Config: providerConfig(t, cfg)}, &resp)
	return resp.Diagnostics
}

func configureProvider(t *testing.T, cfg map[string]any) (*ProviderData, diag.Diagnostics) {
	t.Helper()
	p := New("test")()
	var resp provider.ConfigureResponse
	p.Configure(context.Background(), provider.ConfigureRequest{Config: providerConfig(t, cfg)}, &resp)
	data, _ := resp.ResourceData.(*ProviderData)
	return data, resp.Diagnostics
}

func diagsContain(diags diag.Diagnostics, s string) bool {
	for _, d := range diags {
		if strings.Contains(d.Summary()+" "+d.Detail(), s) {
			return true
		}
	}
	return false
}

func diagsString(diags diag.Diagnostics) string {
	var b strings.Builder
	for _, d := range diags {
		fmt.Fprintf(&b, "[%s] %s: %s\n", d.Severity(), d.Summary(), d.Detail())
	}
	return b.String()
}

// wrapped matches text as Terraform prints it in a diagnostic: literally,
// except that any run of spaces may have become a line break.
func wrapped(parts ...string) *regexp.Regexp {
	quoted := make([]string, len(parts))
	for i, p := range parts {
		quoted[i] = strings.Join(strings.Fields(regexp.QuoteMeta(p)), `\s+`)
	}
	return regexp.MustCompile(`(?s)` + strings.Join(quoted, `.*`))
}
