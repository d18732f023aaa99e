#!/usr/bin/env bash
# make demo: build the provider, start the local AWS emulator on the project's
# fixtures, point Terraform at the fresh build with a dev_overrides CLI config,
# plan examples/quickstart (resolved AMIs, rendered manifests, a class's
# subnets and security groups) and a failing example, then stop the emulator.
# Needs Go and terraform; no AWS, no registry.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/emulator.sh
. scripts/emulator.sh
root=$(pwd)
scripts/require-terraform.sh
export PATH="$(go env GOPATH)/bin:$PATH"

make_work_dir

echo "==> building the provider and the emulator"
go build -o "$work/bin/terraform-provider-karpenter" .

echo "==> starting the AWS emulator (EC2, SSM, EKS, STS, IAM) on loopback"
start_emulator "$work"
echo "    $url"

cat >"$work/dev.tfrc" <<TFRC
provider_installation {
  dev_overrides {
    "karpenter-tf/karpenter" = "$work/bin"
  }
  direct {}
}
TFRC

export TF_CLI_CONFIG_FILE="$work/dev.tfrc"
export TF_IN_AUTOMATION=1

# plan DIR: terraform plan without the dev_overrides warning box, which says
# nothing a demo viewer needs.
plan() {
  set -o pipefail
  terraform -chdir="$1" plan -input=false -no-color 2>&1 | awk '
    /^Warning: Provider development overrides are in effect/ { skip = 1; next }
    skip { if (/^releases\.$/) skip = 0; next }
    { print }'
}

if [ $# -gt 0 ]; then
  # scripts/demo.sh DIR...: plan those example directories instead; local
  # modules are installed with terraform get, the provider is the fresh build.
  for dir in "$@"; do
    echo
    echo "==> terraform plan $dir"
    terraform -chdir="$root/$dir" get -no-color >/dev/null
    plan "$root/$dir"
  done
else
  echo
  echo "==> terraform plan examples/quickstart"
  plan "$root/examples/quickstart"

  if [ -d "$root/examples/failing" ]; then
    echo
    echo "==> terraform plan examples/failing (this one must fail, before anything reaches a cluster)"
    # Only the diagnostics: the planned values before them are the same kind
    # of output as the quickstart's.
    if plan "$root/examples/failing" >"$work/failing.out"; then
      cat "$work/failing.out"
      echo "unexpected: examples/failing planned without an error" >&2
      exit 1
    fi
    sed -n '/^Error:/,$p' "$work/failing.out"
  fi
fi
echo
echo "==> requests the emulator answered:"
curl -s "$url/_emulator/stats" 2>/dev/null || true
echo
