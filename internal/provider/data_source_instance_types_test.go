package provider

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// offlineEnv clears what would make the provider reach for AWS.
func offlineEnv(t *testing.T) {
	for _, k := range []string{"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_EC2"} {
		t.Setenv(k, "")
	}
}

// emulatorProvider starts the emulator and returns the provider block that
// points at it, with static test credentials in the environment.
func emulatorProvider(t *testing.T, extra string) string {
	t.Helper()
	prov, _ := emulatorWithStats(t, extra)
	return prov
}

func strList(vs ...string) knownvalue.Check {
	checks := make([]knownvalue.Check, len(vs))
	for i, v := range vs {
		checks[i] = knownvalue.StringExact(v)
	}
	return knownvalue.ListExact(checks)
}

var instanceTypesData = tfjsonpath.New("instance_types")

func TestAccInstanceTypesLive(t *testing.T) {
	prov := emulatorProvider(t, "")
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		// Failing steps first: the test destroys with the last step's configuration.
		Steps: []resource.TestStep{
			{
				// CRD rule, from ValidateConfig (terraform validate).
				Config: prov + `
data "karpenter_instance_types" "x" {
  requirements {
    key      = "karpenter.k8s.aws/instance-family"
    operator = "In"
    values   = []
  }
}`,
				ExpectError: regexp.MustCompile(`requirement-in-without-values`),
			},
			{
				// Nothing in this region: the name is unknown and nothing is admitted.
				Config: prov + `
data "karpenter_instance_types" "x" {
  requirements {
    key      = "karpenter.k8s.aws/instance-family"
    operator = "In"
    values   = ["p5"]
  }
}`,
				ExpectError: regexp.MustCompile(`requirements-admit-no-instance-type`),
			},
			{
				Config: prov + `
data "karpenter_instance_types" "x" {
  requirements {
    key        = "karpenter.k8s.aws/instance-family"
    operator   = "In"
    values     = ["g5g", "g4ad"]
    min_values = 2
  }
  requirements {
    key      = "kubernetes.io/arch"
    operator = "In"
    values   = ["arm64"]
  }
}`,
				ExpectError: regexp.MustCompile(`requirement-min-values-not-satisfiable`),
			},
			{
				Config: prov + `
data "karpenter_instance_types" "arm64_gpu" {
  requirements {
    key      = "kubernetes.io/arch"
    operator = "In"
    values   = ["arm64"]
  }
  requirements {
    key      = "karpenter.k8s.aws/instance-gpu-count"
    operator = "Exists"
  }
}

data "karpenter_instance_types" "neuron" {
  requirements {
    key      = "karpenter.k8s.aws/instance-accelerator-manufacturer"
    operator = "In"
    values   = ["aws"]
  }
}

data "karpenter_instance_types" "small_graviton" {
  requirements {
    key      = "kubernetes.io/arch"
    operator = "In"
    values   = ["arm64"]
  }
  requirements {
    key      = "karpenter.k8s.aws/instance-cpu"
    operator = "Lt"
    values   = ["4"]
  }
  requirements {
    key      = "karpenter.k8s.aws/instance-hypervisor"
    operator = "In"
    values   = ["nitro"]
  }
}

data "karpenter_instance_types" "all" {}

output "small_graviton_types" {
  value = keys(data.karpenter_instance_types.small_graviton.instance_types)
}
`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.karpenter_instance_types.arm64_gpu", tfjsonpath.New("source"), knownvalue.StringExact("live")),
					statecheck.ExpectKnownValue("data.karpenter_instance_types.arm64_gpu", tfjsonpath.New("families"), strList("g5g")),
					statecheck.ExpectKnownValue("data.karpenter_instance_types.arm64_gpu", tfjsonpath.New("architectures"), strList("arm64")),
					statecheck.ExpectKnownValue("data.karpenter_instance_types.arm64_gpu", instanceTypesData, knownvalue.MapExact(map[string]knownvalue.Check{
						"g5g.xlarge": knownvalue.ObjectExact(map[string]knownvalue.Check{
							"family":       knownvalue.StringExact("g5g"),
							"architecture": knownvalue.StringExact("arm64"), "vcpu": knownvalue.Int64Exact(4), "memory_mib": knownvalue.Int64Exact(8192),
							"gpu_count": knownvalue.Int64Exact(1), "gpu_manufacturer": knownvalue.StringExact("nvidia"), "gpu_name": knownvalue.StringExact("t4g"),
							"accelerator_count": knownvalue.Int64Exact(0), "accelerator_name": knownvalue.StringExact(""),
						}),
					})),
					statecheck.ExpectKnownValue("data.karpenter_instance_types.neuron", tfjsonpath.New("families"), strList("inf1", "inf2", "trn1")),
					statecheck.ExpectKnownValue("data.karpenter_instance_types.neuron", instanceTypesData.AtMapKey("inf2.xlarge").AtMapKey("accelerator_name"), knownvalue.StringExact("inferentia2")),
					// c6g.metal has no hypervisor; the Lt 4 excludes the 4-vCPU m6g.xlarge.
					statecheck.ExpectKnownOutputValue("small_graviton_types", strList("a1.large", "c7g.large", "m6g.large", "r6g.large", "t4g.medium", "x2gd.large")),
					// mac1.metal is never offered; every other fixture is.
					statecheck.ExpectKnownValue("data.karpenter_instance_types.all", tfjsonpath.New("architectures"), strList("amd64", "arm64")),
					statecheck.ExpectKnownValue("data.karpenter_instance_types.all", instanceTypesData, knownvalue.MapSizeExact(24)),
				},
			},
		},
	})
}

// Without AWS the data source answers from the embedded family facts.
func TestAccInstanceTypesOffline(t *testing.T) {
	offlineEnv(t)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: `
data "karpenter_instance_types" "x" {
  requirements {
    key      = "karpenter.k8s.aws/instance-family"
    operator = "In"
    values   = ["g5g", "m5", "t4g"]
  }
  requirements {
    key      = "kubernetes.io/arch"
    operator = "In"
    values   = ["arm64"]
  }
}

data "karpenter_instance_types" "cpu" {
  requirements {
    key      = "karpenter.k8s.aws/instance-family"
    operator = "In"
    values   = ["m7i-flex", "u7i-12tb"]
  }
  requirements {
    key      = "karpenter.k8s.aws/instance-cpu"
    operator = "Gt"
    values   = ["4"]
  }
}
`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.karpenter_instance_types.x", tfjsonpath.New("source"), knownvalue.StringExact("embedded")),
					statecheck.ExpectKnownValue("data.karpenter_instance_types.x", tfjsonpath.New("families"), strList("g5g", "t4g")),
					statecheck.ExpectKnownValue("data.karpenter_instance_types.x", tfjsonpath.New("architectures"), strList("arm64")),
					statecheck.ExpectKnownValue("data.karpenter_instance_types.x", instanceTypesData, knownvalue.MapSizeExact(0)),
					// A per-type requirement never excludes offline.
					statecheck.ExpectKnownValue("data.karpenter_instance_types.cpu", tfjsonpath.New("families"), strList("m7i-flex", "u7i-12tb")),
				},
			},
		},
	})
}

// Karpenter version gates come from the provider configuration (Read), on
// top of what ValidateConfig checks for the default release.
func TestAccInstanceTypesVersionGates(t *testing.T) {
	prov := emulatorProvider(t, `karpenter_version = "1.8"`)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: prov + `
data "karpenter_instance_types" "x" {
  requirements {
    key      = "karpenter.k8s.aws/instance-cpu"
    operator = "Gte"
    values   = ["4"]
  }
}`,
			ExpectError: regexp.MustCompile(`requirement-gte-lte-before-1-9`),
		}},
	})
}

// readInstanceTypes calls ValidateConfig and Read directly, for what the
// acceptance harness cannot see (warnings, attribute paths).
func readInstanceTypes(t *testing.T, pd *ProviderData, cfg map[string]any) (validate, read diag.Diagnostics, state tfsdk.State) {
	t.Helper()
	ctx := context.Background()
	ds := NewInstanceTypesDataSource().(*instanceTypesDataSource)
	var sresp datasource.SchemaResponse
	ds.Schema(ctx, datasource.SchemaRequest{}, &sresp)
	typ := sresp.Schema.Type().TerraformType(ctx)
	config := tfsdk.Config{Schema: sresp.Schema, Raw: tfValue(t, typ, cfg)}
	ds.Configure(ctx, datasource.ConfigureRequest{ProviderData: pd}, &datasource.ConfigureResponse{})
	var vresp datasource.ValidateConfigResponse
	ds.ValidateConfig(ctx, datasource.ValidateConfigRequest{Config: config}, &vresp)
	rresp := datasource.ReadResponse{State: tfsdk.State{Schema: sresp.Schema, Raw: tftypes.NewValue(typ, nil)}}
	ds.Read(ctx, datasource.ReadRequest{Config: config}, &rresp)
	return vresp.Diagnostics, rresp.Diagnostics, rresp.State
}

func offlineData() *ProviderData {
	return &ProviderData{AWS: awsclient.NewCache(awsclient.NewClients(awsclient.Config{MaxRetries: -1})), Karpenter: versions.DefaultKarpenter}
}

func reqPath(i int, attr string) path.Path {
	return path.Root("requirements").AtListIndex(i).AtName(attr)
}

func req(key, op string, values ...string) map[string]any {
	m := map[string]any{"key": key, "operator": op}
	if values != nil {
		m["values"] = values
	}
	return m
}

func TestInstanceTypesDiagnostics(t *testing.T) {
	offlineEnv(t)
	cases := []struct {
		name     string
		reqs     []any
		validate []string // summaries ValidateConfig must report
		read     []string // summaries Read must report
		path     path.Path
		warning  string
	}{
		{"offline per-type label warns", []any{req("karpenter.k8s.aws/instance-memory", "Gt", "2048")},
			nil, []string{"instance-types-offline-may-match"}, reqPath(0, "key"), "may match"},
		{"unknown instance type names its sizes", []any{req("node.kubernetes.io/instance-type", "In", "g5g.medium", "g5g.xlarge")},
			nil, []string{"requirement-value-matches-no-instance-type"}, reqPath(0, "values"), "g5g comes in xlarge"},
		// Read judges the configured release on its own (Terraform never
		// reads after validate failed, so nothing prints twice).
		{"restricted key", []any{req("karpenter.sh/team", "In", "a")},
			[]string{"requirement-key-karpenter-domain"}, []string{"requirement-key-karpenter-domain"}, reqPath(0, "key"), ""},
		{"unknown values are skipped", []any{map[string]any{"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": unknown}},
			nil, nil, path.Empty(), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, r, _ := readInstanceTypes(t, offlineData(), map[string]any{"requirements": c.reqs})
			for _, pair := range []struct {
				got  diag.Diagnostics
				want []string
			}{{v, c.validate}, {r, c.read}} {
				if len(pair.got) != len(pair.want) {
					t.Fatalf("got %s\nwant %v", diagsString(pair.got), pair.want)
				}
				for i, w := range pair.want {
					d := pair.got[i]
					if !strings.HasPrefix(d.Summary(), w+":") {
						t.Errorf("got %s, want %s", d.Summary(), w)
					}
					if wp, ok := d.(diag.DiagnosticWithPath); !ok || !wp.Path().Equal(c.path) {
						t.Errorf("path %v, want %s", d, c.path)
					}
					if c.warning != "" && !strings.Contains(d.Detail(), c.warning) {
						t.Errorf("detail %q lacks %q", d.Detail(), c.warning)
					}
				}
			}
		})
	}
}

// The documentation examples run as written (offline).
func TestAccInstanceTypesExamples(t *testing.T) {
	offlineEnv(t)
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join("..", "..", "examples", p))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		Steps: []resource.TestStep{{
			Config: read("data-sources/karpenter_instance_types/data-source.tf") + read("functions/instance_family/function.tf"),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("families", strList("g5g", "p6e-gb200")),
				statecheck.ExpectKnownOutputValue("source", knownvalue.StringExact("embedded")),
				statecheck.ExpectKnownOutputValue("arm64_gpu_families", strList("g5g")),
				statecheck.ExpectKnownOutputValue("neuron_families", strList("inf2")),
			},
		}},
	})
}
