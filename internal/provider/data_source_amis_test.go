package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
)

// emulatorWithStats starts the emulator and returns the provider block that
// points at it (static test credentials in the environment, no retries so
// request counts are exact) and the emulator, for request counting.
func emulatorWithStats(t *testing.T, extra string) (string, *awsemu.Server) {
	t.Helper()
	url, srv := awsemutest.Start(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	return emulatorProviderHCL(url, extra), srv
}

// emulatorProviderHCL is the provider block for the emulator at url, with
// no retries, so request counts are exact; extra goes inside the block.
func emulatorProviderHCL(url, extra string) string {
	return fmt.Sprintf(`
provider "karpenter" {
  region      = "us-east-1"
  max_retries = 0
  %s
  endpoints {
    ec2 = %[2]q
    ssm = %[2]q
    eks = %[2]q
    sts = %[2]q
    iam = %[2]q
  }
}
`, extra, url)
}

func TestAccAMIsDataSource(t *testing.T) {
	prov := emulatorProvider(t, `cluster { name = "demo" }`)
	amiPath := func(key, attr string) tfjsonpath.Path { return tfjsonpath.New("amis").AtMapKey(key).AtMapKey(attr) }
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				// Literal mistakes fail terraform validate, without AWS.
				Config: prov + `
data "karpenter_amis" "x" {
  ami_selector_terms { alias = "al2023@v20251209@x" }
}`,
				ExpectError: regexp.MustCompile(`alias-multiple-at`),
			},
			{
				Config: prov + `
data "karpenter_amis" "x" {
  ami_selector_terms { alias = "al2023@latest" }
  ami_selector_terms { name = "x" }
}`,
				ExpectError: regexp.MustCompile(`ami-term-alias-exclusive`),
			},
			{
				Config: prov + `
data "karpenter_amis" "x" {
  ami_selector_terms { name = "team-gpu-node-*" }
}`,
				ExpectError: wrapped("ami-not-available", awsemu.CustomGPUPendingOnlyID+" ("+awsemu.CustomGPUPendingOnlyName+") is pending; Karpenter ignores images until they are available"),
			},
			{
				Config: prov + `data "karpenter_amis" "x" {
  ami_selector_terms { alias = "al2@latest" }
  kubernetes_version = "1.33"
}`,
				ExpectError: wrapped("alias-al2-unsupported-kubernetes", "AL2 aliases are no longer supported on EKS 1.33+"),
			},
			{
				Config: prov + `
data "karpenter_amis" "x" {
  ami_selector_terms { alias = "al2023@v20200101" }
}`,
				ExpectError: wrapped("alias-not-published", "Releases published for Kubernetes 1.32: v20251112, v20251209"),
			},
			{
				Config: prov + `
data "karpenter_amis" "al2023" {
  ami_selector_terms { alias = "al2023@latest" }
}
data "karpenter_amis" "team" {
  ami_family = "AL2023"
  ami_selector_terms {
    name  = "team-eks-node-al2023-x86_64-*"
    owner = "self"
  }
}`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.karpenter_amis.al2023", tfjsonpath.New("amis"), knownvalue.MapExact(map[string]knownvalue.Check{
						// Keyed as the class's images: architecture/variant.
						"amd64/standard": knownvalue.ObjectPartial(map[string]knownvalue.Check{"architecture": knownvalue.StringExact("amd64"), "variant": knownvalue.StringExact("standard")}),
						"amd64/nvidia":   knownvalue.ObjectPartial(map[string]knownvalue.Check{"architecture": knownvalue.StringExact("amd64"), "variant": knownvalue.StringExact("nvidia")}),
						"amd64/neuron":   knownvalue.ObjectPartial(map[string]knownvalue.Check{"architecture": knownvalue.StringExact("amd64"), "variant": knownvalue.StringExact("neuron")}),
						"arm64/standard": knownvalue.ObjectPartial(map[string]knownvalue.Check{"architecture": knownvalue.StringExact("arm64"), "variant": knownvalue.StringExact("standard")}),
						"arm64/nvidia":   knownvalue.ObjectPartial(map[string]knownvalue.Check{"architecture": knownvalue.StringExact("arm64"), "variant": knownvalue.StringExact("nvidia")}),
					})),
					statecheck.ExpectKnownValue("data.karpenter_amis.al2023", tfjsonpath.New("kubernetes_version"), knownvalue.StringExact("1.32")),
					statecheck.ExpectKnownValue("data.karpenter_amis.al2023", tfjsonpath.New("ami_family"), knownvalue.StringExact("AL2023")),
					statecheck.ExpectKnownValue("data.karpenter_amis.al2023", amiPath("arm64/nvidia", "requirements").AtSliceIndex(0), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"key": knownvalue.StringExact("kubernetes.io/arch"), "operator": knownvalue.StringExact("In"), "values": knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("arm64")}),
					})),
					statecheck.ExpectKnownValue("data.karpenter_amis.team", tfjsonpath.New("amis"), knownvalue.MapExact(map[string]knownvalue.Check{
						// Non-alias images are keyed by architecture only.
						"arm64": knownvalue.ObjectPartial(map[string]knownvalue.Check{"id": knownvalue.StringExact(awsemu.CustomArchLiarID), "architecture": knownvalue.StringExact("arm64"), "variant": knownvalue.StringExact("")}),
						"amd64": knownvalue.ObjectPartial(map[string]knownvalue.Check{"id": knownvalue.StringExact(awsemu.CustomTieWinnerID), "architecture": knownvalue.StringExact("amd64")}),
					})),
					statecheck.ExpectKnownValue("data.karpenter_amis.team", tfjsonpath.New("skipped"), knownvalue.MapPartial(map[string]knownvalue.Check{
						// Keyed by image id.
						awsemu.CustomPendingID: knownvalue.ObjectExact(map[string]knownvalue.Check{
							"name":   knownvalue.StringExact(awsemu.CustomPendingName),
							"state":  knownvalue.StringExact("pending"),
							"reason": knownvalue.StringExact("state is pending; Karpenter ignores images until they are available (wait for the build to finish)"),
						}),
						awsemu.CustomDisabledID: knownvalue.ObjectPartial(map[string]knownvalue.Check{
							"state": knownvalue.StringExact("disabled"),
						}),
					})),
				},
			},
		},
	})
}

func TestAccAMIDataSource(t *testing.T) {
	prov := emulatorProvider(t, `cluster { name = "demo" }`)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: prov + `
data "karpenter_ami" "x" {
  ami_selector_terms { alias = "al2023@latest" }
}`,
				ExpectError: regexp.MustCompile(`(?s)instance_type.*architecture`),
			},
			{
				// Seed 000: arm64 GPU on AL2.
				Config: prov + `data "karpenter_ami" "x" {
  ami_selector_terms { alias = "al2@latest" }
  instance_type = "g5g.xlarge"
}`,
				ExpectError: wrapped("arm64-gpu-no-image", `instance_type = "g5g.xlarge"`, "AL2 publishes no arm64 NVIDIA image; g5g.xlarge (arm64, 1 NVIDIA t4g) cannot start with alias al2@latest", `Use "al2023@latest"`, `"bottlerocket@latest" (aws-k8s-1.32-nvidia, arm64)`),
			},
			{
				Config: prov + `data "karpenter_ami" "x" {
  ami_selector_terms { alias = "al2023@latest" }
  instance_type = "g5g.medium"
}`,
				ExpectError: wrapped("instance-type-invalid", `family g5g has no size "medium"`),
			},
			{
				Config: prov + `
data "karpenter_ami" "g5g" {
  ami_selector_terms { alias = "al2023@latest" }
  instance_type = "g5g.xlarge"
}
data "karpenter_ami" "inf2" {
  ami_selector_terms { alias = "al2023@latest" }
  instance_type = "inf2.xlarge"
}
data "karpenter_ami" "arm" {
  ami_selector_terms { alias = "bottlerocket@1.49.0" }
  architecture = "arm64"
  accelerator  = "nvidia"
}
data "karpenter_ami" "custom" {
  ami_family = "AL2023"
  ami_selector_terms { tags = { "karpenter.sh/discovery" = "demo" } }
  instance_type = "m6g.large"
}`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.karpenter_ami.g5g", tfjsonpath.New("name"), knownvalue.StringExact("amazon-eks-node-al2023-arm64-nvidia-1.32-v20251209")),
					statecheck.ExpectKnownValue("data.karpenter_ami.g5g", tfjsonpath.New("variant"), knownvalue.StringExact("nvidia")),
					statecheck.ExpectKnownValue("data.karpenter_ami.g5g", tfjsonpath.New("architecture"), knownvalue.StringExact("arm64")),
					statecheck.ExpectKnownValue("data.karpenter_ami.inf2", tfjsonpath.New("name"), knownvalue.StringExact("amazon-eks-node-al2023-x86_64-neuron-1.32-v20251209")),
					statecheck.ExpectKnownValue("data.karpenter_ami.arm", tfjsonpath.New("name"), knownvalue.StringExact("bottlerocket-aws-k8s-1.32-nvidia-aarch64-v1.49.0-713f44ce")),
					statecheck.ExpectKnownValue("data.karpenter_ami.custom", tfjsonpath.New("id"), knownvalue.StringExact(awsemu.CustomArm64ID)),
					statecheck.ExpectKnownValue("data.karpenter_ami.custom", tfjsonpath.New("requirements"), knownvalue.ListSizeExact(1)),
				},
			},
		},
	})
}

// A GPU instance on images chosen by architecture only still gets an image
// (a warning, not an error, proven in a real plan by TestPlanWarnings, since
// plugin-testing does not expose warnings): the newest amd64 one.
func TestAccAMIDataSourceGPUOnCustomImagesGetsTheArchitecturesImage(t *testing.T) {
	prov := emulatorProvider(t, `cluster { name = "demo" }`)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: prov + `data "karpenter_ami" "x" {
  ami_family = "AL2023"
  ami_selector_terms { tags = { "karpenter.sh/discovery" = "demo" } }
  instance_type = "g5.xlarge"
}`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.karpenter_ami.x", tfjsonpath.New("id"), knownvalue.StringExact(awsemu.CustomTieWinnerID)),
			},
		}},
	})
}

func TestAccAMIRequestEconomy(t *testing.T) {
	prov, srv := emulatorWithStats(t, `cluster { name = "demo" }`)
	var b strings.Builder
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&b, "data \"karpenter_amis\" \"a%d\" {\n  ami_selector_terms { alias = \"al2023@latest\" }\n}\n", i)
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: prov + b.String(),
		}},
	})
	// The test reads each data source in plan, apply and refresh: every
	// one of those runs in a fresh provider process with a fresh cache, so
	// count per process: one SSM batch and one DescribeImages each.
	st := srv.Stats()
	runs := st["eks:DescribeCluster"] // one per process that resolved an alias
	if runs == 0 || st["ssm:GetParameters"] != runs || st["ec2:DescribeImages"] != runs {
		t.Fatalf("50 data sources with one alias, %d provider processes: %v", runs, st)
	}
}

func TestAccAMISSMParametersFunction(t *testing.T) {
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		Steps: []resource.TestStep{
			{
				Config:      `output "x" { value = provider::karpenter::ami_ssm_parameters("al2@latest", "1.33") }`,
				ExpectError: wrapped("AL2 aliases are no longer supported on EKS 1.33+"),
			},
			{
				Config:      `output "x" { value = provider::karpenter::ami_ssm_parameters("al2023@v1@x", "1.32") }`,
				ExpectError: regexp.MustCompile(`alias-multiple-at`),
			},
			{
				Config: `output "al2" { value = provider::karpenter::ami_ssm_parameters("al2@latest", "1.32") }`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownOutputValue("al2", knownvalue.MapExact(map[string]knownvalue.Check{
						"amd64/standard": knownvalue.StringExact("/aws/service/eks/optimized-ami/1.32/amazon-linux-2/recommended/image_id"),
						"arm64/standard": knownvalue.StringExact("/aws/service/eks/optimized-ami/1.32/amazon-linux-2-arm64/recommended/image_id"),
						"amd64/nvidia":   knownvalue.StringExact("/aws/service/eks/optimized-ami/1.32/amazon-linux-2-gpu/recommended/image_id"),
						"amd64/neuron":   knownvalue.StringExact("/aws/service/eks/optimized-ami/1.32/amazon-linux-2-gpu/recommended/image_id"),
					})),
				},
			},
		},
	})
}

// A release bump keeps karpenter_amis's keys and changes only the ids and
// names under them, as for the class's amis.
func TestAccAMIsDataSourceReleaseBumpKeepsKeys(t *testing.T) {
	prov := emulatorProvider(t, `cluster { name = "demo" }`)
	step := func(release string) resource.TestStep {
		checks := map[string]knownvalue.Check{}
		for _, k := range []struct{ key, arch, variant string }{
			{"amd64/standard", "x86_64", "standard"}, {"amd64/nvidia", "x86_64", "nvidia"}, {"amd64/neuron", "x86_64", "neuron"},
			{"arm64/standard", "arm64", "standard"}, {"arm64/nvidia", "arm64", "nvidia"},
		} {
			checks[k.key] = knownvalue.ObjectPartial(map[string]knownvalue.Check{
				"name": knownvalue.StringExact("amazon-eks-node-al2023-" + k.arch + "-" + k.variant + "-1.32-" + release),
			})
		}
		return resource.TestStep{
			Config: prov + fmt.Sprintf(`
data "karpenter_amis" "pinned" {
  ami_selector_terms { alias = "al2023@%s" }
}`, release),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.karpenter_amis.pinned", tfjsonpath.New("amis"), knownvalue.MapExact(checks)),
			},
		}
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps:                    []resource.TestStep{step(awsemu.EKSReleaseOlder), step(awsemu.EKSReleaseLatest)},
	})
}
