package provider

import (
	"context"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/cluster"
)

// The adapter's own rules (rules_provider.go), each reported with its id at
// its attribute, through terraform.
func TestAdapterRules(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	terms := `
  ami_selector_terms {
    alias = "al2023@latest"
  }`
	t.Run("validate", func(t *testing.T) {
		diags := terraformDiagnostics(t, `
provider "karpenter" {
  retry_mode        = "fast"
  max_retries       = 500
  region            = "us-east1"
  karpenter_version = "0.37"
  cluster {
    service_cidr = "172.20.0.0"
  }
}
data "karpenter_instance_types" "all" {}
`, "validate", "-json")
		expectDiagnostic(t, diags, "error", "provider-config-invalid", `retry_mode = "fast"`, `"adaptive"`)
		expectDiagnostic(t, diags, "error", "provider-config-invalid", "max_retries = 500")
		expectDiagnostic(t, diags, "warning", "region-unknown", `region = "us-east1"`, `did you mean "us-east-1"?`)
		expectDiagnostic(t, diags, "error", "provider-config-invalid", "Karpenter 0.37 is a pre-v1 release", "https://karpenter.sh/v1.0/upgrading/v1-migration/")
		expectDiagnostic(t, diags, "error", "cluster-config-invalid", `"172.20.0.0" is not a CIDR`)
		// Terraform validates resources only once the provider block passed.
		diags = terraformDiagnostics(t, `
data "karpenter_amis" "v" {
  kubernetes_version = "latest"`+terms+`
}
data "karpenter_ami" "both" {
  instance_type = "g5g.xlarge"
  accelerator   = "nvidia"`+terms+`
}
data "karpenter_ami" "neither" {`+terms+`
}
data "karpenter_ami" "ec2_arch" {
  architecture = "x86_64"`+terms+`
}
`, "validate", "-json")
		expectDiagnostic(t, diags, "error", "kubernetes-version-invalid", "latest")
		expectDiagnostic(t, diags, "error", "ami-query-arguments-invalid", "accelerator is set with instance_type")
		expectDiagnostic(t, diags, "error", "ami-query-arguments-invalid", "Neither instance_type nor architecture")
		expectDiagnostic(t, diags, "error", "ami-query-arguments-invalid", `"x86_64"`, "amd64")
	})
	t.Run("plan", func(t *testing.T) {
		// No Kubernetes version anywhere: the alias cannot be resolved.
		prov := emulatorProvider(t, "")
		diags := planDiagnostics(t, prov+`
data "karpenter_amis" "x" {`+terms+`
}
`)
		expectDiagnostic(t, diags, "error", "kubernetes-version-needed", "kubernetes_version` on this data source")
		// An endpoint nobody answers: the read fails, and says which.
		diags = planDiagnostics(t, `
provider "karpenter" {
  region      = "us-east-1"
  max_retries = 0
  endpoints {
    ec2 = "http://127.0.0.1:1"
    ssm = "http://127.0.0.1:1"
  }
}
data "karpenter_amis" "x" {
  kubernetes_version = "1.32"`+terms+`
}
`)
		expectDiagnostic(t, diags, "error", "aws-endpoint-unreachable", "http://127.0.0.1:1", "refused")
	})
	t.Run("cluster facts", func(t *testing.T) {
		const sel = `
  subnet_selector_terms { tags = { "karpenter.sh/discovery" = "demo" } }
  security_group_selector_terms { tags = { "karpenter.sh/discovery" = "demo" } }`
		// A cluster EKS does not know: the class's bootstrap block cannot
		// be rendered without its endpoint and CA, and says where to put them.
		prov := emulatorProvider(t, `cluster {
    name               = "ghost"
    kubernetes_version = "1.32"
  }`)
		diags := planDiagnostics(t, prov+`
resource "karpenter_ec2nodeclass" "custom" {
  name       = "custom"
  role       = "KarpenterNodeRole-demo"
  ami_family = "Custom"
  bootstrap { format = "nodeadm" }
  ami_selector_terms { alias = "al2023@v20251209" }`+sel+`
}
`)
		expectDiagnostic(t, diags, "error", "cluster-facts-needed", "ghost", "bootstrap block", "does not exist in this account and region; check `cluster.name` in the provider block")
		// The same cluster under a pool: only the checks of the userData
		// its nodes would boot with are lost, with a warning; the
		// manifests still plan.
		diags = planDiagnostics(t, prov+`
resource "karpenter_ec2nodeclass" "x" {
  name = "default"
  role = "KarpenterNodeRole-demo"`+terms+sel+`
}
resource "karpenter_nodepool" "p" {
  name       = "default"
  node_class = karpenter_ec2nodeclass.x.node_class
}
`)
		expectDiagnostic(t, diags, "warning", "node-user-data-unchecked", `NodePool "default"`, "ghost", "check `cluster.name` in the provider block")
		// The provider's region is known only at apply: a data source,
		// read during plan, cannot resolve anything and says why.
		diags = planDiagnostics(t, `
resource "terraform_data" "region" { input = "us-east-1" }
provider "karpenter" {
  region = terraform_data.region.output
}
data "karpenter_amis" "x" {
  kubernetes_version = "1.32"`+terms+`
}
`)
		expectDiagnostic(t, diags, "error", "data-source-inputs-unknown", "kubernetes_version")
	})
}

// Missing cluster facts are the provider configuration's to give: the
// advice names the provider's cluster block, which the cluster package
// (shared with karpenter-lint) does not.
func TestClusterFactsMissingPointsAtTheClusterBlock(t *testing.T) {
	_, err := (&ProviderData{}).ClusterFacts(context.Background(), []string{cluster.FieldServiceCIDR}, "the bootstrap block")
	want := "the bootstrap block needs the cluster's service_cidr: set them in the provider's `cluster` block, or set `cluster.name` so they are discovered with eks:DescribeCluster"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}
