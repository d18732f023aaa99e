package provider

import (
	"context"
	"encoding/base64"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/cluster"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodepool"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// customAL2023Class selects one amd64 AL2023 image by id, with a root
// volume large enough for its snapshot.
const customAL2023Class = `  ami_family = "AL2023"
  ami_selector_terms { id = "ami-0aaf333b614a08570" }
  block_device_mappings {
    device_name = "/dev/xvda"
    root_volume = true
    ebs { volume_size = "30Gi" }
  }`

func poolHCL(name, class, extra string) string {
	return `
resource "karpenter_nodepool" "` + name + `" {
  name       = "` + name + `"
  node_class = ` + class + `
` + extra + `
}
`
}

// reqHCL is one requirements block, one argument per line.
func reqHCL(key, op string, values ...string) string {
	s := "  requirements {\n    key      = " + strconv.Quote(key) + "\n    operator = " + strconv.Quote(op) + "\n"
	if len(values) > 0 {
		quoted := make([]string, len(values))
		for i, v := range values {
			quoted[i] = strconv.Quote(v)
		}
		s += "    values   = [" + strings.Join(quoted, ", ") + "]\n"
	}
	return s + "  }\n"
}

// taintHCL is one taint block of kind (taints, startup_taints or
// register_with_taints); an empty value is left out.
func taintHCL(kind, key, value, effect string) string {
	s := "  " + kind + " {\n    key    = " + strconv.Quote(key) + "\n"
	if value != "" {
		s += "    value  = " + strconv.Quote(value) + "\n"
	}
	return s + "    effect = " + strconv.Quote(effect) + "\n  }\n"
}

func TestAccNodePoolSeeds(t *testing.T) {
	prov := emulatorProvider(t, `cluster { name = "demo" }`)
	al2 := classHCL("al2", `  ami_selector_terms { alias = "al2@latest" }`)
	al2023 := classHCL("al2023", `  ami_selector_terms { alias = "al2023@latest" }`)
	custom := classHCL("custom", customAL2023Class)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				// Seed 000: the pool admits only arm64, the class has only an amd64 image.
				Config:   prov + custom + poolHCL("arm", "karpenter_ec2nodeclass.custom.node_class", reqHCL("kubernetes.io/arch", "In", "arm64")),
				PlanOnly: true, ExpectError: wrapped("nodepool-architecture-mismatch", "no instance types satisfy requirements of amis [ami-0aaf333b614a08570]"),
			},
			{
				// Seed 000: g5g on AL2.
				Config:   prov + al2 + poolHCL("gpu", "karpenter_ec2nodeclass.al2.node_class", reqHCL("karpenter.k8s.aws/instance-family", "In", "g5g")),
				PlanOnly: true, ExpectError: wrapped("arm64-gpu-no-image", "g5g"),
			},
			{
				// A size that does not exist, with live facts.
				Config:   prov + al2023 + poolHCL("typo", "karpenter_ec2nodeclass.al2023.node_class", reqHCL("node.kubernetes.io/instance-type", "In", "g5g.medium")),
				PlanOnly: true, ExpectError: wrapped("requirement-value-matches-no-instance-type", `"g5g.medium"`),
			},
			{
				// Requirements that admit no instance type at all.
				Config:   prov + al2023 + poolHCL("none", "karpenter_ec2nodeclass.al2023.node_class", reqHCL("kubernetes.io/arch", "In", "arm64")+reqHCL("karpenter.k8s.aws/instance-gpu-manufacturer", "In", "amd")),
				PlanOnly: true, ExpectError: wrapped("requirements-admit-no-instance-type"),
			},
			{
				// Literal mistakes fail validate.
				Config:   prov + al2023 + poolHCL("bad", "karpenter_ec2nodeclass.al2023.node_class", taintHCL("taints", "gpu", "a/b", "NoSchedule")),
				PlanOnly: true, ExpectError: wrapped("nodepool-taint-invalid"),
			},
			{
				// Seed 001: which variant each family gets on al2023@latest.
				Config: prov + al2023 + poolHCL("mixed", "karpenter_ec2nodeclass.al2023.node_class", reqHCL("karpenter.k8s.aws/instance-family", "In", "m5", "m6g", "g5", "g5g", "inf2")),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue("karpenter_nodepool.mixed", tfjsonpath.New("instance_families"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.StringExact("g5"), knownvalue.StringExact("g5g"), knownvalue.StringExact("inf2"), knownvalue.StringExact("m5"), knownvalue.StringExact("m6g"),
					})),
					plancheck.ExpectKnownValue("karpenter_nodepool.mixed", tfjsonpath.New("ami_assignments"), knownvalue.MapExact(map[string]knownvalue.Check{
						"amd64/standard": assignment("amazon-eks-node-al2023-x86_64-standard-1.32-v20251209", "m5"),
						"arm64/standard": assignment("amazon-eks-node-al2023-arm64-standard-1.32-v20251209", "m6g"),
						"amd64/nvidia":   assignment("amazon-eks-node-al2023-x86_64-nvidia-1.32-v20251209", "g5"),
						"arm64/nvidia":   assignment("amazon-eks-node-al2023-arm64-nvidia-1.32-v20251209", "g5g"),
						"amd64/neuron":   assignment("amazon-eks-node-al2023-x86_64-neuron-1.32-v20251209", "inf2"),
					})),
					plancheck.ExpectKnownValue("karpenter_nodepool.mixed", tfjsonpath.New("manifest"), knownvalue.StringRegexp(regexp.MustCompile(`(?s)apiVersion: karpenter.sh/v1\nkind: NodePool\n.*nodeClassRef:\n        group: karpenter.k8s.aws\n        kind: EC2NodeClass\n        name: al2023\n`))),
				}},
			},
		},
	})
}

// assignment checks an ami_assignments line, "<id> <name>: <families>"
// (the key holds the architecture and variant).
func assignment(name string, families ...string) knownvalue.Check {
	return knownvalue.StringRegexp(regexp.MustCompile(`^ami-[0-9a-f]+ ` + regexp.QuoteMeta(name+": "+strings.Join(families, ", ")) + `$`))
}

// assignmentOf checks that an ami_assignments line names image name.
func assignmentOf(name string) knownvalue.Check {
	return knownvalue.StringRegexp(regexp.MustCompile(`^ami-[0-9a-f]+ ` + regexp.QuoteMeta(name) + `: `))
}

// A complete EKS-style stack: the role and the cluster name come from
// resources created in the same run, and the cross-checks still run.
func TestAccNodePoolStackWithUnknowns(t *testing.T) {
	prov := emulatorProvider(t, `cluster {
    name               = terraform_data.cluster.output
    kubernetes_version = "1.32"
  }`)
	stack := `
variable "pools" {
  type = list(object({ name = string, families = list(string) }))
  default = [
    { name = "general", families = ["m5", "m6g"] },
    { name = "gpu", families = ["g5"] },
    { name = "arm", families = ["m6g", "c7g"] },
  ]
}
resource "terraform_data" "cluster" { input = "demo" }
resource "terraform_data" "role" { input = "KarpenterNodeRole-demo" }
resource "karpenter_ec2nodeclass" "default" {
  name = "default"
  role = terraform_data.role.output
  ami_selector_terms { alias = "al2023@v20251209" }
  subnet_selector_terms { tags = { "karpenter.sh/discovery" = terraform_data.cluster.output } }
  security_group_selector_terms { tags = { "karpenter.sh/discovery" = terraform_data.cluster.output } }
}
resource "karpenter_nodepool" "pool" {
  count      = length(var.pools)
  name       = var.pools[count.index].name
  node_class = karpenter_ec2nodeclass.default.node_class
  requirements {
    key      = "karpenter.k8s.aws/instance-family"
    operator = "In"
    values   = var.pools[count.index].families
  }
}
resource "terraform_data" "consumer" {
  input = [for p in karpenter_nodepool.pool : p.manifest]
}
output "gpu_images" { value = karpenter_nodepool.pool[1].ami_assignments }
`
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				// A cross-check that still fails with unknown role and cluster name.
				Config:      prov + stack + poolHCL("bad", "karpenter_ec2nodeclass.default.node_class", reqHCL("karpenter.k8s.aws/instance-family", "In", "a1")),
				PlanOnly:    true,
				ExpectError: wrapped("nodepool-a1-al2023"),
			},
			{
				Config: prov + stack,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectUnknownValue("karpenter_ec2nodeclass.default", tfjsonpath.New("manifest")),
					plancheck.ExpectKnownValue("karpenter_ec2nodeclass.default", tfjsonpath.New("node_class").AtMapKey("amis"), knownvalue.MapSizeExact(5)),
					plancheck.ExpectKnownValue(`karpenter_nodepool.pool[1]`, tfjsonpath.New("ami_assignments"), knownvalue.MapExact(map[string]knownvalue.Check{
						"amd64/nvidia": assignment("amazon-eks-node-al2023-x86_64-nvidia-1.32-v20251209", "g5"),
					})),
					plancheck.ExpectKnownValue(`karpenter_nodepool.pool[0]`, tfjsonpath.New("manifest"), knownvalue.StringRegexp(regexp.MustCompile(`name: general`))),
					plancheck.ExpectKnownOutputValue("gpu_images", knownvalue.MapSizeExact(1)),
				}},
			},
		},
	})
}

// The whole cluster is created in the same run: its name and Kubernetes
// version are unknown at plan, so the class's images and the pool's facts
// are too. The plan defers them and the apply must be consistent with it.
func TestAccNodePoolClusterCreatedInTheSameRun(t *testing.T) {
	prov := emulatorProvider(t, `cluster {
    name               = terraform_data.cluster.output.name
    kubernetes_version = terraform_data.cluster.output.version
  }`)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: prov + `
resource "terraform_data" "cluster" { input = { name = "demo", version = "1.32" } }
` + classHCL("default", `  ami_selector_terms { alias = "al2023@v20251209" }`) +
				poolHCL("general", "karpenter_ec2nodeclass.default.node_class", reqHCL("karpenter.k8s.aws/instance-family", "In", "m5", "g5")),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectUnknownValue("karpenter_ec2nodeclass.default", tfjsonpath.New("node_class")),
				plancheck.ExpectUnknownValue("karpenter_nodepool.general", tfjsonpath.New("ami_assignments")),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("karpenter_nodepool.general", tfjsonpath.New("ami_assignments"), knownvalue.MapSizeExact(2)),
			},
		}},
	})
}

// The pool's plan renders the userData of its nodes and reports what would
// keep them from joining (nodepool.PreviewFor's findings), though it no
// longer prints that userData: here a CA bundle that is not base64, as
// eks:DescribeCluster could answer it (the provider's cluster block refuses
// one, so the facts are set directly).
func TestPoolPlanChecksItsNodesUserData(t *testing.T) {
	url, _ := awsemutest.Start(t)
	awsemutest.Setenv(t, url)
	ctx := context.Background()
	pd := &ProviderData{
		AWS:       awsclient.NewCache(awsclient.NewClients(awsclient.Config{Region: "us-east-1", MaxRetries: 1})),
		Karpenter: versions.DefaultKarpenter,
		Cluster: cluster.Settings{Name: "demo", KubernetesVersion: "1.32", Endpoint: "https://5E4A1C7B0D9F2E3A6B8C4D1E7F0A2B3C.gr7.us-east-1.eks.amazonaws.com",
			ServiceCIDR: "172.20.0.0/16", ClusterDNS: "172.20.0.10"},
	}
	var np manifest.NodePool
	np.Metadata.Name = "general"
	np.Spec.Template.Spec.NodeClassRef = nodepool.NodeClassRef(nil, nil, "default")
	np.Spec.Template.Spec.Requirements = []manifest.Requirement{{Key: "karpenter.k8s.aws/instance-family", Operator: "In", Values: []string{"m5"}}}
	p := nodepool.Pool{Manifest: np, Class: nodepool.ClassFacts{Known: true, Family: amifamily.AL2023}}
	cat, err := instancetype.Load(ctx, pd.AWS)
	if err != nil {
		t.Fatal(err)
	}
	check := func(ca string) diag.Diagnostics {
		pd.Cluster.CertificateAuthority = ca
		var diags diag.Diagnostics
		(&nodePoolResource{}).checkUserData(ctx, pd, p, nodepool.Check(p, cat, pd.Karpenter), &diags)
		return diags
	}
	diags := check("not-base64")
	if len(diags) != 1 || diags[0].Severity() != diag.SeverityWarning || !strings.HasPrefix(diags[0].Summary(), "cluster-ca-not-base64:") ||
		!strings.Contains(diags[0].Detail(), "the userData of this pool's nodes would not render") {
		t.Fatalf("want one cluster-ca-not-base64 warning, got %v", diags)
	}
	if diags := check(base64.StdEncoding.EncodeToString([]byte("-----BEGIN CERTIFICATE-----\n"))); len(diags) != 0 {
		t.Fatalf("a base64 CA bundle: %v", diags)
	}
}

// A pool's node_class is sensitive only to keep the class's images and
// zones out of every pool's plan text: the JSON plan, which policy tools
// read, still carries the value, the class's own node_class is not
// sensitive (a module may output it as is), and an output of a pool's
// node_class must say sensitive = true.
func TestAccNodePoolNodeClassIsSensitive(t *testing.T) {
	prov := emulatorProvider(t, `cluster { name = "demo" }`)
	config := prov + classHCL("default", `  ami_selector_terms { alias = "al2023@v20251209" }`) +
		poolHCL("x", "karpenter_ec2nodeclass.default.node_class", reqHCL("kubernetes.io/arch", "In", "amd64")) + `
output "class" { value = karpenter_ec2nodeclass.default.node_class }
`
	const pool = "karpenter_nodepool.x"
	image := knownvalue.StringRegexp(regexp.MustCompile(`^ami-[0-9a-f]+ \| amazon-eks-node-al2023-x86_64-standard-1\.32-v20251209 \| `))
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectSensitiveValue(pool, tfjsonpath.New("node_class")),
					plancheck.ExpectKnownValue(pool, tfjsonpath.New("node_class").AtMapKey("amis").AtMapKey("amd64/standard"), image),
					plancheck.ExpectKnownValue(pool, tfjsonpath.New("node_class").AtMapKey("name"), knownvalue.StringExact("default")),
					notSensitive("karpenter_ec2nodeclass.default", "node_class"),
					plancheck.ExpectKnownOutputValueAtPath("class", tfjsonpath.New("amis").AtMapKey("amd64/standard"), image),
				}},
			},
			{
				Config:      config + "output \"pool\" { value = karpenter_nodepool.x.node_class.name }\n",
				ExpectError: regexp.MustCompile(`Output refers to sensitive values`),
			},
			{
				Config: config + "output \"pool\" {\n  value     = karpenter_nodepool.x.node_class.name\n  sensitive = true\n}\n",
			},
		},
	})
}

// notSensitive fails when the planned value of the resource's attribute is
// marked sensitive.
func notSensitive(addr, attr string) plancheck.PlanCheck { return notSensitiveCheck{addr, attr} }

type notSensitiveCheck struct{ addr, attr string }

func (c notSensitiveCheck) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address != c.addr {
			continue
		}
		if m, ok := rc.Change.AfterSensitive.(map[string]any); ok && anySensitive(m[c.attr]) {
			resp.Error = fmt.Errorf("%s.%s is sensitive in the plan: %v", c.addr, c.attr, m[c.attr])
		}
		return
	}
	resp.Error = fmt.Errorf("no planned change of %s", c.addr)
}

// anySensitive reads a plan's after_sensitive: true, or a structure of the
// value's shape with true where a part is sensitive.
func anySensitive(v any) bool {
	switch v := v.(type) {
	case bool:
		return v
	case map[string]any:
		for _, e := range v {
			if anySensitive(e) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if anySensitive(e) {
				return true
			}
		}
	}
	return false
}
