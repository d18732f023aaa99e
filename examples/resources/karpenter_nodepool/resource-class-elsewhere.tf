# A pool on an EC2NodeClass managed elsewhere (another stack, a Helm chart):
# only its name is known, so checks that need the class's images are skipped
# with a warning; every NodePool rule still runs. node_class stays an
# attribute (an object), whether it comes from karpenter_ec2nodeclass or not.
# The plan prints it as (sensitive value), which hides the class's images in
# every pool; the name shows in the manifest's nodeClassRef.
resource "karpenter_nodepool" "batch" {
  name       = "batch"
  node_class = { name = "shared-default" }

  requirements {
    key      = "karpenter.sh/capacity-type"
    operator = "In"
    values   = ["spot"]
  }
  requirements {
    key        = "karpenter.k8s.aws/instance-family"
    operator   = "In"
    values     = ["c5", "m5", "m7i-flex"]
    min_values = 2
  }

  startup_taints {
    key    = "node.cilium.io/agent-not-ready"
    value  = "true"
    effect = "NoExecute"
  }
}
