terraform {
  required_providers {
    karpenter = { source = "karpenter-tf/karpenter" }
  }
}

locals {
  cluster = "prod" # module.eks.cluster_name with terraform-aws-modules/eks
}

provider "karpenter" {
  region            = "us-west-2"
  karpenter_version = "1.14" # rules follow the Karpenter release you run

  # Kubernetes version, endpoint, CA and service CIDR are discovered when needed.
  cluster { name = local.cluster }
}

resource "karpenter_ec2nodeclass" "default" {
  name = "default"
  role = "KarpenterNodeRole-${local.cluster}" # module.karpenter.node_iam_role_name

  ami_selector_terms { alias = "al2023@v20251209" }
  subnet_selector_terms { tags = { "karpenter.sh/discovery" = local.cluster } }
  security_group_selector_terms { tags = { "karpenter.sh/discovery" = local.cluster } }
}

resource "karpenter_nodepool" "gpu" {
  name       = "gpu"
  node_class = karpenter_ec2nodeclass.default.node_class

  requirements {
    key      = "karpenter.k8s.aws/instance-family"
    operator = "In"
    values   = ["g5", "g5g"]
  }
  # g5 is amd64 and g5g arm64: say both are meant (the images must be multi-arch).
  requirements {
    key      = "kubernetes.io/arch"
    operator = "In"
    values   = ["amd64", "arm64"]
  }

  taints {
    key    = "nvidia.com/gpu"
    value  = "true"
    effect = "NoSchedule"
  }
}

# Apply the rendered manifests with whatever you use, e.g.
#   resource "kubernetes_manifest" "gpu" {
#     manifest = yamldecode(karpenter_nodepool.gpu.manifest)
#   }
output "manifests" {
  value = [karpenter_ec2nodeclass.default.manifest, karpenter_nodepool.gpu.manifest]
}
