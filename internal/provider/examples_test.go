package provider

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
)

// TestAccExamples plans every documentation example against the emulator,
// so the docs cannot show a configuration that does not work.
func TestAccExamples(t *testing.T) {
	files, err := filepath.Glob("../../examples/*/*/*.tf")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples found: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimPrefix(f, "../../examples/"), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			prov := emulatorProvider(t, `cluster { name = "demo" }`)
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
				Steps: []resource.TestStep{{
					Config:             prov + inDemoAccount(string(src)),
					PlanOnly:           true,
					ExpectNonEmptyPlan: strings.Contains(f, "/resources/") || strings.Contains(string(src), "output "),
				}},
			})
		})
	}
}

// TestAccDemoExamples plans what `make demo` plans, as written (provider
// block included, the emulator through AWS_ENDPOINT_URL as the demo sets
// it): the quickstart plans, the failing example fails with its rule.
func TestAccDemoExamples(t *testing.T) {
	url, _ := awsemutest.Start(t)
	awsemutest.Setenv(t, url)
	t.Setenv("TF_ACC_PROVIDER_NAMESPACE", "karpenter-tf")
	read := func(name string) string {
		src, err := os.ReadFile(filepath.Join("../../examples", name, "main.tf"))
		if err != nil {
			t.Fatal(err)
		}
		return string(src)
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		Steps: []resource.TestStep{{
			Config:             read("quickstart"),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		}, {
			Config:      read("failing"),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`arm64-gpu-no-image: the AMI family has no arm64 GPU image`),
		}},
	})
}
