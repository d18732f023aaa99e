package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling/schedulingtest"
)

const fuseOverlay = `apiVersion: karpenter.sh/v1alpha1
kind: NodeOverlay
metadata:
  name: fuse
spec:
  requirements:
    - key: karpenter.k8s.aws/instance-family
      operator: In
      values: ["m5"]
  capacity:
    smarter-devices/fuse: "4"
`

// lint: an overlay warns that Karpenter ignores it unless --feature-gates
// turns NodeOverlay on; a misspelt gate is a usage error.
func TestLintFeatureGates(t *testing.T) {
	code, out, stderr := lint(t, fuseOverlay, "lint", "--format", "compact", "-")
	if code != exitOK || !strings.Contains(out, "<stdin>:1:1: warning nodeoverlay-feature-gate-off") || !strings.Contains(out, "pass --feature-gates NodeOverlay=true") {
		t.Errorf("gate off: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr = lint(t, fuseOverlay, "lint", "--format", "compact", "--feature-gates", "NodeOverlay=true", "-")
	if code != exitOK || out != "" {
		t.Errorf("gate on: exit %d\n%s%s", code, out, stderr)
	}
	code, _, stderr = lint(t, fuseOverlay, "lint", "--feature-gates", "NodeOverlays=true", "-")
	if code != exitCannot || !strings.Contains(stderr, `unknown feature gate "NodeOverlays"`) {
		t.Errorf("misspelt gate: exit %d\n%s", code, stderr)
	}
}

// schedule: the overlays among --pools give the m5 types the extended
// resource a workload asks for, with the gate on only.
func TestScheduleNodeOverlay(t *testing.T) {
	url, _ := awsemutest.Start(t)
	awsemutest.Setenv(t, url)
	dir := t.TempDir()
	pools, workloads := filepath.Join(dir, "pools.yaml"), filepath.Join(dir, "apps.yaml")
	write(t, pools, schedulingtest.Class+"---\n"+schedulingtest.Pool("general", "", "")+"---\n"+fuseOverlay)
	write(t, workloads, "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: fuse\nspec:\n  replicas: 1\n  selector:\n    matchLabels:\n      app: fuse\n"+
		"  template:\n    metadata:\n      labels:\n        app: fuse\n    spec:\n      containers:\n        - name: app\n          image: busybox\n"+
		"          resources:\n            limits:\n              smarter-devices/fuse: \"1\"\n")
	args := []string{"schedule", "--pools", pools, "--workloads", workloads, "--region", "us-east-1", "--cluster", "demo", "--format", "compact"}
	code, out, stderr := lint(t, "", args...)
	if code != exitFindings || !strings.Contains(out, "warning nodeoverlay-feature-gate-off") || !strings.Contains(out, "error pod-unschedulable") {
		t.Errorf("gate off: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr = lint(t, "", append(args, "--feature-gates", "NodeOverlay=true")...)
	if code != exitOK || strings.Contains(out, "pod-unschedulable") {
		t.Errorf("gate on: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr = lint(t, "", "schedule", "--pools", pools, "--workloads", workloads, "--region", "us-east-1", "--cluster", "demo", "--feature-gates", "NodeOverlay=true")
	if code != exitOK || !strings.Contains(out, "m5.") || strings.Contains(out, "NodeOverlay") {
		t.Errorf("gate on, text: exit %d\n%s%s", code, out, stderr)
	}
}
