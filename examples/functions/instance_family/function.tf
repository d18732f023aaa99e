# Family facts offline: architecture, GPU manufacturer and accelerator.
# An unknown family (or a type name such as "g5g.xlarge") is an error.
locals {
  families = ["g5g", "g4ad", "inf2", "m7i-flex", "t4g"]
  facts    = { for f in local.families : f => provider::karpenter::instance_family(f) }
}

output "arm64_gpu_families" {
  # ["g5g"]: these need an arm64 NVIDIA image (al2023 with Karpenter >= 1.4, or bottlerocket)
  value = [for f, x in local.facts : f if x.architecture == "arm64" && x.gpu_manufacturer != ""]
}

output "neuron_families" {
  # ["inf2"]
  value = [for f, x in local.facts : f if x.accelerator == "neuron"]
}
