# A configuration that must fail at plan, before anything reaches a cluster:
# g5g (arm64, NVIDIA T4G) with the AL2 alias, which has no arm64 GPU image.
# Karpenter would only fail at launch time with
# "no instance types satisfy requirements of amis [...]".
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

data "karpenter_ami" "g5g_on_al2" {
  ami_selector_terms = [{ alias = "al2@latest" }]
  instance_type      = "g5g.xlarge"
}
