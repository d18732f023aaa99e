terraform {
  required_version = ">= 1.9" # provider functions (1.8) in validations that read locals (1.9)

  required_providers {
    karpenter = {
      source = "karpenter-tf/karpenter"
    }
  }
}
