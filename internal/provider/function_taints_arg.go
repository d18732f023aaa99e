package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/taints"
)

var _ function.Function = (*taintsArgFunction)(nil)

// NewTaintsArgFunction is the factory of taints_arg.
func NewTaintsArgFunction() function.Function { return &taintsArgFunction{} }

type taintsArgFunction struct{}

var taintObjectType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"key": types.StringType, "value": types.StringType, "effect": types.StringType,
}}

func (f *taintsArgFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "taints_arg"
}

func (f *taintsArgFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "The kubelet --register-with-taints flag for a list of taints",
		MarkdownDescription: "Returns `--register-with-taints=k1=v1:NoSchedule,k2:NoExecute`: each taint as Kubernetes prints it " +
			"(`key=value:effect`, or `key:effect` when `value` is null or empty), joined by `,` without spaces, ready for " +
			"`--kubelet-extra-args '...'` or a NodeConfig `kubelet.flags` entry. Every taint is checked with the kubelet's and the API " +
			"server's rules first (key a qualified name, value a label value of at most 63 characters without `/`, effect one of " +
			"NoSchedule, PreferNoSchedule, NoExecute, no two taints with the same key and effect); a taint they would reject is an " +
			"argument error naming the element. A null or empty list returns `\"\"`. Objects must have all three attributes: write " +
			"`value = null` for a taint without value (a variable typed `list(object({key=string, value=optional(string), " +
			"effect=string}))` does that for you).",
		Parameters: []function.Parameter{
			function.ListParameter{
				Name: "taints", ElementType: taintObjectType, AllowNullValue: true,
				Description: "Taints as `{key, value, effect}` objects; `value` may be null.",
			},
		},
		Return: function.StringReturn{},
	}
}

type taintArgModel struct {
	Key    types.String `tfsdk:"key"`
	Value  types.String `tfsdk:"value"`
	Effect types.String `tfsdk:"effect"`
}

func (f *taintsArgFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var list types.List
	resp.Error = function.ConcatFuncErrors(resp.Error, req.Arguments.Get(ctx, &list))
	if resp.Error != nil {
		return
	}
	if list.IsNull() || len(list.Elements()) == 0 {
		resp.Error = function.ConcatFuncErrors(resp.Error, resp.Result.Set(ctx, ""))
		return
	}
	var elems []types.Object
	if diags := list.ElementsAs(ctx, &elems, false); diags.HasError() {
		resp.Error = function.FuncErrorFromDiags(ctx, diags)
		return
	}
	ts, problems := taintsFromObjects(ctx, elems)
	if len(problems) > 0 {
		resp.Error = function.NewArgumentFuncError(0, strings.Join(problems, "\n"))
		return
	}
	resp.Error = function.ConcatFuncErrors(resp.Error, resp.Result.Set(ctx, "--register-with-taints="+taints.Join(ts)))
}

// taintsFromObjects converts and validates the list; a problem names the
// element, the value, why the kubelet rejects it and the fix.
func taintsFromObjects(ctx context.Context, elems []types.Object) ([]taints.Taint, []string) {
	var ts []taints.Taint
	var problems []string
	for i, o := range elems {
		if o.IsNull() {
			problems = append(problems, fmt.Sprintf("taints[%d] is null; give an object {key, value, effect} or remove the element.", i))
			continue
		}
		var m taintArgModel
		if diags := o.As(ctx, &m, basetypes.ObjectAsOptions{}); diags.HasError() {
			problems = append(problems, fmt.Sprintf("taints[%d]: %v", i, diags))
			continue
		}
		t := taints.Taint{Key: m.Key.ValueString(), Value: m.Value.ValueString(), Effect: m.Effect.ValueString()}
		for _, fe := range t.Validate() {
			problems = append(problems, fmt.Sprintf("taints[%d].%s %q: %s. The kubelet rejects --register-with-taints with such a taint "+
				"(or the API server rejects the Node) and the node never registers. Fix: %s", i, fe.Field, fe.Value, fe.Reason, taintFieldFix(fe.Field)))
		}
		ts = append(ts, t)
	}
	for _, i := range taints.Duplicates(ts) {
		problems = append(problems, fmt.Sprintf("taints[%d] %q repeats the key and effect of an earlier taint; the API server rejects the Node "+
			"(\"taints must be unique by key and effect pair\"). Fix: remove one of them.", i, ts[i].String()))
	}
	return ts, problems
}

func taintFieldFix(field string) string {
	switch field {
	case "key":
		return "use a qualified name, e.g. \"example.com/dedicated\" (optional DNS prefix, `/`, then up to 63 letters, digits, `-`, `_`, `.`, alphanumeric at both ends)."
	case "value":
		return "use a label value (at most 63 letters, digits, `-`, `_`, `.`, alphanumeric at both ends, no `/`), or null for no value."
	}
	return "set effect to \"NoSchedule\", \"PreferNoSchedule\" or \"NoExecute\"."
}
