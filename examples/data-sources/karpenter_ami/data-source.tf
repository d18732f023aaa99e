# Which image an arm64 GPU instance gets: the arm64 NVIDIA variant of AL2023
# (published since EKS AMI v20250403, queried by Karpenter since 1.4).
data "karpenter_ami" "g5g" {
  instance_type = "g5g.xlarge"

  ami_selector_terms { alias = "al2023@latest" }
}

# A hypothetical instance: architecture plus accelerator.
data "karpenter_ami" "arm64_gpu_bottlerocket" {
  architecture = "arm64"
  accelerator  = "nvidia"

  ami_selector_terms { alias = "bottlerocket@latest" }
}

output "g5g_image" {
  value = "${data.karpenter_ami.g5g.id} (${data.karpenter_ami.g5g.name}, ${data.karpenter_ami.g5g.variant})"
}
