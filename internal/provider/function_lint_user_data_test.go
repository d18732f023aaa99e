package provider

import (
	"context"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
)

func runLint(family string, ud attr.Value) (types.List, *function.FuncError) {
	resp := &function.RunResponse{Result: function.NewResultData(types.ListUnknown(findingObjectType))}
	NewLintUserDataFunction().Run(context.Background(), function.RunRequest{
		Arguments: function.NewArgumentsData([]attr.Value{types.StringValue(family), ud}),
	}, resp)
	if resp.Error != nil {
		return types.List{}, resp.Error
	}
	return resp.Result.Value().(types.List), nil
}

func TestLintUserDataRun(t *testing.T) {
	l, err := runLint("Custom", types.StringValue("#!/bin/bash\n/etc/eks/bootstrap.sh c --kubelet-extra-args='--register-with-taints=karpenter.sh/unregistered:NoExecute'\n"))
	if err != nil {
		t.Fatal(err)
	}
	var rules []string
	for _, e := range l.Elements() {
		a := e.(types.Object).Attributes()
		rules = append(rules, a["rule"].(types.String).ValueString()+"/"+a["severity"].(types.String).ValueString())
		if a["message"].(types.String).ValueString() == "" {
			t.Fatal("empty message")
		}
	}
	if len(rules) != 2 || rules[0] != "bootstrap-option-equals/error" || rules[1] != "unregistered-taint-missing/error" {
		t.Fatalf("got %v", rules)
	}
	if l, err := runLint("AL2", types.StringNull()); err != nil || len(l.Elements()) != 0 {
		t.Fatalf("null user data: %v %v", l, err)
	}
	if _, err := runLint("Ubuntu", types.StringValue("")); err == nil || err.FunctionArgument == nil || *err.FunctionArgument != 0 {
		t.Fatalf("Ubuntu accepted: %v", err)
	}
}

func TestAccLintUserData(t *testing.T) {
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		// Failing steps first: the test destroys with the last step's configuration.
		Steps: []resource.TestStep{
			{
				Config: `
output "bad" {
  value = provider::karpenter::lint_user_data("Ubuntu", "")
}
`,
				ExpectError: regexp.MustCompile(`"Ubuntu" is not an amiFamily`),
			},
			{
				Config: `
locals {
  findings = provider::karpenter::lint_user_data("Custom", <<-EOT
    #!/bin/bash
    /etc/eks/bootstrap.sh my-cluster --kubelet-extra-args='--register-with-taints="karpenter.sh/unregistered:NoExecute"'
  EOT
  )
}
output "rules" {
  value = [for f in local.findings : "${f.severity}:${f.rule}"]
}
output "clean" {
  value = provider::karpenter::lint_user_data("AL2023", "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec: {}\n")
}
resource "terraform_data" "gate" {
  input = length([for f in local.findings : f if f.severity == "error"])
}
`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownOutputValue("rules", knownvalue.ListExact([]knownvalue.Check{
						knownvalue.StringExact("error:bootstrap-option-equals"),
						knownvalue.StringExact("error:unregistered-taint-missing"),
					})),
					statecheck.ExpectKnownOutputValue("clean", knownvalue.ListSizeExact(0)),
				},
			},
		},
	})
}
