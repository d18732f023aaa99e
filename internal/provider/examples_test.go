package provider

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
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
					Config:             prov + string(src),
					PlanOnly:           true,
					ExpectNonEmptyPlan: strings.Contains(f, "/resources/") || strings.Contains(string(src), "output "),
				}},
			})
		})
	}
}
