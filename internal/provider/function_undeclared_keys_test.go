package provider

import (
	"os"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
)

// The function through Terraform: its documentation example returns what
// the example says; sets, maps and tuples are walked; an unknown input is
// an unknown answer, not a failure.
func TestAccUndeclaredKeysFunction(t *testing.T) {
	example, err := os.ReadFile("../../examples/functions/undeclared_keys/function.tf")
	if err != nil {
		t.Fatal(err)
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_9_0)},
		Steps: []resource.TestStep{
			{
				Config:   "provider \"karpenter\" {}\n" + string(example),
				PlanOnly: true, ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPreRefresh: []plancheck.PlanCheck{
					plancheck.ExpectKnownOutputValue("undeclared", strList(
						`["gpu"].familes (did you mean "families"?)`,
						`["gpu"].taints[0].efect (did you mean "effect"?)`,
					)),
				}},
			},
			{
				Config: `
provider "karpenter" {}
resource "terraform_data" "later" { input = "x" }
output "sets_and_maps" {
  value = provider::karpenter::undeclared_keys(
    { labels = tomap({ a = "b" }), zones = toset(["a"]), volumes = [{ size = 1, tpye = "gp3" }], nodes = 3 },
    { labels = null, zones = null, volumes = [{ size = null, type = null }], node = null },
  )
}
output "unknown" {
  value = provider::karpenter::undeclared_keys(terraform_data.later.output, { a = null })
}
output "nothing" {
  value = provider::karpenter::undeclared_keys(null, { a = null })
}`,
				PlanOnly: true, ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPreRefresh: []plancheck.PlanCheck{
					plancheck.ExpectKnownOutputValue("sets_and_maps", strList(
						`.nodes (did you mean "node"?)`,
						`.volumes[0].tpye (did you mean "type"?)`,
					)),
					plancheck.ExpectUnknownOutputValue("unknown"),
					plancheck.ExpectKnownOutputValue("nothing", knownvalue.ListExact(nil)),
				}},
			},
		},
	})
}
