# The SSM parameters Karpenter reads for an alias, keyed "<arch>/<variant>".
# Useful to grant ssm:GetParameter on exactly these names, or to read them
# with another tool.
output "al2023_parameters" {
  value = provider::karpenter::ami_ssm_parameters("al2023@latest", "1.32")
  # {
  #   "amd64/neuron"   = "/aws/service/eks/optimized-ami/1.32/amazon-linux-2023/x86_64/neuron/recommended/image_id"
  #   "amd64/nvidia"   = "/aws/service/eks/optimized-ami/1.32/amazon-linux-2023/x86_64/nvidia/recommended/image_id"
  #   "amd64/standard" = "/aws/service/eks/optimized-ami/1.32/amazon-linux-2023/x86_64/standard/recommended/image_id"
  #   "arm64/nvidia"   = "/aws/service/eks/optimized-ami/1.32/amazon-linux-2023/arm64/nvidia/recommended/image_id"
  #   "arm64/standard" = "/aws/service/eks/optimized-ami/1.32/amazon-linux-2023/arm64/standard/recommended/image_id"
  # }
}
