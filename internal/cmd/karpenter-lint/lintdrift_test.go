package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling/schedulingtest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot/snapshottest"
)

// m5PoolOverR5Nodes writes NodePool "default" (instance family m5, the
// given budgets) with its class, and a snapshot of nodes r5-a and r5-b
// (outside its requirements) and m5-a; it returns the two files.
func m5PoolOverR5Nodes(t *testing.T, budgets string) (pools, state string) {
	t.Helper()
	dir := t.TempDir()
	pools, state = filepath.Join(dir, "pools.yaml"), filepath.Join(dir, "cluster.yaml")
	write(t, pools, schedulingtest.Class+"---\n"+schedulingtest.Pool("default",
		"  disruption:\n    consolidateAfter: 1m\n    budgets:\n"+budgets,
		"      requirements:\n        - key: karpenter.k8s.aws/instance-family\n          operator: In\n          values: [m5]\n"))
	l := &snapshottest.List{}
	for _, n := range []string{"r5-a", "r5-b"} {
		l.Add(snapshottest.Node{Name: n, Pool: "default", Class: "default", InstanceType: "r5.large", Zone: "us-east-1a", CPU: "1930m", Memory: "15Gi", Pods: 29})
	}
	l.Add(snapshottest.Node{Name: "m5-a", Pool: "default", Class: "default", InstanceType: "m5.large", Zone: "us-east-1a", CPU: "1930m", Memory: "7Gi", Pods: 29})
	write(t, state, l.YAML())
	return pools, state
}

// lint --cluster-state: the pool whose requirements leave out r5 drifts
// the two r5 NodeClaims of the snapshot, and says so at its document with
// the count, the reason and the budget; without the snapshot, nothing.
func TestLintClusterStateCountsDrift(t *testing.T) {
	pools, state := m5PoolOverR5Nodes(t, "      - nodes: \"1\"\n")
	code, out, stderr := lint(t, "", "lint", "--cluster-state", state, "--fail-level", "warning", pools)
	if code != exitFindings {
		t.Fatalf("exit %d, want %d: %s%s", code, exitFindings, out, stderr)
	}
	for _, want := range []string{"nodes-will-drift", "NodePool/default", "On the cluster state, 2 of the 3 NodeClaims drift (NodePool default: 2; RequirementsDrifted 2)", "at most 1 node at a time"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if _, out, _ := lint(t, "", "lint", pools); strings.Contains(out, "nodes-will-drift") {
		t.Errorf("without --cluster-state:\n%s", out)
	}
	if code, _, stderr := lint(t, "", "lint", "--cluster-state", filepath.Join(t.TempDir(), "missing.yaml"), pools); code != exitCannot || !strings.Contains(stderr, "cluster-state") {
		t.Errorf("a missing snapshot: exit %d %s", code, stderr)
	}
}

// disruption without --at evaluates the budgets at the time the snapshot
// says it was taken (a Monday morning: the weekday budget of 0).
func TestDisruptionAtTheSnapshotsTime(t *testing.T) {
	dir := t.TempDir()
	pools, state := filepath.Join(dir, "pools.yaml"), filepath.Join(dir, "cluster.yaml")
	write(t, pools, schedulingtest.Pool("default",
		"  disruption:\n    consolidateAfter: 1m\n    budgets:\n      - nodes: \"1\"\n      - nodes: \"0\"\n        schedule: \"0 9 * * mon-fri\"\n        duration: 8h\n",
		"      requirements:\n        - key: karpenter.k8s.aws/instance-family\n          operator: In\n          values: [m5]\n"))
	l := &snapshottest.List{}
	l.Add(snapshottest.Node{Name: "r5-a", Pool: "default", Class: "default", InstanceType: "r5.large", Zone: "us-east-1a", CPU: "1930m", Memory: "15Gi", Pods: 29})
	write(t, state, snapshot.TakenPrefix+"2026-11-30T10:00:00Z\n"+l.YAML())
	code, out, stderr := lint(t, "", "disruption", "--pools", pools, "--cluster-state", state)
	if code != 0 || !strings.Contains(out, "At 2026-11-30T10:00:00Z (UTC):") || !strings.Contains(out, "the drift budget allows none now") {
		t.Errorf("exit %d:\n%s%s", code, out, stderr)
	}
}

// disruption --region: against the emulator, the NodeClaim on an image
// the class no longer resolves to is AMIDrift, the one on the current
// image is not; without --kubernetes-version or --cluster the alias is
// not resolved and the output says images were not compared.
func TestDisruptionImagesAgainstTheEmulator(t *testing.T) {
	url, _ := awsemutest.Start(t)
	awsemutest.Setenv(t, url)
	dir := t.TempDir()
	pools, state := filepath.Join(dir, "pools.yaml"), filepath.Join(dir, "cluster.yaml")
	write(t, pools, schedulingtest.Class+"---\n"+schedulingtest.Pool("default", "  disruption:\n    consolidateAfter: 1m\n", "      requirements: []\n"))
	l := &snapshottest.List{}
	for name, image := range map[string]string{"current": "ami-072a2454955438439", "retired": "ami-0retired"} {
		l.Add(snapshottest.Node{Name: name, Pool: "default", Class: "default", InstanceType: "m5.large", Zone: "us-east-1a", CPU: "1930m", Memory: "7Gi", Pods: 29, ImageID: image})
	}
	write(t, state, l.YAML())
	code, out, stderr := lint(t, "", "disruption", "--pools", pools, "--cluster-state", state, "--region", "us-east-1", "--cluster", "demo", "--at", "2026-11-28T12:00:00Z")
	if code != 0 || !strings.Contains(out, "NodePool default: 1 of 2 nodes drifted") ||
		!strings.Contains(out, "default-retired (node retired): AMIDrift: its image ami-0retired is not the one EC2NodeClass default resolves to for its instance type now") ||
		strings.Contains(out, "not compared") {
		t.Errorf("exit %d:\n%s%s", code, out, stderr)
	}
	code, out, stderr = lint(t, "", "disruption", "--pools", pools, "--cluster-state", state, "--region", "us-east-1")
	if code != 0 || !strings.Contains(out, "0 of 2 nodes drifted") || !strings.Contains(out, "note: images were not compared for EC2NodeClass default") {
		t.Errorf("no Kubernetes version: exit %d:\n%s%s", code, out, stderr)
	}
}

// rules show explains nodes-will-drift, which lint reports with
// --cluster-state.
func TestRulesShowNodesWillDrift(t *testing.T) {
	if code, out, stderr := lint(t, "", "rules", "show", "nodes-will-drift"); code != exitOK || !strings.Contains(out, "cluster-state") {
		t.Errorf("exit %d:\n%s%s", code, out, stderr)
	}
}
