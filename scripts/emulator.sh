# Sourced by scripts/demo.sh and scripts/test-examples.sh: build and start the
# project's AWS emulator on loopback and point the AWS SDK at it.
#
# make_work_dir: sets work to a new temporary directory and installs the
# EXIT trap that stops the emulator (if started) and removes the directory.
#
# start_emulator DIR: builds DIR/awsemu, starts it, waits for its first line
# ("listening on URL"), sets emu_pid and url, and exports the endpoint and
# dummy-credential variables.
make_work_dir() {
  work=$(mktemp -d)
  emu_pid=""
  trap cleanup_work_dir EXIT INT TERM
}

cleanup_work_dir() {
  if [ -n "$emu_pid" ]; then kill "$emu_pid" 2>/dev/null || true; wait "$emu_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}

start_emulator() {
  local dir=$1 line
  go build -o "$dir/awsemu" ./internal/awsemu/cmd/awsemu
  "$dir/awsemu" -listen 127.0.0.1:0 >"$dir/emu.log" 2>&1 &
  emu_pid=$!
  url=""
  for _ in $(seq 1 100); do
    line=$(head -n1 "$dir/emu.log" 2>/dev/null || true)
    case "$line" in listening\ on\ *) url=${line#listening on }; break ;; esac
    sleep 0.1
  done
  if [ -z "$url" ]; then echo "emulator did not start:"; cat "$dir/emu.log"; exit 1; fi
  export AWS_ENDPOINT_URL_EC2=$url AWS_ENDPOINT_URL_SSM=$url AWS_ENDPOINT_URL_EKS=$url AWS_ENDPOINT_URL_STS=$url AWS_ENDPOINT_URL_IAM=$url
  export AWS_ACCESS_KEY_ID=emulator AWS_SECRET_ACCESS_KEY=emulator AWS_REGION=us-east-1 AWS_EC2_METADATA_DISABLED=true
}
