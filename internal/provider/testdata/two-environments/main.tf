# A two-environment Karpenter stack of 40 resources, the size of the one
# measured in issue 16 (prod and staging, 6 NodePools each): per environment
# two EC2NodeClasses and six NodePools (examples/eks-stack's module), one
# applier per manifest (fed its hash) and four stand-ins for the resources such a stack
# keeps next to Karpenter's configuration. TestAccPlanSize counts the lines
# of its `terraform plan`. Both environments use the emulator's one cluster.
terraform {
  required_providers {
    karpenter = {
      source = "karpenter-tf/karpenter"
    }
  }
}

provider "karpenter" {
  alias             = "prod"
  region            = "us-east-1"
  karpenter_version = "1.14"

  cluster {
    name = "demo"
  }
}

provider "karpenter" {
  alias             = "staging"
  region            = "us-east-1"
  karpenter_version = "1.14"

  cluster {
    name = "demo"
  }
}

module "prod" {
  source    = "./environment"
  providers = { karpenter = karpenter.prod }

  environment    = "prod"
  al2023_release = "v20251112"
}

module "staging" {
  source    = "./environment"
  providers = { karpenter = karpenter.staging }

  environment    = "staging"
  al2023_release = "v20251209"
}

output "ami_assignments" {
  value = { prod = module.prod.ami_assignments, staging = module.staging.ami_assignments }
}
