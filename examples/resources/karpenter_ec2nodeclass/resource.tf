# An EC2NodeClass on the EKS-optimized AL2023 images. AMIs are resolved at
# plan exactly as Karpenter resolves them; `manifest` is the YAML to apply.
resource "karpenter_ec2nodeclass" "default" {
  name = "default"
  role = "KarpenterNodeRole-prod"
  tags = { team = "platform" }

  ami_selector_terms { alias = "al2023@v20251209" }
  subnet_selector_terms { tags = { "karpenter.sh/discovery" = "prod" } }
  security_group_selector_terms { tags = { "karpenter.sh/discovery" = "prod" } }

  block_device_mappings {
    device_name = "/dev/xvda"
    root_volume = true
    ebs {
      volume_size = "100Gi"
      volume_type = "gp3"
      encrypted   = true
    }
  }

  kubelet {
    max_pods                   = 110
    eviction_hard              = { "memory.available" = "5%" }
    eviction_soft              = { "memory.available" = "10%" }
    eviction_soft_grace_period = { "memory.available" = "1m" }
  }
}

# Feed the manifest to whatever applies manifests, e.g.:
# resource "kubernetes_manifest" "default" {
#   manifest = yamldecode(karpenter_ec2nodeclass.default.manifest)
# }
