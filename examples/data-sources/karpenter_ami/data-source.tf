# Which image an arm64 GPU instance gets: the arm64 NVIDIA variant of AL2023
# (published since EKS AMI v20250403, queried by Karpenter since 1.4).
data "karpenter_ami" "g5g" {
  ami_selector_terms = [{ alias = "al2023@latest" }]
  instance_type      = "g5g.xlarge"
}

# A hypothetical instance: architecture plus accelerator.
data "karpenter_ami" "arm64_gpu_bottlerocket" {
  ami_selector_terms = [{ alias = "bottlerocket@latest" }]
  architecture       = "arm64"
  accelerator        = "nvidia"
}

output "g5g_image" {
  value = "${data.karpenter_ami.g5g.id} (${data.karpenter_ami.g5g.name}, ${data.karpenter_ami.g5g.variant})"
}
