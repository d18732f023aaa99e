package provider

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
)

func taintObj(t *testing.T, key, value, effect *string) attr.Value {
	t.Helper()
	s := func(p *string) types.String {
		if p == nil {
			return types.StringNull()
		}
		return types.StringValue(*p)
	}
	o, diags := types.ObjectValue(taintObjectType.AttrTypes, map[string]attr.Value{"key": s(key), "value": s(value), "effect": s(effect)})
	if diags.HasError() {
		t.Fatal(diags)
	}
	return o
}

func sp(s string) *string { return &s }

func runTaintsArg(t *testing.T, elems ...attr.Value) (string, *function.FuncError) {
	t.Helper()
	list := types.ListNull(taintObjectType)
	if elems != nil {
		var diags diag.Diagnostics
		if list, diags = types.ListValue(taintObjectType, elems); diags.HasError() {
			t.Fatal(diags)
		}
	}
	resp := &function.RunResponse{Result: function.NewResultData(types.StringUnknown())}
	NewTaintsArgFunction().Run(context.Background(), function.RunRequest{Arguments: function.NewArgumentsData([]attr.Value{list})}, resp)
	if resp.Error != nil {
		return "", resp.Error
	}
	return resp.Result.Value().(types.String).ValueString(), nil
}

func TestTaintsArgRun(t *testing.T) {
	got, err := runTaintsArg(t,
		taintObj(t, sp("k1"), sp("v1"), sp("NoSchedule")),
		taintObj(t, sp("k2"), nil, sp("NoExecute")),
		taintObj(t, sp("example.com/k3"), sp(""), sp("PreferNoSchedule")))
	if err != nil {
		t.Fatal(err)
	}
	if want := "--register-with-taints=k1=v1:NoSchedule,k2:NoExecute,example.com/k3:PreferNoSchedule"; got != want {
		t.Fatalf("got %q want %q", got, want)
	}
	if got, err := runTaintsArg(t); err != nil || got != "" {
		t.Fatalf("null list: %q %v", got, err)
	}
	for name, c := range map[string]struct {
		elems []attr.Value
		want  []string
	}{
		"value with slash": {[]attr.Value{taintObj(t, sp("ok"), nil, sp("NoSchedule")), taintObj(t, sp("team"), sp("a/b"), sp("NoSchedule"))},
			[]string{`taints[1].value "a/b"`, "kubelet rejects", "no `/`"}},
		"hostile value":  {[]attr.Value{taintObj(t, sp("k"), sp("$(reboot)"), sp("NoSchedule"))}, []string{`taints[0].value "$(reboot)"`}},
		"missing effect": {[]attr.Value{taintObj(t, sp("k"), nil, nil)}, []string{"taints[0].effect", "required"}},
		"bad effect":     {[]attr.Value{taintObj(t, sp("k"), nil, sp("Schedule"))}, []string{`taints[0].effect "Schedule"`, "NoExecute"}},
		"bad key":        {[]attr.Value{taintObj(t, sp("-k"), nil, sp("NoSchedule"))}, []string{`taints[0].key "-k"`, "qualified name"}},
		"duplicate":      {[]attr.Value{taintObj(t, sp("k"), sp("a"), sp("NoSchedule")), taintObj(t, sp("k"), sp("b"), sp("NoSchedule"))}, []string{"taints[1]", "unique by key and effect"}},
		"null element":   {[]attr.Value{types.ObjectNull(taintObjectType.AttrTypes)}, []string{"taints[0] is null"}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := runTaintsArg(t, c.elems...)
			if err == nil {
				t.Fatal("no error")
			}
			if err.FunctionArgument == nil || *err.FunctionArgument != 0 {
				t.Fatalf("not an argument error: %v", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Text, w) {
					t.Errorf("error %q lacks %q", err.Text, w)
				}
			}
		})
	}
}

func TestAccTaintsArg(t *testing.T) {
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		// Failing steps first: the test destroys with the last step's configuration.
		Steps: []resource.TestStep{
			{
				Config: `
output "bad" {
  value = provider::karpenter::taints_arg([{ key = "team", value = "a/b", effect = "NoSchedule" }])
}
`,
				ExpectError: regexp.MustCompile(`taints\[0\]\.value "a/b"`),
			},
			{
				Config: `
output "bad" {
  value = provider::karpenter::taints_arg([{ key = "team", value = null, effect = "NoExecut" }])
}
`,
				ExpectError: regexp.MustCompile(`unsupported taint effect`),
			},
			{
				Config: `
variable "taints" {
  type = list(object({ key = string, value = optional(string), effect = string }))
  default = [
    { key = "dedicated", value = "gpu", effect = "NoSchedule" },
    { key = "karpenter.sh/unregistered", effect = "NoExecute" },
  ]
}
output "arg" {
  value = provider::karpenter::taints_arg(var.taints)
}
output "empty" {
  value = provider::karpenter::taints_arg([])
}
output "extra_args" {
  value = "--kubelet-extra-args '${provider::karpenter::taints_arg([{ key = "k", value = null, effect = "NoExecute" }])}'"
}
`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownOutputValue("arg", knownvalue.StringExact("--register-with-taints=dedicated=gpu:NoSchedule,karpenter.sh/unregistered:NoExecute")),
					statecheck.ExpectKnownOutputValue("empty", knownvalue.StringExact("")),
					statecheck.ExpectKnownOutputValue("extra_args", knownvalue.StringExact("--kubelet-extra-args '--register-with-taints=k:NoExecute'")),
				},
			},
		},
	})
}
