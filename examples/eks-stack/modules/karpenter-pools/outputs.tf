output "node_class" {
  description = "The class, as karpenter_nodepool consumes it: pass it to pools defined outside this module."
  value       = karpenter_ec2nodeclass.this.node_class
}

output "manifests" {
  description = "Every rendered manifest, keyed \"<kind>/<name>\": the EC2NodeClass first, then the NodePools."
  value = merge(
    { "EC2NodeClass/${var.name}" = karpenter_ec2nodeclass.this.manifest },
    { for name, pool in karpenter_nodepool.this : "NodePool/${name}" => pool.manifest },
  )
}

output "amis" {
  description = "The images of the class, as Karpenter would put them in status.amis: key => \"<id> | <name> | <creation date> | <requirements>\"."
  value       = karpenter_ec2nodeclass.this.amis
}

output "ami_assignments" {
  description = "Per pool: which image each admitted instance family boots, key => \"<id> <name>: <families>\"."
  value       = { for name, pool in karpenter_nodepool.this : name => pool.ami_assignments }
}
