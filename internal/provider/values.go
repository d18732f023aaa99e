package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// knownString returns the value of a known, non-null string.
func knownString(v attr.Value) (string, bool) {
	s, ok := v.(types.String)
	if !ok || s.IsNull() || s.IsUnknown() {
		return "", false
	}
	return s.ValueString(), true
}

// stringAttr converts an object attribute to types.String; a missing
// attribute is null.
func stringAttr(v attr.Value) types.String {
	if s, ok := v.(types.String); ok {
		return s
	}
	return types.StringNull()
}

// knownAttrs returns the attributes of a known, non-null object.
func knownAttrs(o types.Object) (map[string]attr.Value, bool) {
	if o.IsNull() || o.IsUnknown() {
		return nil, false
	}
	return o.Attributes(), true
}

// knownStrings converts a list of strings; ok is false when the list or an
// element is unknown. A null list is an empty, known list.
func knownStrings(l types.List) ([]string, bool) {
	if l.IsUnknown() {
		return nil, false
	}
	if l.IsNull() {
		return nil, true
	}
	out := make([]string, 0, len(l.Elements()))
	for _, e := range l.Elements() {
		if e.IsUnknown() {
			return nil, false
		}
		if s, ok := e.(types.String); ok && !s.IsNull() {
			out = append(out, s.ValueString())
		}
	}
	return out, true
}

// parseKubernetes validates a Kubernetes version attribute.
func parseKubernetes(s string) (versions.Kubernetes, error) { return versions.ParseKubernetes(s) }

// configuredDataSource holds the provider's data for a data source that
// embeds it, and is its Configure. ProviderData is nil during validate
// and without a provider configuration; the data sources then use the
// defaults (providerDataOrDefault).
type configuredDataSource struct{ data *ProviderData }

func (c *configuredDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, _ *datasource.ConfigureResponse) {
	if pd, ok := req.ProviderData.(*ProviderData); ok {
		c.data = pd
	}
}
