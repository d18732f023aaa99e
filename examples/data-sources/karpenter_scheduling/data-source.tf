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

  requirements {
    key      = "karpenter.k8s.aws/instance-category"
    operator = "In"
    values   = ["c", "m", "r"]
  }
  limits = { cpu = "1000" }
}

resource "karpenter_nodepool" "gpu" {
  name       = "gpu"
  node_class = karpenter_ec2nodeclass.default.node_class

  requirements {
    key      = "karpenter.k8s.aws/instance-gpu-manufacturer"
    operator = "In"
    values   = ["nvidia"]
  }

  taints {
    key    = "nvidia.com/gpu"
    value  = "true"
    effect = "NoSchedule"
  }
}

# Where the pods of these workloads land, or why Karpenter would not place
# them, decided before any of them reaches a cluster.
data "karpenter_scheduling" "prod" {
  node_pools   = [karpenter_nodepool.general.manifest, karpenter_nodepool.gpu.manifest]
  node_classes = [karpenter_ec2nodeclass.default.manifest]

  # In a GitOps repository:
  # workloads = [for f in fileset("${path.module}/k8s", "*.yaml") : file("${path.module}/k8s/${f}")]
  workloads = [<<-EOT
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
    apiVersion: storage.k8s.io/v1
    kind: StorageClass
    metadata:
      name: gp3
      annotations:
        storageclass.kubernetes.io/is-default-class: "true"
    provisioner: ebs.csi.aws.com
    volumeBindingMode: WaitForFirstConsumer
    ---
    apiVersion: apps/v1
    kind: StatefulSet
    metadata:
      name: db
    spec:
      replicas: 2
      serviceName: db
      selector:
        matchLabels:
          app: db
      template:
        metadata:
          labels:
            app: db
        spec:
          containers:
            - name: postgres
              image: postgres
              resources:
                requests:
                  cpu: "1"
                  memory: 4Gi
      volumeClaimTemplates:
        - metadata:
            name: data
          spec:
            accessModes: [ReadWriteOnce]
            resources:
              requests:
                storage: 100Gi
    ---
    apiVersion: batch/v1
    kind: Job
    metadata:
      name: train
    spec:
      parallelism: 2
      completions: 4
      template:
        spec:
          restartPolicy: Never
          tolerations:
            - key: nvidia.com/gpu
              operator: Exists
              effect: NoSchedule
          containers:
            - name: train
              image: trainer
              resources:
                limits:
                  nvidia.com/gpu: 1
    ---
    apiVersion: apps/v1
    kind: DaemonSet
    metadata:
      name: node-agent
      namespace: kube-system
    spec:
      selector:
        matchLabels:
          app: node-agent
      template:
        metadata:
          labels:
            app: node-agent
        spec:
          tolerations:
            - operator: Exists
          containers:
            - name: agent
              image: agent
              resources:
                requests:
                  cpu: 100m
                  memory: 128Mi
  EOT
    # A mistake the plan stops, uncommented: a GPU Job without a toleration
    # for the gpu pool's taint fails with pod-unschedulable at this element,
    # quoting Karpenter ("did not tolerate taint (taint=nvidia.com/gpu=true:NoSchedule)")
    # and naming the toleration to add.
    # , <<-EOT
    #   apiVersion: batch/v1
    #   kind: Job
    #   metadata:
    #     name: finetune
    #   spec:
    #     template:
    #       spec:
    #         restartPolicy: Never
    #         containers:
    #           - name: finetune
    #             image: trainer
    #             resources:
    #               limits:
    #                 nvidia.com/gpu: 1
    # EOT
  ]

  # Acknowledged workloads are reported as warnings instead:
  # allow_unschedulable = ["default/Job/finetune"]
}

output "landing" {
  # { "default/Deployment/web" = { pods = 3, node_pools = { general = 3 }, unschedulable = 0, reason = "" }, ... }
  value = data.karpenter_scheduling.prod.pods
}

# Make whatever applies the manifests wait for the decision, so a workload
# that would not land stops the apply before anything reaches the cluster:
# resource "kubernetes_manifest" "general" {
#   manifest   = yamldecode(karpenter_nodepool.general.manifest)
#   depends_on = [data.karpenter_scheduling.prod]
# }
