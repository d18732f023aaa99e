#!/usr/bin/env bash
# make test-examples: `terraform test` on every example that has a tests/
# directory (or on the example directories given as arguments), with the
# provider built from this tree and the project's AWS emulator standing in
# for AWS. The build goes into a filesystem mirror, as the README's "Using a
# local build" recipe does, because terraform test needs terraform init
# (dev_overrides would skip it, and the test files' modules with it). Each
# example is copied to a temporary directory, so the repository stays clean.
# Needs Go and terraform >= 1.9 (mock_provider from 1.7; the eks-stack module
# calls a provider function in validations that read locals, 1.9); no AWS, no
# registry.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/emulator.sh
. scripts/emulator.sh
root=$(pwd)
# A TF_CLI_CONFIG_FILE naming a missing file makes every terraform command
# warn (the Makefile and .ci/run do the same).
if [ -n "${TF_CLI_CONFIG_FILE:-}" ] && [ ! -e "$TF_CLI_CONFIG_FILE" ]; then
  export TF_CLI_CONFIG_FILE=/dev/null
fi
scripts/require-terraform.sh
export PATH="$(go env GOPATH)/bin:$PATH"
SECONDS=0

# terraform test has mock_provider and run outputs from 1.7 on, the module's
# validations read locals from 1.9 on; the mock files also use
# override_during, from 1.11 on.
tf_version=$(terraform version -json | sed -n 's/.*"terraform_version": *"\([0-9.]*\)".*/\1/p')
tf_minor=$(echo "$tf_version" | cut -d. -f2)
if [ "$(echo "$tf_version" | cut -d. -f1)" = 1 ] && [ "${tf_minor:-0}" -lt 9 ]; then
  echo "test-examples: skipped: terraform $tf_version is older than 1.9; the examples' tests need mock_provider (1.7) and validations that read locals (1.9)"
  exit 0
fi
if [ "$(echo "$tf_version" | cut -d. -f1)" = 1 ] && [ "$tf_minor" -lt 11 ]; then
  echo "test-examples: terraform $tf_version has no override_during (1.11): skipping the tests/mock*.tftest.hcl files"
  skip_mocks=1
else
  skip_mocks=0
fi

if [ $# -gt 0 ]; then
  examples=("$@")
else
  examples=()
  for d in examples/*/tests; do
    [ -d "$d" ] && examples+=("${d%/tests}")
  done
fi
if [ ${#examples[@]} -eq 0 ]; then
  echo "test-examples: no example has a tests/ directory"
  exit 1
fi

make_work_dir

echo "==> building the provider into a filesystem mirror, and the emulator"
make --no-print-directory install-mirror MIRROR="$work/mirror" LOCAL_VERSION=0.0.1 >/dev/null

start_emulator "$work"
echo "    emulator: $url"

# The README's CLI configuration: this provider from the mirror, every other
# one from the registry (the examples need no other).
cat >"$work/cli.tfrc" <<TFRC
provider_installation {
  filesystem_mirror {
    path    = "$work/mirror"
    include = ["registry.terraform.io/karpenter-tf/karpenter"]
  }
  direct {
    exclude = ["registry.terraform.io/karpenter-tf/karpenter"]
  }
}
TFRC

export TF_CLI_CONFIG_FILE="$work/cli.tfrc" TF_IN_AUTOMATION=1 CHECKPOINT_DISABLE=1
unset AWS_PROFILE AWS_SESSION_TOKEN TF_DATA_DIR

summary=()
failed=0
for example in "${examples[@]}"; do
  example=${example%/}
  case "$example" in /*) src=$example ;; *) src="$root/$example" ;; esac
  name=$(basename "$example")
  dir="$work/examples/$name"
  mkdir -p "$dir"
  # The example without the state, lock file and .terraform of a local run.
  tar -C "$src" --exclude=.terraform --exclude=.terraform.lock.hcl --exclude='terraform.tfstate*' -cf - . | tar -C "$dir" -xf -

  args=()
  if [ "$skip_mocks" = 1 ]; then
    for f in "$dir"/tests/*.tftest.hcl; do
      case "$(basename "$f")" in mock*) ;; *) args+=("-filter=tests/$(basename "$f")") ;; esac
    done
  fi

  echo
  echo "==> terraform test $example"
  if ! terraform -chdir="$dir" init -input=false -no-color >"$work/$name.init.log" 2>&1; then
    cat "$work/$name.init.log"
    summary+=("$example: terraform init failed")
    failed=1
    continue
  fi
  if terraform -chdir="$dir" test -no-color "${args[@]}" 2>&1 | tee "$work/$name.test.log"; then
    status=ok
  else
    status=FAILED
    failed=1
  fi
  result=$(grep -E '^(Success|Failure)! ' "$work/$name.test.log" | tail -n1 || true)
  summary+=("$example: $status: ${result:-no result line}")
done

echo
echo "==> summary (terraform $tf_version, ${SECONDS}s)"
for line in "${summary[@]}"; do echo "    $line"; done
exit "$failed"
