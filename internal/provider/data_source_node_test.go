package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/node"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// nodePoolYAML is a NodePool on EC2NodeClass "default" with extra
// spec.template.spec lines.
func nodePoolYAML(name, spec string) string {
	if !strings.Contains(spec, "requirements:") { // the CRD requires them
		spec = "      requirements: []\n" + spec
	}
	return `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: ` + name + `
spec:
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
` + spec
}

// nodeClassYAML is EC2NodeClass "default" in the emulator's account with
// the alias and extra spec lines.
func nodeClassYAML(alias, spec string) string {
	return `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  role: KarpenterNodeRole-demo
  amiSelectorTerms:
    - alias: ` + alias + `
  subnetSelectorTerms:
    - tags:
        karpenter.sh/discovery: demo
  securityGroupSelectorTerms:
    - tags:
        karpenter.sh/discovery: demo
` + spec
}

// nodeData is a karpenter_node data source over literal manifests.
func nodeData(name, pool, class, args string) string {
	return fmt.Sprintf(`
data "karpenter_node" %q {
  node_pool     = <<-EOT
%s  EOT
  node_class    = <<-EOT
%s  EOT
%s
}
`, name, pool, class, args)
}

func nodeAttr(name string, steps ...any) statecheck.StateCheck {
	p := tfjsonpath.New(steps[0].(string))
	for _, s := range steps[1 : len(steps)-1] {
		p = p.AtMapKey(s.(string))
	}
	return statecheck.ExpectKnownValue("data.karpenter_node."+name, p, steps[len(steps)-1].(knownvalue.Check))
}

func TestAccNodeDataSource(t *testing.T) {
	prov := emulatorProvider(t, `cluster { name = "demo" }`)
	al2023 := nodeClassYAML("al2023@latest", "")
	taints := "      taints:\n        - key: nvidia.com/gpu\n          value: \"true\"\n          effect: NoSchedule\n"
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: prov + nodeData("m5", nodePoolYAML("general", ""), al2023, `  instance_type = "m5.large"
  zone          = "us-east-1b"`),
			ConfigStateChecks: []statecheck.StateCheck{
				// The figures Karpenter's own NewInstanceType gives (internal/differential).
				nodeAttr("m5", "allocatable", "memory", knownvalue.StringExact("6903Mi")),
				nodeAttr("m5", "allocatable", "cpu", knownvalue.StringExact("1930m")),
				nodeAttr("m5", "capacity", "memory", knownvalue.StringExact("7577Mi")),
				nodeAttr("m5", "capacity", "vpc.amazonaws.com/pod-eni", knownvalue.StringExact("9")),
				nodeAttr("m5", "max_pods", knownvalue.Int64Exact(29)),
				nodeAttr("m5", "overhead", "vm_memory", knownvalue.StringExact("615Mi")),
				nodeAttr("m5", "overhead", "eviction", "ephemeral-storage", knownvalue.StringExact("2Gi")),
				nodeAttr("m5", "capacity_type", knownvalue.StringExact("spot")),
				nodeAttr("m5", "labels", "topology.k8s.aws/zone-id", knownvalue.StringExact("use1-az2")),
				nodeAttr("m5", "labels", "karpenter.sh/nodepool", knownvalue.StringExact("general")),
				nodeAttr("m5", "labels", "karpenter.k8s.aws/instance-network-bandwidth", knownvalue.StringExact("750")),
				nodeAttr("m5", "ami", "name", knownvalue.StringRegexp(regexp.MustCompile(`^amazon-eks-node-al2023-x86_64-standard-1\.32-`))),
				nodeAttr("m5", "user_data", knownvalue.StringRegexp(regexp.MustCompile(`maxPods: 29`))),
			},
		}, {
			// The controller block changes capacity and max pods, and the
			// maxPods the userData carries.
			Config: strings.Replace(prov, "max_retries = 0", `max_retries = 0
  controller {
    vm_memory_overhead_percent = 0.1
    reserved_enis              = 1
  }`, 1) + nodeData("m5", nodePoolYAML("general", ""), al2023, `  instance_type = "m5.large"`),
			ConfigStateChecks: []statecheck.StateCheck{
				nodeAttr("m5", "capacity", "memory", knownvalue.StringExact("7372Mi")),
				nodeAttr("m5", "max_pods", knownvalue.Int64Exact(20)),
				nodeAttr("m5", "allocatable", "pods", knownvalue.StringExact("20")),
				nodeAttr("m5", "user_data", knownvalue.StringRegexp(regexp.MustCompile(`maxPods: 20`))),
			},
		}, {
			// Bottlerocket, a GPU type, RAID0 instance stores.
			Config: prov + nodeData("g5", nodePoolYAML("gpu", taints), nodeClassYAML("bottlerocket@latest", "  instanceStorePolicy: RAID0\n"),
				`  instance_type = "g5.xlarge"
  capacity_type = "on-demand"`),
			ConfigStateChecks: []statecheck.StateCheck{
				nodeAttr("g5", "capacity", "ephemeral-storage", knownvalue.StringExact("250G")),
				nodeAttr("g5", "capacity", "nvidia.com/gpu", knownvalue.StringExact("1")),
				nodeAttr("g5", "max_pods", knownvalue.Int64Exact(58)),
				// Bottlerocket sizes kube-reserved memory for the pod capacity.
				nodeAttr("g5", "overhead", "kube_reserved", "memory", knownvalue.StringExact("893Mi")),
				nodeAttr("g5", "ami", "name", knownvalue.StringRegexp(regexp.MustCompile(`^bottlerocket-aws-k8s-1\.32-nvidia-x86_64-`))),
				nodeAttr("g5", "labels", "karpenter.sh/capacity-type", knownvalue.StringExact("on-demand")),
				statecheck.ExpectKnownValue("data.karpenter_node.g5", tfjsonpath.New("taints"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.ObjectExact(map[string]knownvalue.Check{"key": knownvalue.StringExact("nvidia.com/gpu"),
						"value": knownvalue.StringExact("true"), "effect": knownvalue.StringExact("NoSchedule")}),
				})),
				nodeAttr("g5", "user_data", knownvalue.StringRegexp(regexp.MustCompile(`(?s)ephemeral-storage.*max-pods = 58`))),
			},
		}, {
			// Windows: 110 pods, the private IPv4 resource, the Windows labels.
			Config: prov + nodeData("win", nodePoolYAML("windows", ""), nodeClassYAML("windows2022@latest", ""), `  instance_type = "m5.large"`),
			ConfigStateChecks: []statecheck.StateCheck{
				nodeAttr("win", "capacity", "vpc.amazonaws.com/PrivateIPv4Address", knownvalue.StringExact("9")),
				nodeAttr("win", "max_pods", knownvalue.Int64Exact(110)),
				nodeAttr("win", "labels", "kubernetes.io/os", knownvalue.StringExact("windows")),
				nodeAttr("win", "labels", "node.kubernetes.io/windows-build", knownvalue.StringExact("10.0.20348")),
				nodeAttr("win", "overhead", "vm_memory", knownvalue.StringExact("615Mi")),
				nodeAttr("win", "overhead", "eviction", "ephemeral-storage", knownvalue.StringExact("5Gi")),
				nodeAttr("win", "user_data", knownvalue.StringRegexp(regexp.MustCompile(`<powershell>`))),
			},
		}},
	})
}

// Unknown inputs defer the read to apply; an unknown controller block
// cannot be read around.
func TestAccNodeDataSourceUnknownInputs(t *testing.T) {
	prov := emulatorProvider(t, `cluster { name = "demo" }`)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: prov + `
resource "terraform_data" "pool" {
  input = <<-EOT
` + nodePoolYAML("general", "") + `  EOT
}
` + strings.Replace(nodeData("later", "", nodeClassYAML("al2023@latest", ""), `  instance_type = "m5.large"`),
				"node_pool     = <<-EOT\n  EOT", "node_pool     = terraform_data.pool.output", 1) + `
output "max_pods" {
  value = data.karpenter_node.later.max_pods
}
`,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectUnknownOutputValue("max_pods")}},
			ConfigStateChecks: []statecheck.StateCheck{
				nodeAttr("later", "max_pods", knownvalue.Int64Exact(29)),
			},
		}},
	})
	// Cluster facts not known until apply: everything but user_data.
	diags := planDiagnostics(t, emulatorProvider(t, "")+`
resource "terraform_data" "endpoint" { input = "https://ABC.gr7.us-east-1.eks.amazonaws.com" }
provider "karpenter" {
  alias = "later"
  region = "us-east-1"
  controller { reserved_enis = length(terraform_data.endpoint.output) }
}
`+strings.Replace(nodeData("c", nodePoolYAML("general", ""), nodeClassYAML("al2023@latest", ""), `  instance_type = "m5.large"`),
		`data "karpenter_node" "c" {`, "data \"karpenter_node\" \"c\" {\n  provider = karpenter.later", 1))
	expectDiagnostic(t, diags, "error", "data-source-inputs-unknown", "controller block is not known until apply")
}

// Every rule of data "karpenter_node": its failing docs example fails with
// it, its passing one plans. The examples' provider blocks are replaced by
// the emulator's, offline or without cluster facts where the example says so.
func TestAccNodeRuleExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	prov := emulatorProvider(t, `cluster { name = "demo" }`)
	var bad, good strings.Builder
	n := 0
	for _, r := range rules.All() {
		if r.Category != node.Category {
			continue
		}
		n++
		name := strings.ReplaceAll(r.ID, "-", "_")
		switch r.ID {
		case "node-capacity-unavailable":
			offlineEnv(t)
			diags := planDiagnostics(t, "provider \"karpenter\" {}\n"+withoutProvider(t, r.Bad, name))
			expectDiagnostic(t, diags, "error", r.ID, "Configure AWS")
		case "node-manifest-invalid": // terraform validate refuses it: it would stop the others' plan
			diags := terraformDiagnostics(t, withoutProvider(t, r.Bad, name), "validate", "-json")
			expectDiagnostic(t, diags, "error", r.ID, "2 documents")
		case "node-user-data-unavailable":
			diags := planDiagnostics(t, emulatorProvider(t, `cluster { kubernetes_version = "1.32" }`)+withoutProvider(t, r.Bad, name))
			expectDiagnostic(t, diags, "warning", r.ID, "user_data is null")
		default:
			bad.WriteString(withoutProvider(t, r.Bad, name))
		}
		good.WriteString(withoutProvider(t, r.Good, name))
	}
	if n != 7 {
		t.Fatalf("%d rules", n)
	}
	diags := planDiagnostics(t, prov+bad.String())
	for _, c := range []struct{ rule, detail string }{
		{"node-class-mismatch", `"gpu"`},
		{"node-instance-type-excluded", "kubernetes.io/arch In"},
		{"node-capacity-type-excluded", `"spot"`},
		{"node-zone-excluded", `"us-east-1c"`},
	} {
		expectDiagnostic(t, diags, "error", c.rule, c.detail)
	}
	for _, d := range terraformDiagnostics(t, prov+good.String(), "plan", "-input=false", "-json", "-refresh=false") {
		t.Errorf("the passing examples: %s %s: %s", d.Severity, d.Summary, d.Detail)
	}
}

// withoutProvider is an example without its provider blocks, its data
// source renamed.
func withoutProvider(t *testing.T, src, name string) string {
	t.Helper()
	f, diags := hclwrite.ParseConfig([]byte(src), "example.tf", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("%s\n%s", diags.Error(), src)
	}
	for _, b := range f.Body().Blocks() {
		switch b.Type() {
		case "provider":
			f.Body().RemoveBlock(b)
		case "data":
			b.SetLabels([]string{b.Labels()[0], name})
		}
	}
	return string(f.Bytes())
}

// What the data source refuses besides its own rules.
func TestAccNodeDataSourceErrors(t *testing.T) {
	prov := emulatorProvider(t, `cluster { name = "demo" }`)
	pool, class := nodePoolYAML("general", ""), nodeClassYAML("al2023@latest", "")
	diags := planDiagnostics(t, prov+
		nodeData("typo", pool, class, `  instance_type = "m5.lrage"`)+
		nodeData("family", pool, class, `  instance_type = "m9z.large"`)+
		nodeData("no_image", pool, nodeClassYAML("al2@latest", ""), `  instance_type = "g5g.xlarge"`))
	expectDiagnostic(t, diags, "error", "instance-type-invalid", `"m5.lrage"`, "family m5 has no size")
	expectDiagnostic(t, diags, "error", "instance-type-invalid", `"m9z.large"`, "did you mean")
	expectDiagnostic(t, diags, "error", "arm64-gpu-no-image")
	// Literal mistakes fail terraform validate, without AWS.
	diags = terraformDiagnostics(t, nodeData("v", pool, class, `  instance_type = "m5-large"
  capacity_type = "ondemand"`)+
		nodeData("kind", class, class, `  instance_type = "m5.large"`)+
		nodeData("malformed", "kind: [\n", class, `  instance_type = "m5.large"`)+
		nodeData("crd", strings.Replace(pool, "name: general", "name: General", 1), class, `  instance_type = "m5.large"`), "validate", "-json")
	expectDiagnostic(t, diags, "error", "node-manifest-invalid", "is an EC2NodeClass, not a NodePool")
	expectDiagnostic(t, diags, "error", "manifest-malformed")
	expectDiagnostic(t, diags, "error", "nodepool-name-invalid", `"General"`)
	expectDiagnostic(t, diags, "error", "instance-type-invalid", `"m5-large"`)
	expectDiagnostic(t, diags, "error", "node-capacity-type-excluded", `did you mean "on-demand"`)
	diags = terraformDiagnostics(t, `
provider "karpenter" {
  controller {
    vm_memory_overhead_percent = 7.5
    reserved_enis              = -1
  }
}
`+nodeData("v", pool, class, `  instance_type = "m5.large"`), "validate", "-json")
	expectDiagnostic(t, diags, "error", "controller-settings-invalid", "vm_memory_overhead_percent = 7.5", "0.075")
	expectDiagnostic(t, diags, "error", "controller-settings-invalid", "reserved_enis = -1")
}
