resource "karpenter_ec2nodeclass" "accelerated" {
  name = "accelerated"
  role = "KarpenterNodeRole-prod"

  ami_selector_terms { alias = "al2023@v20251209" }
  subnet_selector_terms { tags = { "karpenter.sh/discovery" = "prod" } }
  security_group_selector_terms { tags = { "karpenter.sh/discovery" = "prod" } }
}

# NVIDIA GPUs of both architectures: g5 boots the x86_64 nvidia image, g5g
# the arm64 nvidia image (AL2023, Karpenter 1.4+). With al2@latest the plan
# would fail: AL2 has no arm64 GPU image.
resource "karpenter_nodepool" "gpu" {
  name       = "gpu"
  node_class = karpenter_ec2nodeclass.accelerated.node_class

  requirements {
    key      = "karpenter.k8s.aws/instance-family"
    operator = "In"
    values   = ["g5", "g5g"]
  }

  taints {
    key    = "nvidia.com/gpu"
    value  = "true"
    effect = "NoSchedule"
  }
}

# Inferentia and Trainium get the neuron image.
resource "karpenter_nodepool" "neuron" {
  name       = "neuron"
  node_class = karpenter_ec2nodeclass.accelerated.node_class

  requirements {
    key      = "karpenter.k8s.aws/instance-family"
    operator = "In"
    values   = ["inf2", "trn1"]
  }

  taints {
    key    = "aws.amazon.com/neuron"
    effect = "NoSchedule"
  }
}

# Which image each family boots, one line per image:
# "<id> <name>: <instance families>".
output "gpu_images" {
  value = karpenter_nodepool.gpu.ami_assignments
}
