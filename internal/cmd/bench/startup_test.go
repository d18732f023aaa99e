package main

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/provider"
)

// The test binary doubles as the provider plugin, so the probe is tested
// without building the provider, and as the plugin wrapper Run installs
// (os.Executable under a plugin's name), as the bench program does.
func TestMain(m *testing.M) {
	if wrapped := os.Getenv(envWrapReal); wrapped != "" {
		wrapMain(wrapped, os.Getenv(envWrapOut))
		return
	}
	if os.Getenv("KARPENTER_BENCH_TEST_PLUGIN") == "1" {
		// As main serves it.
		provider.QuietUnreadSDKLogs()
		if err := tf6server.Serve("registry.terraform.io/karpenter-tf/karpenter", provider.NewProtocol6("test")); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestProbeStartup(t *testing.T) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "KARPENTER_BENCH_TEST_PLUGIN=1")
	s, err := probeStartup(context.Background(), cmd, 6)
	if err != nil {
		t.Fatal(err)
	}
	if s.Ready <= 0 || s.Schema < s.Ready || s.SchemaBytes < 1024 {
		t.Errorf("probe: %+v", s)
	}
	t.Logf("ready %s, schema %s (%d bytes)", s.Ready, s.Schema, s.SchemaBytes)
}
