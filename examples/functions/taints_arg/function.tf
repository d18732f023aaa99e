# Register a node with the NodePool's taints and Karpenter's registration
# taint, in the exact form bootstrap.sh's --kubelet-extra-args needs.
locals {
  node_taints = [
    { key = "dedicated", value = "gpu", effect = "NoSchedule" },
    { key = "karpenter.sh/unregistered", value = null, effect = "NoExecute" },
  ]
}

output "kubelet_extra_args" {
  # "--kubelet-extra-args '--register-with-taints=dedicated=gpu:NoSchedule,karpenter.sh/unregistered:NoExecute'"
  value = "--kubelet-extra-args '${provider::karpenter::taints_arg(local.node_taints)}'"
}
