# A configuration that must fail at plan, before anything reaches a cluster:
# a NodePool of g5g (arm64, NVIDIA T4G) on an EC2NodeClass with the AL2 alias,
# which publishes no arm64 GPU image. Karpenter would only fail at launch
# time, with "no instance types satisfy requirements of amis [...]".
# And an EC2NodeClass selecting a security group by the Name tag the console
# shows: Karpenter matches `name` against the group name, so the term matches
# nothing and the nodes would silently start without that group.
terraform {
  required_providers {
    karpenter = {
      source = "karpenter-tf/karpenter"
    }
  }
}

provider "karpenter" {
  region = "us-east-1"
  cluster {
    name = "demo"
  }
}

resource "karpenter_ec2nodeclass" "al2" {
  name = "al2"
  role = "KarpenterNodeRole-demo"

  ami_selector_terms { alias = "al2@v20251209" }
  subnet_selector_terms { tags = { "karpenter.sh/discovery" = "demo" } }
  security_group_selector_terms { tags = { "karpenter.sh/discovery" = "demo" } }
}

resource "karpenter_nodepool" "gpu_arm64" {
  name       = "gpu-arm64"
  node_class = karpenter_ec2nodeclass.al2.node_class

  requirements {
    key      = "karpenter.k8s.aws/instance-family"
    operator = "In"
    values   = ["g5g"]
  }
}

resource "karpenter_ec2nodeclass" "extra_group" {
  name = "extra-group"
  role = "KarpenterNodeRole-demo"

  ami_selector_terms { alias = "al2023@v20251209" }
  subnet_selector_terms { tags = { "karpenter.sh/discovery" = "demo" } }
  security_group_selector_terms { tags = { "karpenter.sh/discovery" = "demo" } }
  security_group_selector_terms { name = "demo-extra" }
}
