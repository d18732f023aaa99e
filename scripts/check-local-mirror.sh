#!/usr/bin/env bash
# make check-local-mirror: the README's recipe for a local build next to
# registry providers, run offline. `make install-mirror` fills a filesystem
# mirror; the CLI configuration of the README installs this provider from it
# and everything else "directly" — here a second filesystem mirror stands in
# for the registry, holding a tiny provider built for the check.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
os_arch="$(go env GOOS)_$(go env GOARCH)"

make --no-print-directory install-mirror MIRROR="$work/mirror" LOCAL_VERSION=0.0.1 >/dev/null
tiny="$work/registry/registry.terraform.io/example/tiny/1.0.0/$os_arch"
mkdir -p "$tiny"
go build -o "$tiny/terraform-provider-tiny_v1.0.0" ./scripts/localmirror/tinyprovider

# The README's CLI configuration, with the registry replaced by a mirror.
cat >"$work/cli.tfrc" <<TFRC
provider_installation {
  filesystem_mirror {
    path    = "$work/mirror"
    include = ["registry.terraform.io/karpenter-tf/karpenter"]
  }
  filesystem_mirror {
    path    = "$work/registry" # in real use: direct {}, the registry
    exclude = ["registry.terraform.io/karpenter-tf/karpenter"]
  }
}
TFRC

mkdir "$work/config"
cat >"$work/config/main.tf" <<'TF'
terraform {
  required_providers {
    karpenter = { source = "karpenter-tf/karpenter" }
    tiny      = { source = "example/tiny" }
  }
}

provider "tiny" {}

resource "karpenter_nodepool" "default" {
  name       = "default"
  node_class = { name = "default" }
  requirements {
    key      = "kubernetes.io/arch"
    operator = "In"
    values   = ["arm64"]
  }
}
TF

export TF_CLI_CONFIG_FILE="$work/cli.tfrc" TF_IN_AUTOMATION=1 CHECKPOINT_DISABLE=1
terraform -chdir="$work/config" init -input=false -backend=false -no-color >"$work/init.log" 2>&1 || { cat "$work/init.log"; exit 1; }
grep -q 'Installed karpenter-tf/karpenter v0.0.1' "$work/init.log" || { echo "the local build was not installed:"; cat "$work/init.log"; exit 1; }
grep -q 'Installed example/tiny v1.0.0' "$work/init.log" || { echo "the second provider was not installed:"; cat "$work/init.log"; exit 1; }
terraform -chdir="$work/config" validate -no-color
echo "check-local-mirror: terraform init installed the local build next to a second provider, and validate passed"
