resource "karpenter_ec2nodeclass" "default" {
  name = "default"
  role = "KarpenterNodeRole-prod"

  ami_selector_terms { alias = "al2023@v20251209" }
  subnet_selector_terms { tags = { "karpenter.sh/discovery" = "prod" } }
  security_group_selector_terms { tags = { "karpenter.sh/discovery" = "prod" } }

  kubelet {
    system_reserved = { cpu = "100m", memory = "200Mi" }
  }
}

resource "karpenter_nodepool" "gpu" {
  name       = "gpu"
  node_class = karpenter_ec2nodeclass.default.node_class

  requirements {
    key      = "karpenter.k8s.aws/instance-family"
    operator = "In"
    values   = ["g5", "g4dn"]
  }

  taints {
    key    = "nvidia.com/gpu"
    value  = "true"
    effect = "NoSchedule"
  }
}

# How much of a g5.xlarge the pool's pods can request, what the node is
# labelled and tainted with, the image it boots and its userData.
data "karpenter_node" "g5" {
  node_pool     = karpenter_nodepool.gpu.manifest
  node_class    = karpenter_ec2nodeclass.default.manifest
  instance_type = "g5.xlarge"
  capacity_type = "on-demand"
}

output "g5_allocatable" {
  value = data.karpenter_node.g5.allocatable # { cpu = "3920m", memory = "14162Mi", "nvidia.com/gpu" = "1", pods = "58", ... }
}

# A GitOps repository's manifests work as well:
# data "karpenter_node" "from_git" {
#   node_pool     = file("${path.module}/k8s/nodepool-general.yaml")
#   node_class    = file("${path.module}/k8s/ec2nodeclass-default.yaml")
#   instance_type = "m7i.large"
# }
