variable "name" {
  description = "Name of the EC2NodeClass the pools share (metadata.name)."
  type        = string
}

variable "cluster_name" {
  description = "EKS cluster name; also the default value of the discovery tag."
  type        = string
}

variable "node_role" {
  description = "IAM role name of the nodes, e.g. module.karpenter.node_iam_role_name of terraform-aws-modules/eks."
  type        = string
}

variable "discovery_tag" {
  description = "Tags that select the subnets and security groups of the nodes. Default: karpenter.sh/discovery = cluster_name."
  type        = map(string)
  default     = null
}

variable "ami_alias" {
  description = "AMI alias of the class, e.g. \"al2023@v20251209\". Pin a release in production; see the AMI rollouts guide."
  type        = string
}

variable "block_device_mappings" {
  description = <<-EOT
    EBS volumes of the nodes (the class's block_device_mappings blocks, one per
    element); they replace Karpenter's family defaults. Each element takes
    device_name, root_volume and ebs (volume_size, volume_type, iops,
    throughput, encrypted, kms_key_id, delete_on_termination, snapshot_id).
    Default: a 100Gi encrypted gp3 root volume on /dev/xvda. The type is any,
    checked against local.block_device_mapping_keys, so a misspelled key fails
    at the caller's line instead of being dropped (see the module's README).
  EOT
  type        = any
  default = [{
    device_name = "/dev/xvda"
    root_volume = true
    ebs         = { volume_size = "100Gi", volume_type = "gp3", encrypted = true }
  }]

  validation {
    condition     = length(provider::karpenter::undeclared_keys(var.block_device_mappings, local.block_device_mapping_keys)) == 0
    error_message = "block_device_mappings has keys this module does not take (an object type would drop them without a word): ${join("; ", [for k in provider::karpenter::undeclared_keys(var.block_device_mappings, local.block_device_mapping_keys) : "block_device_mappings${k}"])}."
  }
}

variable "tags" {
  description = "Tags on the instances, volumes and launch templates Karpenter creates."
  type        = map(string)
  # null, not {}: an empty map is a value the class's plan would print as
  # `tags = {}`, for tags nobody wrote.
  default = null
}

variable "pools" {
  description = <<-EOT
    NodePools on the class, keyed by NodePool name (unique in the cluster).
    Each admits the instance families or categories listed (at least one of
    the two), of at least min_generation when set, on the architectures
    (default ["amd64"]) and capacity types (default ["on-demand"]) listed;
    weight, labels and limits as on karpenter_nodepool. taints and
    startup_taints ({key, value, effect}) become one block each; disruption
    (consolidation_policy, consolidate_after, budgets of {nodes, schedule,
    duration, reasons}) defaults to consolidating underutilized nodes after 1m,
    10% at a time, and replacing drifted nodes between 08:00 and 18:00 UTC only.
    Keys are snake_case, as in the resources. The type is any, checked against
    local.pool_keys: a key this module does not take (a misspelling, or
    camelCase such as minGeneration) fails at the caller's line with the key
    it most likely meant, where an object type would drop it without a word
    (see the module's README).
  EOT
  type        = any

  validation {
    condition     = length(provider::karpenter::undeclared_keys(var.pools, local.pool_keys)) == 0
    error_message = "pools has keys this module does not take (an object type would drop them without a word): ${join("; ", [for k in provider::karpenter::undeclared_keys(var.pools, local.pool_keys) : "pools${k}"])}."
  }

  validation {
    condition     = alltrue([for p in var.pools : try(p.families, null) != null || try(p.categories, null) != null])
    error_message = "Every pool needs families or categories: without either it admits every instance type of its architectures and capacity types."
  }
}
