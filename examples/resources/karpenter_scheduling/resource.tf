resource "karpenter_ec2nodeclass" "default" {
  name = "default"
  role = "KarpenterNodeRole-prod"

  ami_selector_terms { alias = "al2023@latest" }
  subnet_selector_terms { tags = { "karpenter.sh/discovery" = "prod" } }
  security_group_selector_terms { tags = { "karpenter.sh/discovery" = "prod" } }
}

resource "karpenter_nodepool" "general" {
  name       = "general"
  node_class = karpenter_ec2nodeclass.default.node_class
  weight     = 10 # filled before "spot"; without it, "spot" would take every pod (equal weights go by name, in reverse)

  requirements {
    key      = "karpenter.k8s.aws/instance-category"
    operator = "In"
    values   = ["c", "m", "r"]
  }
  limits = { cpu = "1000" }
}

resource "karpenter_nodepool" "spot" {
  name       = "spot"
  node_class = karpenter_ec2nodeclass.default.node_class

  requirements {
    key      = "karpenter.sh/capacity-type"
    operator = "In"
    values   = ["spot"]
  }
}

# Decided at every terraform plan, from the pools' planned manifests: a
# change to a pool that leaves a workload without a node fails the plan, and
# the plan's diff of pods, node_claims and explanation is what the change
# does to the workloads.
resource "karpenter_scheduling" "prod" {
  node_pools   = [karpenter_nodepool.general.manifest, karpenter_nodepool.spot.manifest]
  node_classes = [karpenter_ec2nodeclass.default.manifest]

  # A map of file name to content names the file in findings. In a GitOps
  # repository:
  # workloads = { for f in fileset("${path.module}/k8s", "**/*.yaml") : f => file("${path.module}/k8s/${f}") }
  workloads = {
    "k8s/web.yaml" = <<-EOT
      apiVersion: apps/v1
      kind: Deployment
      metadata:
        name: web
      spec:
        replicas: 3
        selector:
          matchLabels:
            app: web
        template:
          metadata:
            labels:
              app: web
          spec:
            topologySpreadConstraints:
              - maxSkew: 1
                topologyKey: topology.kubernetes.io/zone
                whenUnsatisfiable: DoNotSchedule
                labelSelector:
                  matchLabels:
                    app: web
            containers:
              - name: web
                image: nginx
                resources:
                  requests:
                    cpu: 500m
                    memory: 512Mi
      ---
      apiVersion: autoscaling/v2
      kind: HorizontalPodAutoscaler
      metadata:
        name: web
      spec:
        scaleTargetRef:
          apiVersion: apps/v1
          kind: Deployment
          name: web
        minReplicas: 3
        maxReplicas: 12
    EOT
  }

  # Schedule HPA targets at their maxReplicas: will the peak fit the limits?
  scale = "max"
}

output "landing" {
  # { "default/Deployment/web" = { pods = 12, node_pools = { general = 12 }, unschedulable = 0, reason = "" } }
  value = karpenter_scheduling.prod.pods
}

output "why" {
  # { general = "1st of 2 (weight 10): took 12 pods on ... NodeClaims: default/Deployment/web 12", spot = "2nd of 2 (weight 0): took no pod" }
  value = karpenter_scheduling.prod.explanation
}
