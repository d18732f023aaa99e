# A cluster's Karpenter configuration as one module call per EC2NodeClass:
# general-purpose pools on AL2023 and accelerated pools (NVIDIA GPUs of both
# architectures, Inferentia/Trainium). In a real stack the cluster name and
# node role come from terraform-aws-modules/eks (module.eks.cluster_name,
# module.karpenter.node_iam_role_name); here they are variables, so the
# example plans on its own. Nothing is applied to the cluster by this
# provider: see the `manifests` output and terraform_data.karpenter below.
terraform {
  required_version = ">= 1.9" # the karpenter-pools module checks its inputs with a provider function

  required_providers {
    karpenter = {
      source = "karpenter-tf/karpenter"
    }
  }
}

provider "karpenter" {
  region            = var.region
  karpenter_version = "1.14"

  cluster {
    name = var.cluster_name
  }
}

module "general" {
  source = "./modules/karpenter-pools"

  name         = "general"
  cluster_name = var.cluster_name
  node_role    = var.node_role
  ami_alias    = "al2023@${var.al2023_release}"

  pools = {
    # Graviton first (higher weight), x86 as the fallback.
    general-arm64 = {
      categories     = ["c", "m", "r"]
      min_generation = 6
      architectures  = ["arm64"]
      capacity_types = ["spot", "on-demand"]
      weight         = 50
      limits         = { cpu = "1000", memory = "4000Gi" }
    }
    general-amd64 = {
      categories     = ["c", "m"]
      min_generation = 5
      weight         = 10
      limits         = { cpu = "500" }
    }
  }
}

module "accelerated" {
  source = "./modules/karpenter-pools"

  name         = "accelerated"
  cluster_name = var.cluster_name
  node_role    = var.node_role
  ami_alias    = "al2023@${var.al2023_release}"

  # Module arguments are values (objects and lists); the module writes each
  # element as a block of the resources.
  block_device_mappings = [{
    device_name = "/dev/xvda"
    root_volume = true
    ebs         = { volume_size = "200Gi", volume_type = "gp3", encrypted = true }
  }]

  pools = {
    # g5g is arm64: it boots the arm64 NVIDIA image of the same release.
    gpu = {
      families      = ["g4dn", "g5", "g5g"]
      architectures = ["amd64", "arm64"]
      taints        = [{ key = "nvidia.com/gpu", value = "true", effect = "NoSchedule" }]
      labels        = { "example.com/accelerator" = "nvidia" }
      limits        = { "nvidia.com/gpu" = "16" }
      # Training jobs run for hours: only empty GPU nodes are consolidated.
      disruption = { consolidation_policy = "WhenEmpty", consolidate_after = "10m" }
    }
    neuron = {
      families = ["inf2", "trn1"]
      taints   = [{ key = "aws.amazon.com/neuron", effect = "NoSchedule" }]
      labels   = { "example.com/accelerator" = "neuron" }
    }
  }
}

# Stands in for whatever applies the manifests (kubectl_manifest,
# kubernetes_manifest, a Helm chart, a GitOps commit): it changes exactly
# when a rendered manifest does. It takes each manifest's SHA-256, not its
# text: the plan already prints every manifest in its resource's `manifest`
# and in the `manifests` output, and a third copy would only make the plan
# longer (a real applier receives the text, e.g. kubectl_manifest's
# yaml_body = karpenter_nodepool.this["gpu"].manifest).
resource "terraform_data" "karpenter" {
  input = { for key, m in merge(module.general.manifests, module.accelerated.manifests) : key => sha256(m) }
}
