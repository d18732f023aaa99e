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
    element); they replace Karpenter's family defaults. Default: a 100Gi
    encrypted gp3 root volume on /dev/xvda. A key this type does not declare
    is dropped by Terraform without an error (see the module's README).
  EOT
  type = list(object({
    device_name = optional(string)
    root_volume = optional(bool)
    ebs = optional(object({
      volume_size           = optional(string)
      volume_type           = optional(string)
      iops                  = optional(number)
      throughput            = optional(number)
      encrypted             = optional(bool)
      kms_key_id            = optional(string)
      delete_on_termination = optional(bool)
      snapshot_id           = optional(string)
    }))
  }))
  default = [{
    device_name = "/dev/xvda"
    root_volume = true
    ebs         = { volume_size = "100Gi", volume_type = "gp3", encrypted = true }
  }]
}

variable "tags" {
  description = "Tags on the instances, volumes and launch templates Karpenter creates."
  type        = map(string)
  default     = {}
}

variable "pools" {
  description = <<-EOT
    NodePools on the class, keyed by NodePool name (unique in the cluster).
    Each admits the instance families or categories listed (at least one of
    the two), of at least min_generation when set, on the architectures and
    capacity types listed. taints and startup_taints become one block each;
    disruption defaults to consolidating underutilized nodes after 1m, 10% at
    a time, and replacing drifted nodes between 08:00 and 18:00 UTC only.
    Keys are snake_case, as in the resources. A key this type does not declare
    (a misspelling, or camelCase such as minValues) is dropped by Terraform
    without an error, unlike the same key in a karpenter_nodepool block,
    which fails terraform validate (see the module's README).
  EOT
  type = map(object({
    families       = optional(list(string))
    categories     = optional(list(string))
    architectures  = optional(list(string), ["amd64"])
    capacity_types = optional(list(string), ["on-demand"])
    min_generation = optional(number)
    weight         = optional(number)
    labels         = optional(map(string))
    limits         = optional(map(string))
    taints = optional(list(object({
      key    = string
      value  = optional(string)
      effect = string
    })), [])
    startup_taints = optional(list(object({
      key    = string
      value  = optional(string)
      effect = string
    })), [])
    disruption = optional(object({
      consolidation_policy = optional(string, "WhenEmptyOrUnderutilized")
      consolidate_after    = optional(string, "1m")
      budgets = optional(
        list(object({
          nodes    = string
          schedule = optional(string)
          duration = optional(string)
          reasons  = optional(list(string))
        })),
        [
          { nodes = "10%" },
          { nodes = "0", schedule = "0 18 * * *", duration = "14h", reasons = ["Drifted"] },
        ],
      )
    }), {})
  }))

  # A validation sees the value after Terraform converted it to the type
  # above, so it cannot report a dropped key; it catches the one omission
  # that would leave a pool without an instance filter (including a
  # misspelled families or categories key).
  validation {
    condition     = alltrue([for p in var.pools : p.families != null || p.categories != null])
    error_message = "Every pool needs families or categories (spelled exactly so: a misspelled key is dropped, which looks like neither)."
  }
}
