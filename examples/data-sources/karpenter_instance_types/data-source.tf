# Which arm64 GPU instance types would this NodePool's requirements admit?
# With a region (or AWS_REGION) configured the answer comes from
# ec2:DescribeInstanceTypes; without, from the provider's embedded family
# facts (source = "embedded", instance_types empty).
data "karpenter_instance_types" "arm64_gpu" {
  requirements {
    key      = "kubernetes.io/arch"
    operator = "In"
    values   = ["arm64"]
  }
  requirements {
    key      = "karpenter.k8s.aws/instance-gpu-manufacturer"
    operator = "In"
    values   = ["nvidia"]
  }
  requirements {
    key      = "karpenter.k8s.aws/instance-cpu"
    operator = "Lt"
    values   = ["33"]
  }
  requirements {
    key      = "karpenter.sh/capacity-type"
    operator = "In"
    values   = ["spot", "on-demand"]
  }
}

output "families" {
  # Live: the region's arm64 NVIDIA families with at most 32 vCPU, e.g. ["g5g"].
  # Offline: ["g5g", "p6e-gb200"]; vCPU and capacity type are not known
  # offline, so those requirements "may match" (with a warning).
  value = data.karpenter_instance_types.arm64_gpu.families
}

output "types" {
  value = {
    for name, t in data.karpenter_instance_types.arm64_gpu.instance_types :
    name => "${t.vcpu} vCPU, ${t.memory_mib} MiB, ${t.gpu_count} x ${t.gpu_name}"
  }
}

output "source" {
  value = data.karpenter_instance_types.arm64_gpu.source # "live" or "embedded"
}
