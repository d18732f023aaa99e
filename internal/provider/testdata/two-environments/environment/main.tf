terraform {
  required_providers {
    karpenter = {
      source = "karpenter-tf/karpenter"
    }
  }
}

variable "environment" {
  type = string
}

variable "al2023_release" {
  type = string
}

module "general" {
  source = "../modules/karpenter-pools"

  name         = "${var.environment}-general"
  cluster_name = "demo"
  node_role    = "KarpenterNodeRole-demo"
  ami_alias    = "al2023@${var.al2023_release}"

  pools = {
    "${var.environment}-general-arm64" = {
      categories     = ["c", "m", "r"]
      min_generation = 6
      architectures  = ["arm64"]
      capacity_types = ["spot", "on-demand"]
      weight         = 50
      limits         = { cpu = "1000", memory = "4000Gi" }
    }
    "${var.environment}-general-amd64" = {
      categories     = ["c", "m"]
      min_generation = 5
      weight         = 10
      limits         = { cpu = "500" }
    }
    "${var.environment}-batch" = {
      categories     = ["c", "m", "r"]
      min_generation = 6
      architectures  = ["amd64", "arm64"]
      capacity_types = ["spot"]
      taints         = [{ key = "example.com/batch", value = "true", effect = "NoSchedule" }]
      labels         = { "example.com/workload" = "batch" }
    }
  }
}

module "accelerated" {
  source = "../modules/karpenter-pools"

  name         = "${var.environment}-accelerated"
  cluster_name = "demo"
  node_role    = "KarpenterNodeRole-demo"
  ami_alias    = "al2023@${var.al2023_release}"

  block_device_mappings = [{
    device_name = "/dev/xvda"
    root_volume = true
    ebs         = { volume_size = "200Gi", volume_type = "gp3", encrypted = true }
  }]

  pools = {
    "${var.environment}-gpu" = {
      families      = ["g4dn", "g5", "g5g"]
      architectures = ["amd64", "arm64"]
      taints        = [{ key = "nvidia.com/gpu", value = "true", effect = "NoSchedule" }]
      labels        = { "example.com/accelerator" = "nvidia" }
      limits        = { "nvidia.com/gpu" = "16" }
      disruption    = { consolidation_policy = "WhenEmpty", consolidate_after = "10m" }
    }
    "${var.environment}-gpu-inference" = {
      families = ["g5"]
      taints   = [{ key = "nvidia.com/gpu", value = "true", effect = "NoSchedule" }]
      labels   = { "example.com/accelerator" = "nvidia", "example.com/workload" = "inference" }
    }
    "${var.environment}-neuron" = {
      families = ["inf2", "trn1"]
      taints   = [{ key = "aws.amazon.com/neuron", effect = "NoSchedule" }]
      labels   = { "example.com/accelerator" = "neuron" }
    }
  }
}

# One applier per manifest. It stands in for kubectl_manifest or
# kubernetes_manifest and, as examples/eks-stack's applier, takes the
# manifest's SHA-256: it changes exactly when its manifest does, and the plan
# prints each manifest once, in its resource's `manifest` (a real applier
# receives the text, and prints it once more).
resource "terraform_data" "manifest" {
  for_each = merge(module.general.manifests, module.accelerated.manifests)

  input = sha256(each.value)
}

# Stand-ins for what such a stack keeps next to Karpenter's configuration
# (the node role, the interruption queue, the controller's Helm release and
# the nodes' EKS access entry).
resource "terraform_data" "node_role" {
  input = { name = "KarpenterNodeRole-${var.environment}" }
}

resource "terraform_data" "interruption_queue" {
  input = { name = "karpenter-${var.environment}", message_retention_seconds = 300 }
}

resource "terraform_data" "karpenter_release" {
  input = { chart = "oci://public.ecr.aws/karpenter/karpenter", version = "1.14.1", namespace = "kube-system" }
}

resource "terraform_data" "access_entry" {
  input = { principal = terraform_data.node_role.input.name, type = "EC2_LINUX" }
}

output "ami_assignments" {
  value = merge(module.general.ami_assignments, module.accelerated.ami_assignments)
}
