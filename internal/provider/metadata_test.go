package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// The metadata block is the object's own labels and annotations: rendered
// into metadata, validated as the API server does, Karpenter's keys refused;
// the pool's labels/annotations stay the nodes'.
func TestAccObjectMetadata(t *testing.T) {
	prov := emulatorProvider(t, `cluster { name = "demo" }`)
	class := `
resource "karpenter_ec2nodeclass" "default" {
  name = "default"
  role = "KarpenterNodeRole-demo"
  metadata {
    labels      = { "app.kubernetes.io/managed-by" = "terraform" }
    annotations = { "kubernetes.io/description" = "General purpose nodes" }
  }
  ami_selector_terms {
    alias = "al2023@v20251209"
  }
  subnet_selector_terms {
    tags = { "karpenter.sh/discovery" = "demo" }
  }
  security_group_selector_terms {
    tags = { "karpenter.sh/discovery" = "demo" }
  }
}
`
	pool := func(meta string) string {
		return `
resource "karpenter_nodepool" "default" {
  name       = "default"
  node_class = karpenter_ec2nodeclass.default.node_class
  labels     = { "example.com/team" = "web" }
  ` + meta + `
}
`
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: prov + class + pool(`metadata {
    labels = { "team" = "data science" }
  }`),
				PlanOnly: true, ExpectError: wrapped("object-metadata-invalid", "data science"),
			},
			{
				Config: prov + class + pool(`metadata {
    annotations = { "karpenter.sh/nodepool-hash" = "1" }
  }`),
				PlanOnly: true, ExpectError: wrapped("object-metadata-karpenter-owned", "karpenter.sh/nodepool-hash"),
			},
			{
				Config: prov + class + pool(`metadata {
    annotations = { "argocd.argoproj.io/sync-wave" = "1", "meta.helm.sh/release-name" = "karpenter" }
  }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue("karpenter_ec2nodeclass.default", tfjsonpath.New("manifest"), knownvalue.StringRegexp(regexp.MustCompile(
						`(?s)metadata:\n  annotations:\n    kubernetes.io/description: General purpose nodes\n  labels:\n    app.kubernetes.io/managed-by: terraform\n  name: default\n`))),
					plancheck.ExpectKnownValue("karpenter_nodepool.default", tfjsonpath.New("manifest"), knownvalue.StringRegexp(regexp.MustCompile(
						`(?s)^apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  annotations:\n    argocd.argoproj.io/sync-wave: "1"\n    meta.helm.sh/release-name: karpenter\n  name: default\nspec:\n  template:\n    metadata:\n      labels:\n        example.com/team: web\n`))),
				}},
			},
		},
	})
}
