# A module input declared `type = any` and checked with undeclared_keys: a
# misspelled key fails at the module call with the key it most likely meant,
# where an object type would drop it without a word.
variable "pools" {
  type = any
  default = {
    gpu = { families = ["g5"], architectures = ["amd64"] }
  }

  validation {
    condition     = length(provider::karpenter::undeclared_keys(var.pools, local.pool_keys)) == 0
    error_message = "Keys this module does not take: ${join("; ", [for k in provider::karpenter::undeclared_keys(var.pools, local.pool_keys) : "pools${k}"])}."
  }
}

locals {
  # "*": every pool name; null: a leaf whose content is not looked into.
  pool_keys = {
    "*" = {
      families      = null
      architectures = null
      taints        = [{ key = null, value = null, effect = null }]
    }
  }
}

output "undeclared" {
  # ["[\"gpu\"].familes (did you mean \"families\"?)", "[\"gpu\"].taints[0].efect (did you mean \"effect\"?)"]
  value = provider::karpenter::undeclared_keys(
    { gpu = { familes = ["g5"], taints = [{ key = "nvidia.com/gpu", efect = "NoSchedule" }] } },
    local.pool_keys,
  )
}
