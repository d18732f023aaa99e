terraform {
  required_version = ">= 1.5"

  required_providers {
    karpenter = {
      source = "karpenter-tf/karpenter"
    }
  }
}
