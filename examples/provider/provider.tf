provider "karpenter" {
  region = "us-west-2"

  # The Karpenter release of the cluster: rules and rendering follow it.
  karpenter_version = "1.14"

  cluster {
    name = "prod"
    # Discovered with eks:DescribeCluster when something needs them:
    # kubernetes_version, endpoint, certificate_authority, service_cidr.
  }

  # The Karpenter controller's Helm settings that change every node's
  # capacity (data "karpenter_node"); these are Karpenter's defaults.
  controller {
    vm_memory_overhead_percent = 0.075
    reserved_enis              = 0
  }
}

