# A Compute Savings Plan: on-demand prices 28 % lower, so Karpenter compares
# on-demand and spot at what you actually pay.
resource "karpenter_nodeoverlay" "savings_plan" {
  name             = "savings-plan-compute"
  weight           = 10
  price_adjustment = "-28%"

  requirements {
    key      = "karpenter.sh/capacity-type"
    operator = "In"
    values   = ["on-demand"]
  }
}

# A device plugin's extended resource on the Graviton families, so pods that
# ask for smarter-devices/fuse get a node that has it.
resource "karpenter_nodeoverlay" "fuse" {
  name     = "fuse-devices"
  capacity = { "smarter-devices/fuse" = "20" }

  requirements {
    key      = "kubernetes.io/arch"
    operator = "In"
    values   = ["arm64"]
  }
}

# Apply the manifests with the tool of your choice; Karpenter uses them only
# with its NodeOverlay feature gate on (settings.featureGates.nodeOverlay in
# the Helm chart, and controller { feature_gates { node_overlay = true } } in
# this provider's block).
output "node_overlays" {
  value = [karpenter_nodeoverlay.savings_plan.manifest, karpenter_nodeoverlay.fuse.manifest]
}
