package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// The peer row: hashicorp/time's time_static is a resource of a
// terraform-plugin-framework provider with a trivial schema and no remote
// calls, so its plan is the floor any framework provider pays per resource
// (plugin start, gRPC, the framework's conversions). It is built from source
// through the Go module proxy, as a tagged module, into a cache directory.
const (
	timeModule  = "github.com/hashicorp/terraform-provider-time"
	timeVersion = "v0.14.2"
)

// defaultTimeCache is where the built time provider is kept between runs.
func defaultTimeCache() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "karpenter-bench", "terraform-provider-time-"+timeVersion)
}

// timeProvider returns the time provider binary in cacheDir, building it
// when missing. why says why it is absent (the proxy does not serve the
// version, the build failed): the peer row is then skipped.
func timeProvider(ctx context.Context, cacheDir string, log io.Writer) (bin, why string) {
	if cacheDir == "" {
		return "", "no -time-cache given"
	}
	bin = filepath.Join(cacheDir, "terraform-provider-time")
	if fi, err := os.Stat(bin); err == nil && fi.Mode().IsRegular() {
		return bin, ""
	}
	// Outside any module, so the project's go.mod is neither read nor
	// changed; the module's own go.mod pins its dependencies.
	tmp, err := os.MkdirTemp("", "karpenter-bench-time-")
	if err != nil {
		return "", err.Error()
	}
	defer func() { _ = os.RemoveAll(tmp) }() // best effort: a temporary directory
	goEnv := append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOBIN="+cacheDir)
	list := exec.CommandContext(ctx, "go", "list", "-m", "-versions", timeModule)
	list.Dir, list.Env = tmp, goEnv
	out, err := list.CombinedOutput()
	if err != nil {
		return "", fmt.Sprintf("the module proxy does not list %s (go list -m -versions: %v: %s)", timeModule, err, strings.TrimSpace(string(out)))
	}
	if !slices.Contains(strings.Fields(string(out)), timeVersion) {
		return "", fmt.Sprintf("the module proxy does not serve %s@%s (it lists: %s)", timeModule, timeVersion, strings.TrimSpace(string(out)))
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return "", err.Error()
	}
	t := time.Now()
	_, _ = fmt.Fprintf(log, "bench: building %s@%s into %s\n", timeModule, timeVersion, cacheDir)
	install := exec.CommandContext(ctx, "go", "install", "-trimpath", "-ldflags", "-s -w", timeModule+"@"+timeVersion)
	install.Dir, install.Env = tmp, goEnv
	if out, err := install.CombinedOutput(); err != nil {
		return "", fmt.Sprintf("go install %s@%s failed: %v: %s", timeModule, timeVersion, err, tail(strings.TrimSpace(string(out)), 5))
	}
	_, _ = fmt.Fprintln(log, "bench: built in", since(t))
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Sprintf("go install %s@%s left no %s", timeModule, timeVersion, bin)
	}
	return bin, ""
}
