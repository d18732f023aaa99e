# What Karpenter would put in status.amis: one image per architecture and
# variant for an alias, keyed "<architecture>/<variant>" as in the
# EC2NodeClass's amis (a release bump changes the ids, never the keys).
data "karpenter_amis" "al2023" {
  kubernetes_version = "1.32"

  ami_selector_terms { alias = "al2023@latest" }
}

# Custom images by name: only available images count, deprecated ones last,
# and one image per architecture. `skipped` says why the others are not used
# (a Packer build still pending, a failed build, an older image, ...), keyed
# by image id.
data "karpenter_amis" "team" {
  ami_family = "AL2023"

  ami_selector_terms {
    name  = "team-eks-node-al2023-*"
    owner = "self"
  }
}

output "images" {
  value = { for key, a in data.karpenter_amis.al2023.amis : key => a.id }
}

output "not_used" {
  value = { for id, s in data.karpenter_amis.team.skipped : id => s.reason }
}
