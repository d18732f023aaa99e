locals {
  discovery_tag = coalesce(var.discovery_tag, { "karpenter.sh/discovery" = var.cluster_name })
}

resource "karpenter_ec2nodeclass" "this" {
  name = var.name
  role = var.node_role

  ami_selector_terms            = [{ alias = var.ami_alias }]
  subnet_selector_terms         = [{ tags = local.discovery_tag }]
  security_group_selector_terms = [{ tags = local.discovery_tag }]

  block_device_mappings = [{
    device_name = "/dev/xvda"
    root_volume = true
    ebs         = { volume_size = var.block_device_size, volume_type = "gp3", encrypted = true }
  }]

  tags = var.tags
}

resource "karpenter_nodepool" "this" {
  for_each = var.pools

  name       = each.key
  node_class = karpenter_ec2nodeclass.this.node_class
  weight     = each.value.weight
  labels     = each.value.labels
  taints     = each.value.taints
  limits     = each.value.limits

  requirements = concat(
    each.value.families == null ? [] : [
      { key = "karpenter.k8s.aws/instance-family", operator = "In", values = each.value.families },
    ],
    each.value.categories == null ? [] : [
      { key = "karpenter.k8s.aws/instance-category", operator = "In", values = each.value.categories },
    ],
    each.value.min_generation == null ? [] : [
      { key = "karpenter.k8s.aws/instance-generation", operator = "Gt", values = [tostring(each.value.min_generation - 1)] },
    ],
    [
      { key = "kubernetes.io/arch", operator = "In", values = each.value.architectures },
      { key = "karpenter.sh/capacity-type", operator = "In", values = each.value.capacity_types },
    ],
  )

  disruption = {
    consolidation_policy = "WhenEmptyOrUnderutilized"
    consolidate_after    = "1m"
    # Nodes running an outdated image (Drifted) are replaced between 08:00
    # and 18:00 UTC only, 10% at a time.
    budgets = [
      { nodes = "10%" },
      { nodes = "0", schedule = "0 18 * * *", duration = "14h", reasons = ["Drifted"] },
    ]
  }
}
