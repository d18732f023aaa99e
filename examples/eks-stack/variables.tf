variable "region" {
  description = "AWS region of the cluster."
  type        = string
  default     = "us-east-1"
}

variable "cluster_name" {
  description = "EKS cluster name (module.eks.cluster_name)."
  type        = string
  default     = "demo"
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
}
