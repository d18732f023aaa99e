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
  ami_selector_terms { alias = "al2023@latest" }
}

# Which image an arm64 GPU instance gets.
data "karpenter_ami" "g5g" {
  instance_type = "g5g.xlarge"

  ami_selector_terms { alias = "al2023@latest" }
}

# A Packer series whose newest build is still pending: Karpenter ignores it.
data "karpenter_amis" "team" {
  ami_family = "AL2023"

  ami_selector_terms {
    name  = "team-eks-node-al2023-*"
    owner = "self"
  }
}

output "al2023_amis" {
  value = { for key, a in data.karpenter_amis.al2023.amis : key => "${a.id} ${a.name}" }
}

output "g5g_xlarge_gets" {
  value = "${data.karpenter_ami.g5g.id} (${data.karpenter_ami.g5g.name})"
}

output "team_amis" {
  value = { for key, a in data.karpenter_amis.team.amis : key => "${a.id} ${a.name}" }
}

output "team_skipped" {
  value = { for id, s in data.karpenter_amis.team.skipped : id => "${s.name}: ${s.reason}" }
}

# An EC2NodeClass rendered at plan: AMIs resolved, manifest validated.
resource "karpenter_ec2nodeclass" "default" {
  name = "default"
  role = "KarpenterNodeRole-demo"

  ami_selector_terms { alias = "al2023@v20251209" }
  subnet_selector_terms { tags = { "karpenter.sh/discovery" = "demo" } }
  security_group_selector_terms { tags = { "karpenter.sh/discovery" = "demo" } }
}

# A custom AMI with complete userData rendered by the provider: nodeadm,
# registering karpenter.sh/unregistered and a GPU taint.
resource "karpenter_ec2nodeclass" "custom" {
  name       = "custom"
  role       = "KarpenterNodeRole-demo"
  ami_family = "Custom"

  ami_selector_terms { tags = { "karpenter.sh/discovery" = "demo" } }
  subnet_selector_terms { tags = { "karpenter.sh/discovery" = "demo" } }
  security_group_selector_terms { tags = { "karpenter.sh/discovery" = "demo" } }

  block_device_mappings {
    device_name = "/dev/xvda"
    root_volume = true
    ebs { volume_size = "30Gi" }
  }

  bootstrap {
    format = "nodeadm"
    register_with_taints {
      key    = "example.com/gpu"
      value  = "true"
      effect = "NoSchedule"
    }
  }
}

output "default_manifest" {
  value = karpenter_ec2nodeclass.default.manifest
}

# What Karpenter would put in the class's status, read at plan with
# Karpenter's own queries: the subnets and security groups the selectors
# resolve to, and the conditions that decide whether the class is Ready.
# Each is one line per entry (subnet id => "<zone> (<zone id>), <n> free").
output "default_subnets" {
  value = karpenter_ec2nodeclass.default.subnets
}

output "default_security_groups" {
  value = karpenter_ec2nodeclass.default.security_groups
}

output "default_status_conditions" {
  value = karpenter_ec2nodeclass.default.status_conditions
}

output "custom_user_data" {
  value = karpenter_ec2nodeclass.custom.user_data
}

# A NodePool on the class: which image each admitted family boots. Its plan
# also renders the userData Karpenter would generate for its nodes and
# reports what would keep them from joining.
resource "karpenter_nodepool" "general" {
  name       = "general"
  node_class = karpenter_ec2nodeclass.default.node_class

  requirements {
    key      = "karpenter.k8s.aws/instance-family"
    operator = "In"
    values   = ["m5", "m6g", "g5", "g5g", "inf2"]
  }

  startup_taints {
    key    = "node.cilium.io/agent-not-ready"
    value  = "true"
    effect = "NoExecute"
  }
}

# One line per image: "<id> <name>: <instance families>".
output "general_ami_assignments" {
  value = karpenter_nodepool.general.ami_assignments
}
