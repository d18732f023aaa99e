variable "region" {
  description = "AWS region of the cluster."
  type        = string
  default     = "us-east-1"
}

variable "cluster_name" {
  description = "EKS cluster name (module.eks.cluster_name)."
  type        = string
  default     = "demo"

  # EKS's own pattern for cluster names (CreateCluster's name constraint).
  # The provider refuses other names too, but a provider error cannot be
  # expected by a terraform test; a validation can (tests/stack.tftest.hcl).
  validation {
    condition     = can(regex("^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$", var.cluster_name))
    error_message = "cluster_name must be an EKS cluster name: 1-100 letters, digits, hyphens and underscores, starting with a letter or digit (got \"${var.cluster_name}\")."
  }
}

variable "node_role" {
  description = "IAM role of the Karpenter nodes (module.karpenter.node_iam_role_name)."
  type        = string
  default     = "KarpenterNodeRole-demo"
}

variable "al2023_release" {
  description = "EKS AL2023 AMI release every class pins; bump it in a pull request (see the AMI rollouts guide)."
  type        = string
  default     = "v20251209"

  # A release, not "latest": with @latest every node is replaced whenever EKS
  # publishes an image, outside any pull request.
  validation {
    condition     = can(regex("^v[0-9]{8}$", var.al2023_release))
    error_message = "al2023_release must be an EKS AMI release such as \"v20251209\" (got \"${var.al2023_release}\"): \"latest\" would replace every node whenever EKS publishes an image; see the AMI rollouts guide."
  }
}
