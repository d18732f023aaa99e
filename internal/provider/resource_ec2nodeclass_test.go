package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
)

// classHCL is a valid class; extra lines go inside the resource block.
func classHCL(name, extra string) string {
	return `
resource "karpenter_ec2nodeclass" "` + name + `" {
  name = "` + name + `"
  role = "KarpenterNodeRole-demo"
  subnet_selector_terms { tags = { "karpenter.sh/discovery" = "demo" } }
  security_group_selector_terms { tags = { "karpenter.sh/discovery" = "demo" } }
` + extra + `
}
`
}

func TestAccEC2NodeClassPlanIsKnown(t *testing.T) {
	prov := emulatorProvider(t, `cluster { name = "demo" }`)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				// role from a resource created in the same run: unknown at plan.
				Config: prov + `
resource "terraform_data" "role" { input = "KarpenterNodeRole-demo" }
resource "karpenter_ec2nodeclass" "x" {
  name = "default"
  role = terraform_data.role.output
  ami_selector_terms { alias = "al2023@v20251209" }
  subnet_selector_terms { tags = { "karpenter.sh/discovery" = "demo" } }
  security_group_selector_terms { tags = { "karpenter.sh/discovery" = "demo" } }
}`,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue("karpenter_ec2nodeclass.x", tfjsonpath.New("node_class").AtMapKey("ami_family"), knownvalue.StringExact("AL2023")),
					plancheck.ExpectKnownValue("karpenter_ec2nodeclass.x", tfjsonpath.New("node_class").AtMapKey("amis"), knownvalue.MapSizeExact(5)),
					plancheck.ExpectKnownValue("karpenter_ec2nodeclass.x", tfjsonpath.New("amis"), knownvalue.MapSizeExact(5)),
					plancheck.ExpectUnknownValue("karpenter_ec2nodeclass.x", tfjsonpath.New("manifest")),
				}},
			},
			{
				Config: prov + classHCL("default", `  ami_selector_terms { alias = "al2023@v20251209" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue("karpenter_ec2nodeclass.default", tfjsonpath.New("manifest"), knownvalue.StringRegexp(regexp.MustCompile(`(?s)apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata:\n  name: default\nspec:\n  amiSelectorTerms:\n  - alias: al2023@v20251209\n`))),
				}},
			},
		},
	})
}

func TestAccEC2NodeClassErrors(t *testing.T) {
	prov := emulatorProvider(t, `cluster { name = "demo" }`)
	cases := map[string]struct {
		extra string
		want  *regexp.Regexp
	}{
		"alias":        {`ami_selector_terms { alias = "al2023@v20251209@x" }`, wrapped("alias-multiple-at")},
		"pending only": {"ami_family = \"AL2023\"\n  ami_selector_terms { name = \"team-gpu-node-*\" }", wrapped("ami-not-available", awsemu.CustomGPUPendingOnlyID)},
		"block device": {"ami_family = \"AL2023\"\n  ami_selector_terms { name = \"team-eks-node-al2023-x86_64-*\" }", wrapped("block-device-smaller-than-snapshot", "smaller than snapshot")},
		"userData vs image": {`ami_family = "AL2023"
  ami_selector_terms {
    name  = "bottlerocket-aws-k8s-1.32-x86_64-*"
    owner = "amazon"
  }
  block_device_mappings {
    device_name = "/dev/xvda"
    ebs { volume_size = "20Gi" }
  }`, wrapped("image-family-mismatch")},
		"custom no taint":    {"ami_family = \"Custom\"\n  ami_selector_terms { alias = \"al2023@latest\" }\n  user_data = \"apiVersion: node.eks.aws/v1alpha1\\nkind: NodeConfig\\nspec:\\n  cluster:\\n    name: demo\\n\"", wrapped("unregistered-taint-missing")},
		"custom no userData": {"ami_family = \"Custom\"\n  ami_selector_terms { alias = \"al2023@latest\" }", wrapped("custom-user-data-missing")},
		"selector tags":      {"ami_family = \"AL2023\"\n  ami_selector_terms { tags = { team = \"\" } }", wrapped("ami-term-tags-invalid", `To match any value of the tag write "team" = "*"`)},
		// Custom userData reaches the alias's images unchanged: a script on
		// Bottlerocket images never runs, whatever ami_family says.
		"custom shell on bottlerocket": {"ami_family = \"Custom\"\n  ami_selector_terms { alias = \"bottlerocket@latest\" }\n  user_data = \"#!/bin/bash\\n/etc/eks/bootstrap.sh demo --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\\n\"",
			wrapped("image-family-mismatch", "settings TOML")},
		// The provider's cluster is demo; the call asks for my-cluster.
		"custom other cluster": {"ami_family = \"Custom\"\n  ami_selector_terms { id = \"" + awsemu.CustomTieWinnerID + "\" }\n  user_data = \"#!/bin/bash\\n/etc/eks/bootstrap.sh my-cluster --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\\n\"",
			wrapped("custom-bootstrap-other-cluster", `cluster "demo"`)},
		// At plan the error names the family the selected images have.
		"family missing": {`ami_selector_terms {
    name  = "bottlerocket-aws-k8s-1.32-x86_64-*"
    owner = "amazon"
  }`, wrapped("ami-family-required", "select Bottlerocket images:", `Write ami_family = "Bottlerocket".`)},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps:                    []resource.TestStep{{Config: prov + classHCL("x", "  "+c.extra), PlanOnly: true, ExpectError: c.want}},
			})
		})
	}
}

// A fact of node_class whose input is only known at apply is planned
// unknown, and only that fact: the images stay known for the pools'
// cross-checks, and the apply does not contradict the plan ("Provider
// produced inconsistent final plan" when a null or empty value was planned).
func TestAccEC2NodeClassUnknownFactsStayUnknown(t *testing.T) {
	prov := emulatorProvider(t, `cluster { name = "demo" }`)
	nc := func(attr string) tfjsonpath.Path { return tfjsonpath.New("node_class").AtMapKey(attr) }
	const sel = `
  ami_selector_terms { alias = "al2023@v20251209" }
  subnet_selector_terms { tags = { "karpenter.sh/discovery" = "demo" } }
  security_group_selector_terms { tags = { "karpenter.sh/discovery" = "demo" } }`
	customUserData := `#!/bin/bash
/etc/eks/bootstrap.sh demo --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute,example.com/gpu:NoSchedule'
`
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: prov + `
resource "terraform_data" "user_data" { input = "#!/bin/bash\necho hello\n" }
resource "terraform_data" "max_pods" { input = 58 }
resource "karpenter_ec2nodeclass" "x" {
  name      = "default"
  role      = "KarpenterNodeRole-demo"
  user_data = terraform_data.user_data.output
  kubelet { max_pods = terraform_data.max_pods.output }` + sel + `
}`,
			// node_class carries nothing of userData or kubelet (the
			// manifest does), so all of it is known at plan.
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectUnknownValue("karpenter_ec2nodeclass.x", tfjsonpath.New("manifest")),
				plancheck.ExpectKnownValue("karpenter_ec2nodeclass.x", nc("name"), knownvalue.StringExact("default")),
				plancheck.ExpectKnownValue("karpenter_ec2nodeclass.x", nc("ami_family"), knownvalue.StringExact("AL2023")),
				plancheck.ExpectKnownValue("karpenter_ec2nodeclass.x", nc("amis"), knownvalue.MapSizeExact(5)),
				plancheck.ExpectKnownValue("karpenter_ec2nodeclass.x", nc("registered_taints"), knownvalue.Null()),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("karpenter_ec2nodeclass.x", tfjsonpath.New("manifest"),
					knownvalue.StringRegexp(regexp.MustCompile(`(?s)kubelet:\n    maxPods: 58\n.*userData: \|\n    #!/bin/bash\n    echo hello\n`))),
			},
		}, {
			// A Custom class whose userData and name come from other
			// resources: the pool waits for them instead of failing on an
			// empty name or an empty list of registered taints.
			Config: prov + fmt.Sprintf(`
resource "terraform_data" "user_data" { input = %q }
resource "terraform_data" "name" { input = "custom" }
resource "karpenter_ec2nodeclass" "x" {
  name       = terraform_data.name.output
  role       = "KarpenterNodeRole-demo"
  ami_family = "Custom"
  user_data  = terraform_data.user_data.output`+strings.Replace(sel, "al2023@v20251209", "al2@v20251209", 1)+`
}
resource "karpenter_nodepool" "p" {
  name       = "gpu"
  node_class = karpenter_ec2nodeclass.x.node_class
  startup_taints {
    key    = "example.com/gpu"
    effect = "NoSchedule"
  }
}`, customUserData),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectUnknownValue("karpenter_ec2nodeclass.x", nc("name")),
				plancheck.ExpectUnknownValue("karpenter_ec2nodeclass.x", nc("registered_taints")),
				plancheck.ExpectKnownValue("karpenter_ec2nodeclass.x", nc("ami_family"), knownvalue.StringExact("Custom")),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("karpenter_ec2nodeclass.x", nc("registered_taints"), knownvalue.ListSizeExact(2)),
				statecheck.ExpectKnownValue("karpenter_nodepool.p", tfjsonpath.New("manifest"), knownvalue.StringRegexp(regexp.MustCompile(`name: custom`))),
			},
		}, {
			// bootstrap renders user_data, but a user_data from another
			// resource might turn out set (a conflict found at apply): the
			// plan keeps it unknown rather than contradict the configuration.
			Config: prov + `
resource "terraform_data" "user_data" { input = null }
resource "karpenter_ec2nodeclass" "x" {
  name       = "rendered"
  role       = "KarpenterNodeRole-demo"
  ami_family = "Custom"
  user_data  = terraform_data.user_data.output
  bootstrap { format = "nodeadm" }` + sel + `
}`,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectUnknownValue("karpenter_ec2nodeclass.x", tfjsonpath.New("user_data")),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("karpenter_ec2nodeclass.x", tfjsonpath.New("user_data"), knownvalue.StringRegexp(regexp.MustCompile(`kind: NodeConfig`))),
			},
		}},
	})
	// The other way round: a literal user_data next to a bootstrap block
	// whose arguments are known only at apply. A block is either written or
	// not: HCL gives even a dynamic bootstrap over an unknown collection as
	// a present block with unknown arguments, so the conflict is certain and
	// validate reports it. (Plan-only: a failed validate leaves nothing to
	// destroy.)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: prov + fmt.Sprintf(`
resource "terraform_data" "bootstrap" { input = ["nodeadm"] }
resource "karpenter_ec2nodeclass" "x" {
  name       = "rendered"
  role       = "KarpenterNodeRole-demo"
  ami_family = "Custom"
  user_data  = %q
  dynamic "bootstrap" {
    for_each = terraform_data.bootstrap.output
    content { format = bootstrap.value }
  }`+strings.Replace(sel, "al2023@v20251209", "al2@v20251209", 1)+`
}`, customUserData),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`would be replaced`),
		}},
	})
}
