package provider

import "testing"

// withoutAWS leaves the provider nothing to find AWS with: no credentials,
// region, profile, endpoint or instance metadata, as on a CI runner.
func withoutAWS(t *testing.T) {
	t.Helper()
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION",
		"AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_EC2", "AWS_ENDPOINT_URL_SSM", "AWS_ENDPOINT_URL_EKS", "AWS_ENDPOINT_URL_STS"} {
		t.Setenv(k, "")
	}
	t.Setenv("AWS_CONFIG_FILE", "/dev/null")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
}

// terraform validate needs no AWS: no credentials, no region, no network.
// Literal mistakes fail it, and a valid configuration passes.
func TestTerraformValidateOfflineWithoutCredentials(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	withoutAWS(t)
	bad := `
variable "role" { type = string }
resource "karpenter_ec2nodeclass" "x" {
  name = "x"
  role = var.role
  ami_selector_terms { alias = "al2023@v20251209@x" }
  subnet_selector_terms { tags = { "karpenter.sh/discovery" = "" } }
  security_group_selector_terms { tags = { "karpenter.sh/discovery" = "demo" } }
}
# Terraform skips validating what depends on a resource that failed
# validation, so this pool names its class literally.
resource "karpenter_nodepool" "x" {
  name       = "x"
  node_class = { name = "x" }
  requirements {
    key      = "karpenter.k8s.aws/instance-family"
    operator = "In"
    values   = []
  }
  taints {
    key    = "gpu"
    value  = "a/b"
    effect = "NoSchedule"
  }
}
`
	diags := terraformDiagnostics(t, bad, "validate", "-json")
	for _, rule := range []string{"alias-multiple-at", "selector-tags-invalid", "requirement-in-without-values", "nodepool-taint-invalid"} {
		expectDiagnostic(t, diags, "error", rule)
	}
	good := `
variable "role" { type = string }
resource "karpenter_ec2nodeclass" "x" {
  name = "x"
  role = var.role
  ami_selector_terms { alias = "al2023@v20251209" }
  subnet_selector_terms { tags = { "karpenter.sh/discovery" = "demo" } }
  security_group_selector_terms { tags = { "karpenter.sh/discovery" = "demo" } }
}
resource "karpenter_nodepool" "x" {
  name       = "x"
  node_class = karpenter_ec2nodeclass.x.node_class
  requirements {
    key      = "karpenter.k8s.aws/instance-family"
    operator = "In"
    values   = ["m5"]
  }
}
`
	for _, d := range terraformDiagnostics(t, good, "validate", "-json") {
		if d.Severity == "error" {
			t.Errorf("valid configuration: %s: %s", d.Summary, d.Detail)
		}
	}
}

// An alias the family does not publish for a literal kubernetes_version
// fails terraform validate, offline, at the alias.
func TestTerraformValidateAliasAgainstKubernetesVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	withoutAWS(t)
	diags := terraformDiagnostics(t, `
data "karpenter_amis" "al2" {
  kubernetes_version = "1.33"
  ami_selector_terms { alias = "al2@latest" }
}
data "karpenter_ami" "windows" {
  kubernetes_version = "1.34"
  ami_selector_terms { alias = "windows2025@latest" }
  architecture = "amd64"
}
data "karpenter_amis" "fine" {
  kubernetes_version = "1.32"
  ami_selector_terms { alias = "al2@latest" }
}
`, "validate", "-json")
	expectDiagnostic(t, diags, "error", "alias-al2-unsupported-kubernetes", "1.33")
	expectDiagnostic(t, diags, "error", "alias-windows2025-unsupported-kubernetes", "1.34")
	n := 0
	for _, d := range diags {
		if d.Severity == "error" {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d errors, want 2 (al2 on 1.32 is fine): %+v", n, diags)
	}
}
