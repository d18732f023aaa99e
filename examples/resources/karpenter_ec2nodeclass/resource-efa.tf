# EFA training nodes: the fields Karpenter added after 1.0, each gated on the
# release that introduced it (network_interfaces and placement_group_selector
# 1.11, connection_tracking and cpu_options 1.13, ip_prefix_count 1.8,
# volume_initialization_rate 1.5).
resource "karpenter_ec2nodeclass" "efa" {
  name            = "efa"
  role            = "KarpenterNodeRole-prod"
  ip_prefix_count = 1

  ami_selector_terms { alias = "al2023@latest" }
  subnet_selector_terms { tags = { "karpenter.sh/discovery" = "prod" } }
  security_group_selector_terms { tags = { "karpenter.sh/discovery" = "prod" } }

  # The primary interface, then one EFA-only interface on the second card.
  network_interfaces {
    network_card_index = 0
    device_index       = 0
    interface_type     = "interface"
  }
  network_interfaces {
    network_card_index = 1
    device_index       = 0
    interface_type     = "efa-only"
  }

  placement_group_selector { name = "training" }

  connection_tracking {
    tcp_established_timeout = 3600
    udp_timeout             = 30
  }

  cpu_options { nested_virtualization = "disabled" }

  block_device_mappings {
    device_name = "/dev/xvda"
    root_volume = true
    ebs {
      volume_size                = "200Gi"
      volume_type                = "gp3"
      snapshot_id                = "snap-0123456789abcdef0"
      volume_initialization_rate = 300
    }
  }
}
