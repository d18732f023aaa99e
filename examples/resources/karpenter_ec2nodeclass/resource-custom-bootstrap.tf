# A custom AMI (a Packer build of AL2023) with complete userData rendered by
# the provider: nodeadm NodeConfig registering karpenter.sh/unregistered and
# the GPU taint, cluster facts from the provider's cluster block.
resource "karpenter_ec2nodeclass" "custom" {
  name       = "custom"
  role       = "KarpenterNodeRole-prod"
  ami_family = "Custom"

  ami_selector_terms {
    name  = "team-eks-node-al2023-*"
    owner = "self"
  }
  subnet_selector_terms { tags = { "karpenter.sh/discovery" = "prod" } }
  security_group_selector_terms { tags = { "karpenter.sh/discovery" = "prod" } }

  block_device_mappings {
    device_name = "/dev/xvda"
    root_volume = true
    ebs {
      volume_size = "50Gi"
      volume_type = "gp3"
    }
  }

  bootstrap {
    format               = "nodeadm"
    node_labels          = { "team" = "ml" }
    pre_bootstrap_script = "echo 'vm.max_map_count=262144' > /etc/sysctl.d/99-ml.conf && sysctl --system"

    register_with_taints {
      key    = "nvidia.com/gpu"
      value  = "true"
      effect = "NoSchedule"
    }
  }
}
