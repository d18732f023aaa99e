output "manifests" {
  description = "Every EC2NodeClass and NodePool, rendered and validated, keyed \"<kind>/<name>\"."
  value       = merge(module.general.manifests, module.accelerated.manifests)
}

output "ami_assignments" {
  description = "Which image each instance family of each pool boots."
  value = {
    for pool, assignments in merge(module.general.ami_assignments, module.accelerated.ami_assignments) :
    pool => { for a in assignments : "${a.architecture}/${a.variant}" => "${a.ami_name} (${join(", ", a.instance_families)})" }
  }
}

output "applied_manifest_count" {
  description = "How many manifests the applier (terraform_data.karpenter here) receives."
  value       = length(terraform_data.karpenter.input)
}
