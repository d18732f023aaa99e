# Check a NodePool kept as YAML in a chart or a GitOps repository (here
# inline; usually file("${path.module}/karpenter/nodepool.yaml")) with the
# provider's offline rules: minValue is no field, and WhenUnderutilized is
# the v1beta1 name of the policy.
locals {
  findings = provider::karpenter::validate_manifest(<<-EOT
    apiVersion: karpenter.sh/v1
    kind: NodePool
    metadata:
      name: spot
    spec:
      template:
        spec:
          nodeClassRef:
            group: karpenter.k8s.aws
            kind: EC2NodeClass
            name: default
          requirements:
            - key: karpenter.sh/capacity-type
              operator: In
              values: ["spot"]
            - key: karpenter.k8s.aws/instance-family
              operator: Exists
              minValue: 5
      disruption:
        consolidationPolicy: WhenUnderutilized
        consolidateAfter: 1m
  EOT
  )
}

output "manifest_errors" {
  # [
  #   "20:5 NodePool/spot spec.disruption.consolidationPolicy: v1beta1-when-underutilized",
  #   "18:11 NodePool/spot spec.template.spec.requirements[1].minValue: manifest-unknown-field",
  # ]
  value = [
    for f in local.findings : "${f.line}:${f.column} ${f.object} ${f.path}: ${f.rule}" if f.severity == "error"
  ]
}
