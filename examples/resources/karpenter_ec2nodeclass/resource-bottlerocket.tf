# Bottlerocket with extra settings: userData is TOML; Karpenter merges it with
# the settings it generates (cluster, taints, labels, max-pods win).
resource "karpenter_ec2nodeclass" "bottlerocket" {
  name = "bottlerocket"
  role = "KarpenterNodeRole-prod"

  ami_selector_terms { alias = "bottlerocket@1.51.0" }
  subnet_selector_terms { tags = { "karpenter.sh/discovery" = "prod" } }
  security_group_selector_terms { tags = { "karpenter.sh/discovery" = "prod" } }

  user_data = <<-EOT
    [settings.kubernetes]
    allowed-unsafe-sysctls = ["net.core.somaxconn"]

    [settings.kernel.sysctl]
    "vm.max_map_count" = "262144"
  EOT
}
