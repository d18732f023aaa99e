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

variable "block_device_size" {
  description = "Root volume size of the nodes, as a Kubernetes quantity."
  type        = string
  default     = "100Gi"
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
    capacity types listed.
  EOT
  type = map(object({
    families       = optional(list(string))
    categories     = optional(list(string))
    architectures  = optional(list(string), ["amd64"])
    capacity_types = optional(list(string), ["on-demand"])
    taints = optional(list(object({
      key    = string
      value  = optional(string)
      effect = string
    })), [])
    labels         = optional(map(string))
    limits         = optional(map(string))
    weight         = optional(number)
    min_generation = optional(number)
  }))

  validation {
    condition     = alltrue([for p in var.pools : p.families != null || p.categories != null])
    error_message = "Every pool needs families or categories."
  }
}
