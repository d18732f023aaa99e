package provider

import "testing"

// terraform validate needs no AWS: no credentials, no region, no network.
// Literal mistakes fail it, and a valid configuration passes.
func TestTerraformValidateOfflineWithoutCredentials(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION",
		"AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_EC2", "AWS_ENDPOINT_URL_SSM", "AWS_ENDPOINT_URL_EKS", "AWS_ENDPOINT_URL_STS"} {
		t.Setenv(k, "")
	}
	t.Setenv("AWS_CONFIG_FILE", "/dev/null")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	bad := `
variable "role" { type = string }
resource "karpenter_ec2nodeclass" "x" {
  name                          = "x"
  role                          = var.role
  ami_selector_terms            = [{ alias = "al2023@v20251209@x" }]
  subnet_selector_terms         = [{ tags = { "karpenter.sh/discovery" = "" } }]
  security_group_selector_terms = [{ tags = { "karpenter.sh/discovery" = "demo" } }]
}
# Terraform skips validating what depends on a resource that failed
# validation, so this pool names its class literally.
resource "karpenter_nodepool" "x" {
  name         = "x"
  node_class   = { name = "x" }
  requirements = [{ key = "karpenter.k8s.aws/instance-family", operator = "In", values = [] }]
  taints       = [{ key = "gpu", value = "a/b", effect = "NoSchedule" }]
}
`
	diags := terraformDiagnostics(t, bad, "validate", "-json")
	for _, rule := range []string{"alias-multiple-at", "selector-tags-invalid", "requirement-in-without-values", "nodepool-taint-invalid"} {
		expectDiagnostic(t, diags, "error", rule)
	}
	good := `
variable "role" { type = string }
resource "karpenter_ec2nodeclass" "x" {
  name                          = "x"
  role                          = var.role
  ami_selector_terms            = [{ alias = "al2023@v20251209" }]
  subnet_selector_terms         = [{ tags = { "karpenter.sh/discovery" = "demo" } }]
  security_group_selector_terms = [{ tags = { "karpenter.sh/discovery" = "demo" } }]
}
resource "karpenter_nodepool" "x" {
  name         = "x"
  node_class   = karpenter_ec2nodeclass.x.node_class
  requirements = [{ key = "karpenter.k8s.aws/instance-family", operator = "In", values = ["m5"] }]
}
`
	for _, d := range terraformDiagnostics(t, good, "validate", "-json") {
		if d.Severity == "error" {
			t.Errorf("valid configuration: %s: %s", d.Summary, d.Detail)
		}
	}
}
