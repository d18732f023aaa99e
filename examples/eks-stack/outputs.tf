output "manifests" {
  description = "Every EC2NodeClass and NodePool, rendered and validated, keyed \"<kind>/<name>\"."
  value       = merge(module.general.manifests, module.accelerated.manifests)
}

output "ami_assignments" {
  description = "Which image each instance family of each pool boots: per pool, image key => \"<id> <name>: <families>\"."
  value       = merge(module.general.ami_assignments, module.accelerated.ami_assignments)
}

output "applied_manifest_count" {
  description = "How many manifests the applier (terraform_data.karpenter here) receives."
  value       = length(terraform_data.karpenter.input)
}
