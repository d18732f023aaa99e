#!/usr/bin/env bash
# Makes sure a terraform binary is on PATH. CI machines have one; when it is
# missing we build one through the Go module proxy (v1.5.7 is the newest
# release that `go install`s; tests that need Terraform >= 1.8 skip on it).
set -euo pipefail
if command -v terraform >/dev/null 2>&1; then
  exit 0
fi
echo "terraform is not on PATH; installing github.com/hashicorp/terraform@v1.5.7 with go install (about 2 minutes)..." >&2
go install github.com/hashicorp/terraform@v1.5.7
echo "installed $(go env GOPATH)/bin/terraform; add $(go env GOPATH)/bin to PATH" >&2
