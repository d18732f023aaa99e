package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// The profiling switch writes a readable CPU profile named by the prefix
// and the process id, and does nothing when unset.
func TestCPUProfileSwitch(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(envCPUProfile, "")
	startCPUProfile()()
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("unset switch wrote %v", ents)
	}

	prefix := filepath.Join(dir, "plan")
	t.Setenv(envCPUProfile, prefix)
	stop := startCPUProfile()
	for i := 0; i < 1e6; i++ {
		_ = fmt.Sprint(i)
	}
	stop()
	b, err := os.ReadFile(fmt.Sprintf("%s.%d.pprof", prefix, os.Getpid()))
	if err != nil {
		t.Fatal(err)
	}
	// runtime/pprof writes a gzipped protocol buffer.
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Fatalf("not a pprof profile: %d bytes", len(b))
	}
}
