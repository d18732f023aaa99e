package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

func runValidateManifest(v attr.Value) (attr.Value, *function.FuncError) {
	resp := &function.RunResponse{Result: function.NewResultData(types.ListUnknown(manifestFindingType))}
	NewValidateManifestFunction().Run(context.Background(), function.RunRequest{
		Arguments: function.NewArgumentsData([]attr.Value{v}),
	}, resp)
	return resp.Result.Value(), resp.Error
}

func TestValidateManifestRun(t *testing.T) {
	v, err := runValidateManifest(types.StringUnknown())
	if err != nil || !v.IsUnknown() {
		t.Fatalf("unknown manifest: %v %v", v, err)
	}
	v, err = runValidateManifest(types.StringValue("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: x\nspec:\n  weight: 0\n  template:\n    spec:\n      requirements: []\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: x}\n---\napiVersion: karpenter.sh/v1beta1\nkind: NodePool\n"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range v.(types.List).Elements() {
		a := e.(types.Object).Attributes()
		id := a["rule"].(types.String).ValueString()
		if rules.Lookup(id) == nil || a["message"].(types.String).ValueString() == "" {
			t.Errorf("finding %v: rule outside the catalogue or no message", a)
		}
		got = append(got, fmt.Sprintf("%s %s %s %s %q %d:%d", a["severity"].(types.String).ValueString(), id, a["object"].(types.String).ValueString(),
			a["path"].(types.String).ValueString(), a["file"].(types.String).ValueString(), a["line"].(types.Int64).ValueInt64(), a["column"].(types.Int64).ValueInt64()))
	}
	want := `error nodepool-weight-out-of-range NodePool/x spec.weight "" 6:3,error manifest-api-version-unsupported NodePool apiVersion "" 12:1`
	if strings.Join(got, ",") != want {
		t.Fatalf("got %v", got)
	}
	if v, err := runValidateManifest(types.StringValue("")); err != nil || len(v.(types.List).Elements()) != 0 {
		t.Fatalf("empty manifest: %v %v", v, err)
	}
}

// A NodePool and an EC2NodeClass as kept in a repository: g5g (arm64 GPU)
// on an AL2 class, and a misspelled minValues.
const badManifests = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: gpu
spec:
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: al2
      requirements:
        - key: karpenter.k8s.aws/instance-family
          operator: In
          values: ["g5g"]
          minValue: 1
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: al2
spec:
  role: KarpenterNodeRole-demo
  amiSelectorTerms:
    - alias: al2@v20251209
  subnetSelectorTerms:
    - tags:
        karpenter.sh/discovery: demo
  securityGroupSelectorTerms:
    - tags:
        karpenter.sh/discovery: demo
`

func TestAccValidateManifest(t *testing.T) {
	withoutAWS(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bad.yaml"), []byte(badManifests), 0o600); err != nil {
		t.Fatal(err)
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		Steps: []resource.TestStep{
			{
				// A precondition on the findings fails the plan.
				Config: fmt.Sprintf(`
locals {
  findings = provider::karpenter::validate_manifest(file(%q))
}
resource "terraform_data" "gate" {
  lifecycle {
    precondition {
      condition     = length(local.findings) == 0
      error_message = join("\n", [for f in local.findings : "${f.path}: ${f.rule}"])
    }
  }
}
`, filepath.Join(dir, "bad.yaml")),
				ExpectError: regexp.MustCompile(`spec\.template\.spec\.requirements\[0\]\.values: arm64-gpu-no-image`),
			},
			{
				Config: fmt.Sprintf(`
locals {
  findings = provider::karpenter::validate_manifest(file(%q))
}
output "bad" {
  value = [for f in local.findings : "${f.severity} ${f.line}:${f.column} ${f.object} ${f.path}: ${f.rule}"]
}
output "good_json" {
  # A NodePool written as an HCL object: JSON is YAML.
  value = provider::karpenter::validate_manifest(jsonencode({
    apiVersion = "karpenter.sh/v1"
    kind       = "NodePool"
    metadata   = { name = "json" }
    spec = {
      limits = { cpu = 1000 }
      template = {
        spec = {
          nodeClassRef = { group = "karpenter.k8s.aws", kind = "EC2NodeClass", name = "default" }
          requirements = [{ key = "karpenter.k8s.aws/instance-category", operator = "In", values = ["c", "m"] }]
        }
      }
    }
  }))
}
output "one_document" {
  value = [for f in provider::karpenter::validate_manifest(<<-EOT
    apiVersion: karpenter.k8s.aws/v1
    kind: EC2NodeClass
    metadata:
      name: default
    spec:
      role: KarpenterNodeRole-demo
      amiSelectorTerms:
        - alias: al2023@latest
        - name: my-image-*
      subnetSelectorTerms:
        - tags:
            karpenter.sh/discovery: demo
      securityGroupSelectorTerms:
        - tags:
            karpenter.sh/discovery: demo
  EOT
  ) : "${f.path}: ${f.rule}"]
}
resource "terraform_data" "later" {
  input = "apiVersion: karpenter.sh/v1\nkind: NodePool\n"
}
output "unknown" {
  value = provider::karpenter::validate_manifest(terraform_data.later.output)
}
`, filepath.Join(dir, "bad.yaml")),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectUnknownOutputValue("unknown"),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownOutputValue("bad", knownvalue.ListExact([]knownvalue.Check{
						knownvalue.StringExact("error 15:11 NodePool/gpu spec.template.spec.requirements[0].values: arm64-gpu-no-image"),
						knownvalue.StringExact("error 16:11 NodePool/gpu spec.template.spec.requirements[0].minValue: manifest-unknown-field"),
					})),
					statecheck.ExpectKnownOutputValue("good_json", knownvalue.ListSizeExact(0)),
					statecheck.ExpectKnownOutputValue("one_document", knownvalue.ListExact([]knownvalue.Check{
						knownvalue.StringExact("spec.amiSelectorTerms: ami-term-alias-exclusive"),
					})),
				},
			},
		},
	})
}

// guideBlocks returns the ```terraform blocks of the manifests guide.
func guideBlocks(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../../templates/guides/validating-manifests.md.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, part := range strings.Split(string(b), "```terraform\n")[1:] {
		block, _, ok := strings.Cut(part, "```")
		if !ok {
			t.Fatal("unterminated block")
		}
		out = append(out, block)
	}
	if len(out) != 4 {
		t.Fatalf("the guide has %d terraform blocks, the test knows 4", len(out))
	}
	for i, src := range out {
		if _, diags := hclsyntax.ParseConfig([]byte(src), "guide.tf", hcl.InitialPos); diags.HasErrors() {
			t.Errorf("block %d is not HCL: %v", i, diags)
		}
		if got := string(hclwrite.Format([]byte(src))); got != src {
			t.Errorf("block %d is not terraform fmt clean:\n%s", i, got)
		}
	}
	return out
}

// manifestDir writes fixtures of internal/manifestcheck into a directory
// laid out as the guide's karpenter/ directory.
func manifestDir(t *testing.T, fixtures ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range fixtures {
		b, err := os.ReadFile(filepath.Join("../manifestcheck/testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// The guide's recipe, planned over translations of Karpenter's published
// examples (good) and with mistakes added (bad), with either gate: each
// finding is printed once, names its file, line and object, and a pool is
// cross-checked with a class of another file.
func TestValidateManifestGuideRecipe(t *testing.T) {
	withoutAWS(t)
	blocks := guideBlocks(t)
	good := manifestDir(t, "good/general-purpose.yaml", "good/spot-min-values.yaml", "good/bottlerocket.yaml",
		"good/windows-2022.yaml", "good/lifetime-limits-budgets.yaml", "good/general-purpose.json", "good/with-other-kinds.yaml",
		"good/custom-family-registers-taint.yaml", "good/kubelet-and-tags.yaml", "good/al2023-nodeconfig-userdata.yaml")
	bad := manifestDir(t, "good/general-purpose.yaml", "bad/unknown-field-min-value.yaml", "bad/nodepool-mistakes.yaml")
	// A g5g pool in one file, its AL2 class in another.
	for name, doc := range map[string]string{"pools/gpu.yaml": strings.SplitN(badManifests, "---\n", 2)[0], "classes/al2.yaml": strings.SplitN(badManifests, "---\n", 2)[1]} {
		if err := os.MkdirAll(filepath.Join(bad, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(bad, name), []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	config := func(dir string, blocks ...string) string {
		return strings.ReplaceAll(strings.Join(blocks, "\n"), `"${path.module}/karpenter"`, fmt.Sprintf("%q", dir))
	}
	want := []string{
		"bad/unknown-field-min-value.yaml:21:11: NodePool/spot spec.template.spec.requirements[1].minValue: manifest-unknown-field: ",
		"bad/nodepool-mistakes.yaml:42:9: NodePool/mistakes spec.disruption.budgets[0].nodes: nodepool-budget-nodes-invalid: ",
		"pools/gpu.yaml:15:11: NodePool/gpu spec.template.spec.requirements[0].values: arm64-gpu-no-image: ",
		"pools/gpu.yaml:16:11: NodePool/gpu spec.template.spec.requirements[0].minValue: manifest-unknown-field: ",
	}
	for _, tc := range []struct {
		name, gate, severity, summary string
	}{
		{"check block", blocks[1], "warning", "Check block assertion failed"},
		{"precondition", blocks[2], "error", "Resource precondition failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			diags := terraformDiagnostics(t, config(bad, blocks[0], tc.gate), "plan", "-json")
			var all []string
			for _, d := range diags {
				all = append(all, d.Severity+" "+d.Summary+": "+d.Detail)
			}
			text := strings.Join(all, "\n")
			for _, w := range want {
				if n := strings.Count(text, w); n != 1 {
					t.Errorf("%q printed %d times in\n%s", w, n, text)
				}
			}
			if len(diags) != 1 || diags[0].Severity != tc.severity || diags[0].Summary != tc.summary {
				t.Errorf("want one %s %q, got %+v", tc.severity, tc.summary, diags)
			}
			if diags := terraformDiagnostics(t, config(good, blocks[0], tc.gate), "plan", "-json"); len(diags) != 0 {
				t.Errorf("good manifests: %+v", diags)
			}
		})
	}
}

// The docs example shows its output in a comment; it is that output.
func TestAccValidateManifestExample(t *testing.T) {
	src, err := os.ReadFile("../../examples/functions/validate_manifest/function.tf")
	if err != nil {
		t.Fatal(err)
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		Steps: []resource.TestStep{{
			Config: string(src),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("manifest_errors", knownvalue.ListExact([]knownvalue.Check{
					knownvalue.StringExact("20:5 NodePool/spot spec.disruption.consolidationPolicy: v1beta1-when-underutilized"),
					knownvalue.StringExact("18:11 NodePool/spot spec.template.spec.requirements[1].minValue: manifest-unknown-field"),
				})),
			},
		}},
	})
}

// The guide's terraform test run, with the guide's configuration, passes
// on good manifests and fails on a bad one with the finding in its message.
func TestValidateManifestGuideTerraformTest(t *testing.T) {
	withoutAWS(t)
	blocks := guideBlocks(t)
	for _, tc := range []struct {
		name      string
		fixtures  []string
		wantError string
		// mock declares mock_provider "karpenter": the guide says the
		// function still runs.
		mock bool
	}{
		{"good", []string{"good/general-purpose.yaml", "good/bottlerocket.yaml", "good/windows-2022.yaml"}, "", false},
		{"bad", []string{"good/general-purpose.yaml", "bad/unknown-field-min-value.yaml"}, "bad/unknown-field-min-value.yaml:21:11: NodePool/spot spec.template.spec.requirements[1].minValue: manifest-unknown-field", false},
		{"bad with a mock provider", []string{"bad/kind-typo.yaml"}, "bad/kind-typo.yaml:3:1: EC2Nodeclass/default kind: manifest-kind-unknown", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			manifests := manifestDir(t, tc.fixtures...)
			main := "terraform {\n  required_providers {\n    karpenter = { source = \"karpenter-tf/karpenter\" }\n  }\n}\n" +
				strings.ReplaceAll(blocks[0]+blocks[1], `"${path.module}/karpenter"`, fmt.Sprintf("%q", manifests))
			test := blocks[3]
			if tc.mock {
				test = "mock_provider \"karpenter\" {}\n\n" + test
			}
			for name, src := range map[string]string{"main.tf": main, "tests/karpenter_manifests.tftest.hcl": test} {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			// -chdir: the helper's own directory only holds its init.
			diags := terraformDiagnostics(t, "", "-chdir="+dir, "test", "-json")
			var errs []string
			for _, d := range diags {
				if d.Severity == "error" {
					errs = append(errs, d.Summary+": "+d.Detail)
				}
			}
			all := strings.Join(errs, "\n")
			switch {
			case tc.wantError == "" && len(errs) > 0:
				t.Fatalf("terraform test failed on good manifests:\n%s", all)
			case tc.wantError != "" && strings.Count(strings.Join(strings.Fields(all), " "), tc.wantError) != 1:
				t.Fatalf("terraform test did not fail with %q once; errors:\n%s\nall diagnostics: %+v", tc.wantError, all, diags)
			}
		})
	}
}
