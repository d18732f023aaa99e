package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/suggest"
)

var _ function.Function = (*undeclaredKeysFunction)(nil)

// NewUndeclaredKeysFunction is the factory of undeclared_keys.
func NewUndeclaredKeysFunction() function.Function { return &undeclaredKeysFunction{} }

type undeclaredKeysFunction struct{}

func (f *undeclaredKeysFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "undeclared_keys"
}

func (f *undeclaredKeysFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "The keys of a module input that its shape does not declare, with the key each one most likely meant",
		MarkdownDescription: "Terraform converts a value to an `object(...)` type constraint by dropping every attribute the type " +
			"does not declare, without an error ([hashicorp/terraform#29204](https://github.com/hashicorp/terraform/issues/29204)): " +
			"a module input `pools = { gpu = { familes = [\"g5\"] } }` loses `familes`, and the pool admits every instance family. " +
			"Declare such an input `type = any` and check it with this function in a `validation` block: the error then names " +
			"the key at the caller's line, with a \"did you mean\". Returns, sorted, one string per key of `value` that `shape` " +
			"does not declare, as its path in `value` and the declared key it is closest to: `[\"gpu\"].familes (did you mean " +
			"\"families\"?)`, or the keys declared there when none is close. `shape` mirrors the input: an object lists the keys " +
			"allowed, each with the shape of its value; an object with the single key `\"*\"` is a map whose values all have the " +
			"shape under it (pools keyed by name); a list of one element is a list whose elements all have that shape; any " +
			"other value (`\"\"`, `0`, `null`) is a leaf whose content is not looked into. Where `value` and `shape` differ in " +
			"kind nothing is reported (a type error is the module's to catch). Unknown parts of `value` are skipped; an unknown " +
			"`value` returns an unknown list, checked again at plan.",
		Parameters: []function.Parameter{
			function.DynamicParameter{
				Name: "value", AllowNullValue: true, AllowUnknownValues: true,
				Description: "The input to check, e.g. `var.pools`.",
			},
			function.DynamicParameter{
				Name:        "shape",
				Description: "The keys the input may have, as described above.",
			},
		},
		Return: function.ListReturn{ElementType: types.StringType},
	}
}

func (f *undeclaredKeysFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var value, shape types.Dynamic
	resp.Error = function.ConcatFuncErrors(resp.Error, req.Arguments.Get(ctx, &value, &shape))
	if resp.Error != nil {
		return
	}
	if value.IsUnknown() || value.IsUnderlyingValueUnknown() {
		resp.Error = function.ConcatFuncErrors(resp.Error, resp.Result.Set(ctx, types.ListUnknown(types.StringType)))
		return
	}
	found := []string{}
	for _, u := range suggest.UndeclaredKeys(plainValue(value.UnderlyingValue()), plainValue(shape.UnderlyingValue())) {
		found = append(found, u.String())
	}
	resp.Error = function.ConcatFuncErrors(resp.Error, resp.Result.Set(ctx, found))
}

// plainValue is a Terraform value as JSON would decode it: objects and
// maps as map[string]any, lists, sets and tuples as []any, and every other
// known value as itself; null and unknown values are nil.
func plainValue(v attr.Value) any {
	if v == nil || v.IsNull() || v.IsUnknown() {
		return nil
	}
	elems := func(es []attr.Value) []any {
		out := make([]any, len(es))
		for i, e := range es {
			out[i] = plainValue(e)
		}
		return out
	}
	fields := func(m map[string]attr.Value) map[string]any {
		out := make(map[string]any, len(m))
		for k, e := range m {
			out[k] = plainValue(e)
		}
		return out
	}
	switch x := v.(type) {
	case basetypes.DynamicValue:
		return plainValue(x.UnderlyingValue())
	case basetypes.ObjectValue:
		return fields(x.Attributes())
	case basetypes.MapValue:
		return fields(x.Elements())
	case basetypes.ListValue:
		return elems(x.Elements())
	case basetypes.SetValue:
		return elems(x.Elements())
	case basetypes.TupleValue:
		return elems(x.Elements())
	}
	return v
}
