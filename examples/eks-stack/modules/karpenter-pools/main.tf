locals {
  discovery_tag = coalesce(var.discovery_tag, { "karpenter.sh/discovery" = var.cluster_name })

  # The keys the pools and block_device_mappings inputs take, for
  # provider::karpenter::undeclared_keys in their validations (variables.tf).
  # The inputs are `type = any`: an object type would drop any other key
  # without a word (hashicorp/terraform#29204). Leaves are null; "*" stands
  # for every pool name; a list of one element for every element.
  taint_keys = [{ key = null, value = null, effect = null }]
  pool_keys = {
    "*" = {
      families       = null
      categories     = null
      architectures  = null
      capacity_types = null
      min_generation = null
      weight         = null
      labels         = null
      limits         = null
      taints         = local.taint_keys
      startup_taints = local.taint_keys
      disruption = {
        consolidation_policy = null
        consolidate_after    = null
        budgets              = [{ nodes = null, schedule = null, duration = null, reasons = null }]
      }
    }
  }
  block_device_mapping_keys = [{
    device_name = null
    root_volume = null
    ebs = {
      volume_size           = null
      volume_type           = null
      iops                  = null
      throughput            = null
      encrypted             = null
      kms_key_id            = null
      delete_on_termination = null
      snapshot_id           = null
    }
  }]

  default_budgets = [
    { nodes = "10%", schedule = null, duration = null, reasons = null },
    { nodes = "0", schedule = "0 18 * * *", duration = "14h", reasons = ["Drifted"] },
  ]

  # Each pool with every key, defaults filled in (what optional() did for an
  # object type).
  pools = {
    for name, p in var.pools : name => {
      families       = try(p.families, null)
      categories     = try(p.categories, null)
      architectures  = try(p.architectures, null) == null ? ["amd64"] : p.architectures
      capacity_types = try(p.capacity_types, null) == null ? ["on-demand"] : p.capacity_types
      min_generation = try(p.min_generation, null)
      weight         = try(p.weight, null)
      labels         = try(p.labels, null)
      limits         = try(p.limits, null)
      taints         = [for t in coalesce(try(p.taints, null), []) : { key = t.key, value = try(t.value, null), effect = t.effect }]
      startup_taints = [for t in coalesce(try(p.startup_taints, null), []) : { key = t.key, value = try(t.value, null), effect = t.effect }]
      disruption = {
        consolidation_policy = coalesce(try(p.disruption.consolidation_policy, null), "WhenEmptyOrUnderutilized")
        consolidate_after    = coalesce(try(p.disruption.consolidate_after, null), "1m")
        budgets = [
          for b in(try(p.disruption.budgets, null) == null ? local.default_budgets : p.disruption.budgets) :
          { nodes = b.nodes, schedule = try(b.schedule, null), duration = try(b.duration, null), reasons = try(b.reasons, null) }
        ]
      }
    }
  }

  # Each pool's NodePool requirements, built from its settings; the pools
  # below write one requirements block per element.
  requirements = {
    for name, pool in local.pools : name => concat(
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
      device_name = try(block_device_mappings.value.device_name, null)
      root_volume = try(block_device_mappings.value.root_volume, null)

      # ebs is a single block: present when the mapping has one.
      dynamic "ebs" {
        for_each = try(block_device_mappings.value.ebs, null) == null ? [] : [block_device_mappings.value.ebs]
        content {
          volume_size           = try(ebs.value.volume_size, null)
          volume_type           = try(ebs.value.volume_type, null)
          iops                  = try(ebs.value.iops, null)
          throughput            = try(ebs.value.throughput, null)
          encrypted             = try(ebs.value.encrypted, null)
          kms_key_id            = try(ebs.value.kms_key_id, null)
          delete_on_termination = try(ebs.value.delete_on_termination, null)
          snapshot_id           = try(ebs.value.snapshot_id, null)
        }
      }
    }
  }
}

resource "karpenter_nodepool" "this" {
  for_each = local.pools

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
