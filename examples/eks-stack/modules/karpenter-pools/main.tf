locals {
  discovery_tag = coalesce(var.discovery_tag, { "karpenter.sh/discovery" = var.cluster_name })

  # Each pool's NodePool requirements, built from its settings; the pools
  # below write one requirements block per element.
  requirements = {
    for name, pool in var.pools : name => concat(
      pool.families == null ? [] : [
        { key = "karpenter.k8s.aws/instance-family", operator = "In", values = pool.families },
      ],
      pool.categories == null ? [] : [
        { key = "karpenter.k8s.aws/instance-category", operator = "In", values = pool.categories },
      ],
      pool.min_generation == null ? [] : [
        { key = "karpenter.k8s.aws/instance-generation", operator = "Gt", values = [tostring(pool.min_generation - 1)] },
      ],
      [
        { key = "kubernetes.io/arch", operator = "In", values = pool.architectures },
        { key = "karpenter.sh/capacity-type", operator = "In", values = pool.capacity_types },
      ],
    )
  }
}

resource "karpenter_ec2nodeclass" "this" {
  name = var.name
  role = var.node_role
  tags = var.tags

  ami_selector_terms { alias = var.ami_alias }
  subnet_selector_terms { tags = local.discovery_tag }
  security_group_selector_terms { tags = local.discovery_tag }

  dynamic "block_device_mappings" {
    for_each = var.block_device_mappings
    content {
      device_name = block_device_mappings.value.device_name
      root_volume = block_device_mappings.value.root_volume

      # ebs is a single block: present when the mapping has one.
      dynamic "ebs" {
        for_each = block_device_mappings.value.ebs == null ? [] : [block_device_mappings.value.ebs]
        content {
          volume_size           = ebs.value.volume_size
          volume_type           = ebs.value.volume_type
          iops                  = ebs.value.iops
          throughput            = ebs.value.throughput
          encrypted             = ebs.value.encrypted
          kms_key_id            = ebs.value.kms_key_id
          delete_on_termination = ebs.value.delete_on_termination
          snapshot_id           = ebs.value.snapshot_id
        }
      }
    }
  }
}

resource "karpenter_nodepool" "this" {
  for_each = var.pools

  name       = each.key
  node_class = karpenter_ec2nodeclass.this.node_class
  weight     = each.value.weight
  labels     = each.value.labels
  limits     = each.value.limits

  dynamic "requirements" {
    for_each = local.requirements[each.key]
    content {
      key      = requirements.value.key
      operator = requirements.value.operator
      values   = requirements.value.values
    }
  }

  dynamic "taints" {
    for_each = each.value.taints
    content {
      key    = taints.value.key
      value  = taints.value.value
      effect = taints.value.effect
    }
  }

  dynamic "startup_taints" {
    for_each = each.value.startup_taints
    content {
      key    = startup_taints.value.key
      value  = startup_taints.value.value
      effect = startup_taints.value.effect
    }
  }

  disruption {
    consolidation_policy = each.value.disruption.consolidation_policy
    consolidate_after    = each.value.disruption.consolidate_after

    dynamic "budgets" {
      for_each = each.value.disruption.budgets
      content {
        nodes    = budgets.value.nodes
        schedule = budgets.value.schedule
        duration = budgets.value.duration
        reasons  = budgets.value.reasons
      }
    }
  }
}
