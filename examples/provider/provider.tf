provider "karpenter" {
  region = "us-west-2"

  # The Karpenter release of the cluster: rules and rendering follow it.
  karpenter_version = "1.14"

  cluster {
    name = "prod"
    # Discovered with eks:DescribeCluster when something needs them:
    # kubernetes_version, endpoint, certificate_authority, service_cidr.
  }
}

