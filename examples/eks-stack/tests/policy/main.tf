# Organisation rules over rendered manifests, as check blocks: run by
# ../policy.tftest.hcl on the stack's `manifests` output. The provider checks
# what Karpenter, EC2 and the kubelet would refuse; rules of your own (every
# accelerated pool tainted, every class pinned, every root volume encrypted)
# are checks like these, and a test can expect them to fail, which it cannot
# do with a provider error.
terraform {
  required_version = ">= 1.5"
}

variable "manifests" {
  description = "Rendered EC2NodeClass and NodePool manifests (YAML), keyed \"<kind>/<name>\" (the stack's manifests output)."
  type        = map(string)
}

locals {
  objects = { for key, m in var.manifests : key => yamldecode(m) }
  classes = { for key, o in local.objects : key => o if o.kind == "EC2NodeClass" }
  pools   = { for key, o in local.objects : key => o if o.kind == "NodePool" }

  # Families that need a taint so that only pods asking for the accelerator
  # land on them (NVIDIA GPUs, Inferentia, Trainium).
  accelerated_families = ["g4dn", "g5", "g5g", "g6", "g6e", "p4d", "p5", "inf1", "inf2", "trn1", "trn2"]

  # Pools whose instance-family requirement names an accelerated family and
  # that taint nothing.
  untainted_accelerated = [
    for key, o in local.pools : key
    if length(setintersection(local.accelerated_families, flatten([
      for r in o.spec.template.spec.requirements : r.values
      if r.key == "karpenter.k8s.aws/instance-family" && r.operator == "In"
    ]))) > 0 && length(try(o.spec.template.spec.taints, [])) == 0
  ]

  unpinned_classes = [
    for key, o in local.classes : key
    if anytrue([for t in o.spec.amiSelectorTerms : endswith(try(t.alias, ""), "@latest")])
  ]

  unencrypted_classes = [
    for key, o in local.classes : key
    if !alltrue([for b in try(o.spec.blockDeviceMappings, []) : try(b.ebs.encrypted, false)])
  ]
}

check "accelerated_pools_are_tainted" {
  assert {
    condition     = length(local.untainted_accelerated) == 0
    error_message = "NodePools admitting GPU or Neuron families without a taint (any pod would land on them): ${join(", ", local.untainted_accelerated)}."
  }
}

check "classes_pin_an_ami_release" {
  assert {
    condition     = length(local.unpinned_classes) == 0
    error_message = "EC2NodeClasses on an @latest alias (every node is replaced when EKS publishes an image): ${join(", ", local.unpinned_classes)}."
  }
}

check "volumes_are_encrypted" {
  assert {
    condition     = length(local.unencrypted_classes) == 0
    error_message = "EC2NodeClasses with an unencrypted EBS volume: ${join(", ", local.unencrypted_classes)}."
  }
}
