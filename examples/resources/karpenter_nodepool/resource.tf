resource "karpenter_ec2nodeclass" "al2023" {
  name = "al2023"
  role = "KarpenterNodeRole-prod"

  ami_selector_terms { alias = "al2023@v20251209" }
  subnet_selector_terms { tags = { "karpenter.sh/discovery" = "prod" } }
  security_group_selector_terms { tags = { "karpenter.sh/discovery" = "prod" } }
}

# Two pools per architecture on one class: Graviton first (weight), x86 as
# the fallback.
resource "karpenter_nodepool" "arm64" {
  name       = "general-arm64"
  node_class = karpenter_ec2nodeclass.al2023.node_class
  weight     = 50
  limits     = { cpu = "1000", memory = "4000Gi" }

  requirements {
    key      = "kubernetes.io/arch"
    operator = "In"
    values   = ["arm64"]
  }
  requirements {
    key      = "karpenter.k8s.aws/instance-category"
    operator = "In"
    values   = ["c", "m", "r"]
  }
  requirements {
    key      = "karpenter.k8s.aws/instance-generation"
    operator = "Gt"
    values   = ["5"]
  }
  requirements {
    key      = "karpenter.sh/capacity-type"
    operator = "In"
    values   = ["spot", "on-demand"]
  }

  disruption {
    consolidation_policy = "WhenEmptyOrUnderutilized"
    consolidate_after    = "1m"

    budgets { nodes = "10%" }
    budgets {
      nodes    = "0"
      schedule = "0 9 * * mon-fri"
      duration = "8h"
      reasons  = ["Drifted"]
    }
  }
}

resource "karpenter_nodepool" "amd64" {
  name         = "general-amd64"
  node_class   = karpenter_ec2nodeclass.al2023.node_class
  weight       = 10
  expire_after = "720h"

  requirements {
    key      = "kubernetes.io/arch"
    operator = "In"
    values   = ["amd64"]
  }
  requirements {
    key      = "karpenter.k8s.aws/instance-category"
    operator = "In"
    values   = ["c", "m", "r"]
  }
}

output "arm64_images" {
  value = karpenter_nodepool.arm64.ami_assignments
}
