# Check hand-written userData before it reaches a node: this one passes the
# extra args with "=", which bootstrap.sh silently ignores.
locals {
  findings = provider::karpenter::lint_user_data("Custom", <<-EOT
    #!/bin/bash
    /etc/eks/bootstrap.sh my-cluster --kubelet-extra-args='--register-with-taints=karpenter.sh/unregistered:NoExecute'
  EOT
  )
}

output "user_data_errors" {
  # ["bootstrap-option-equals", "unregistered-taint-missing"]
  value = [for f in local.findings : f.rule if f.severity == "error"]
}
