# What the pools of the repository do to the cluster as it runs. In a GitOps
# repository:
#   node_pools    = [for f in fileset(path.module, "karpenter/*.yaml") : file("${path.module}/${f}")]
#   cluster_state = file("${path.module}/cluster.yaml")
# where cluster.yaml is written by `karpenter-lint snapshot -o cluster.yaml`
# (or kubectl get nodes,nodeclaims,pods,poddisruptionbudgets,daemonsets,nodepools,ec2nodeclasses -A -o yaml).
data "karpenter_disruption" "prod" {
  node_pools = [<<-EOT
    apiVersion: karpenter.sh/v1
    kind: NodePool
    metadata:
      name: general
    spec:
      template:
        spec:
          nodeClassRef:
            group: karpenter.k8s.aws
            kind: EC2NodeClass
            name: default
          requirements:
            - key: karpenter.k8s.aws/instance-family
              operator: In
              values: [m5, c5] # was [m5, c5, r5]
      disruption:
        consolidateAfter: 1m
        budgets:
          - nodes: "1"
          - nodes: "0"
            schedule: "0 9 * * mon-fri"
            duration: 8h
    EOT
  ]
  cluster_state = <<-EOT
    apiVersion: v1
    kind: List
    items:
      - apiVersion: v1
        kind: Node
        metadata:
          name: ip-10-0-1-7.ec2.internal
          labels:
            karpenter.sh/nodepool: general
            karpenter.sh/initialized: "true"
            node.kubernetes.io/instance-type: r5.large
            karpenter.k8s.aws/instance-family: r5
        spec:
          providerID: aws:///us-east-1a/i-0abc
        status:
          allocatable: { cpu: 1930m, memory: 15Gi, pods: "29" }
          conditions: [{ type: Ready, status: "True" }]
      - apiVersion: karpenter.sh/v1
        kind: NodeClaim
        metadata:
          name: general-x7k2p
          labels:
            karpenter.sh/nodepool: general
            node.kubernetes.io/instance-type: r5.large
            karpenter.k8s.aws/instance-family: r5
        spec:
          nodeClassRef: { group: karpenter.k8s.aws, kind: EC2NodeClass, name: default }
          requirements: []
        status:
          providerID: aws:///us-east-1a/i-0abc
          nodeName: ip-10-0-1-7.ec2.internal
  EOT

  # Budgets are evaluated at this instant (default: the snapshot's time,
  # else now).
  at = "2026-11-30T10:00:00Z"
}

output "drifted" {
  # { "general-x7k2p" = "RequirementsDrifted" }
  value = {
    for d in data.karpenter_disruption.prod.drifted :
    d.node_claim => d.blocked_by == "" ? d.reason : "${d.reason}, blocked: ${d.blocked_by}"
  }
}

output "general_rounds" {
  # -1: the weekday budget of 0 holds the replacement at 10:00 on a Monday.
  value = data.karpenter_disruption.prod.pacing["general"].rounds
}

# Fail the plan's checks when a drifted node cannot be replaced (a
# do-not-disrupt pod, a PodDisruptionBudget that allows no eviction).
check "drift_is_not_blocked" {
  assert {
    condition     = data.karpenter_disruption.prod.totals.blocked == 0
    error_message = "${data.karpenter_disruption.prod.totals.blocked} drifted nodes cannot be replaced now."
  }
}
