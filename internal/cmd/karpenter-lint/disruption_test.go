package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling/schedulingtest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot/snapshottest"
)

// disruption: a NodePool whose requirements leave out r5 drifts the r5
// node; a budget of one node at a time paces it; --at in a window whose
// budget is 0 allows none; json carries the same plan.
func TestDisruptionCommand(t *testing.T) {
	dir := t.TempDir()
	pools, state := filepath.Join(dir, "pools.yaml"), filepath.Join(dir, "cluster.yaml")
	write(t, pools, schedulingtest.Class+"---\n"+schedulingtest.Pool("default",
		"  disruption:\n    consolidateAfter: 1m\n    budgets:\n      - nodes: \"1\"\n      - nodes: \"0\"\n        schedule: \"0 9 * * mon-fri\"\n        duration: 8h\n",
		"      requirements:\n        - key: karpenter.k8s.aws/instance-family\n          operator: In\n          values: [m5]\n"))
	l := &snapshottest.List{}
	for _, n := range []string{"a", "b"} {
		l.Add(snapshottest.Node{Name: "r5-" + n, Pool: "default", Class: "default", InstanceType: "r5.large", Zone: "us-east-1a", CPU: "1930m", Memory: "15Gi", Pods: 29})
	}
	l.Add(snapshottest.Node{Name: "m5-a", Pool: "default", Class: "default", InstanceType: "m5.large", Zone: "us-east-1a", CPU: "1930m", Memory: "7Gi", Pods: 29})
	write(t, state, l.YAML())
	code, out, stderr := lint(t, "", "disruption", "--pools", pools, "--cluster-state", state, "--at", "2026-11-28T12:00:00Z")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"At 2026-11-28T12:00:00Z (UTC):", "NodePool default: 2 of 3 nodes drifted, 2 can be disrupted; 1 at once, in 2 round(s)",
		"default-r5-a (node r5-a): RequirementsDrifted: its labels no longer meet the requirements"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	_, out, _ = lint(t, "", "disruption", "--pools", pools, "--cluster-state", state, "--at", "2026-11-30T10:00:00Z", "--format", "json")
	var plan struct {
		Pools []struct {
			Name            string
			Allowed, Rounds int
			Drifted         []struct{ NodeClaim, Reason string }
		}
	}
	if err := json.Unmarshal([]byte(out), &plan); err != nil || len(plan.Pools) != 1 || plan.Pools[0].Allowed != 0 || plan.Pools[0].Rounds != -1 || len(plan.Pools[0].Drifted) != 2 {
		t.Errorf("json: %v %+v\n%s", err, plan, out)
	}
	if code, _, stderr := lint(t, "", "disruption", "--pools", pools); code != 1 || !strings.Contains(stderr, "--cluster-state") {
		t.Errorf("without a snapshot: exit %d %s", code, stderr)
	}
}
