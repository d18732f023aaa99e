# The quickstart `make demo` plans against the project's AWS emulator.
# Against a real account, drop nothing: the same configuration works with
# your AWS credentials and region, and a real cluster name.
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
    # Kubernetes version, endpoint, CA and service CIDR are discovered with
    # eks:DescribeCluster when something needs them.
    name = "demo"
  }
}

# What Karpenter would put in status.amis for al2023@latest: one image per
# architecture and variant (standard, nvidia, neuron).
data "karpenter_amis" "al2023" {
  ami_selector_terms = [{ alias = "al2023@latest" }]
}

# Which image an arm64 GPU instance gets.
data "karpenter_ami" "g5g" {
  ami_selector_terms = [{ alias = "al2023@latest" }]
  instance_type      = "g5g.xlarge"
}

# A Packer series whose newest build is still pending: Karpenter ignores it.
data "karpenter_amis" "team" {
  ami_family         = "AL2023"
  ami_selector_terms = [{ name = "team-eks-node-al2023-*", owner = "self" }]
}

output "al2023_amis" {
  value = [for a in data.karpenter_amis.al2023.amis : "${a.architecture}/${a.variant}: ${a.id} ${a.name}"]
}

output "g5g_xlarge_gets" {
  value = "${data.karpenter_ami.g5g.id} (${data.karpenter_ami.g5g.name})"
}

output "team_amis" {
  value = [for a in data.karpenter_amis.team.amis : "${a.architecture}: ${a.id} ${a.name}"]
}

output "team_skipped" {
  value = [for s in data.karpenter_amis.team.skipped : "${s.id} ${s.name}: ${s.reason}"]
}
