package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
)

// Family facts as aws/karpenter-provider-aws pkg/providers/instancetype/types.go (getArchitecture, GPU and accelerator labels) derives them from DescribeInstanceTypes.
var familyTable = []struct {
	family, arch, gpu, accelerator string
}{
	{"g5g", "arm64", "nvidia", ""},
	{"g4ad", "amd64", "amd", ""},
	{"inf2", "amd64", "", "neuron"},
	{"trn1", "amd64", "", "neuron"},
	{"a1", "arm64", "", ""},
	{"t4g", "arm64", "", ""},
	{"m7i-flex", "amd64", "", ""},
	{"u7i-12tb", "amd64", "", ""},
	{"u-3tb1", "amd64", "", ""},
	{"p6e-gb200", "arm64", "nvidia", ""},
}

func runInstanceFamily(name string) (map[string]attr.Value, *function.FuncError) {
	resp := &function.RunResponse{Result: function.NewResultData(types.ObjectUnknown(instanceFamilyAttrTypes))}
	NewInstanceFamilyFunction().Run(context.Background(), function.RunRequest{Arguments: function.NewArgumentsData([]attr.Value{types.StringValue(name)})}, resp)
	if resp.Error != nil {
		return nil, resp.Error
	}
	return resp.Result.Value().(types.Object).Attributes(), nil
}

func TestInstanceFamilyRun(t *testing.T) {
	for _, c := range familyTable {
		got, err := runInstanceFamily(c.family)
		if err != nil {
			t.Errorf("%s: %v", c.family, err)
			continue
		}
		want := map[string]string{"architecture": c.arch, "gpu_manufacturer": c.gpu, "accelerator": c.accelerator}
		for k, v := range want {
			if s := got[k].(types.String).ValueString(); s != v {
				t.Errorf("%s: %s = %q, want %q", c.family, k, s, v)
			}
		}
	}
	for name, want := range map[string]string{
		"zz9":        "does not guess",
		"g5g.xlarge": `pass its family, "g5g"`,
		"mac1":       "never offers it",
	} {
		_, err := runInstanceFamily(name)
		if err == nil || err.FunctionArgument == nil || *err.FunctionArgument != 0 || !strings.Contains(err.Text, want) {
			t.Errorf("%s: %v, want an argument error mentioning %q", name, err, want)
		}
	}
}

func TestAccInstanceFamily(t *testing.T) {
	var outputs strings.Builder
	var checks []statecheck.StateCheck
	for _, c := range familyTable {
		name := strings.NewReplacer("-", "_").Replace("f_" + c.family)
		fmt.Fprintf(&outputs, "output %q {\n  value = provider::karpenter::instance_family(%q)\n}\n", name, c.family)
		checks = append(checks, statecheck.ExpectKnownOutputValue(name, knownvalue.ObjectExact(map[string]knownvalue.Check{
			"architecture":     knownvalue.StringExact(c.arch),
			"gpu_manufacturer": knownvalue.StringExact(c.gpu),
			"accelerator":      knownvalue.StringExact(c.accelerator),
		})))
	}
	fmt.Fprintf(&outputs, "output \"arm64_gpu\" {\n  value = [for f in [\"g5g\", \"g5\", \"t4g\"] : f if provider::karpenter::instance_family(f).architecture == \"arm64\" && provider::karpenter::instance_family(f).gpu_manufacturer != \"\"]\n}\n")
	checks = append(checks, statecheck.ExpectKnownOutputValue("arm64_gpu", knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("g5g")})))

	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		// Failing steps first: the test destroys with the last step's configuration.
		Steps: []resource.TestStep{
			{
				Config:      `output "x" { value = provider::karpenter::instance_family("zz9") }`,
				ExpectError: regexp.MustCompile(`"zz9" is not\s+an EC2 instance family`),
			},
			{
				Config:      `output "x" { value = provider::karpenter::instance_family("g5g.xlarge") }`,
				ExpectError: regexp.MustCompile(`pass\s+its\s+family,\s+"g5g"`),
			},
			{
				Config:            outputs.String(),
				ConfigStateChecks: checks,
			},
		},
	})
}
