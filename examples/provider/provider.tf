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

# Against a local emulator or LocalStack:
# provider "karpenter" {
#   region = "us-east-1"
#   endpoints {
#     ec2 = "http://127.0.0.1:4566"
#     ssm = "http://127.0.0.1:4566"
#     eks = "http://127.0.0.1:4566"
#     sts = "http://127.0.0.1:4566"
#   }
# }
