package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling/schedulingtest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot/snapshottest"
)

// disruption: a NodePool whose requirements leave out r5 drifts the r5
// node; a budget of one node at a time paces it; --at in a window whose
// budget is 0 allows none; json carries the same plan.
func TestDisruptionCommand(t *testing.T) {
	pools, state := m5PoolOverR5Nodes(t, "      - nodes: \"1\"\n      - nodes: \"0\"\n        schedule: \"0 9 * * mon-fri\"\n        duration: 8h\n")
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

// disruption --region: consolidation on the emulator's instance types:
// the empty node is deleted first, then the two underused ones are
// replaced by one cheaper node; json carries the same commands.
func TestDisruptionConsolidation(t *testing.T) {
	url, _ := awsemutest.Start(t)
	awsemutest.Setenv(t, url)
	dir := t.TempDir()
	pools, state := filepath.Join(dir, "pools.yaml"), filepath.Join(dir, "cluster.yaml")
	write(t, pools, schedulingtest.Class+"---\n"+schedulingtest.Pool("default",
		"  disruption:\n    consolidateAfter: 0s\n    budgets:\n      - nodes: \"100%\"\n",
		"      requirements:\n        - key: karpenter.k8s.aws/instance-family\n          operator: In\n          values: [m5, c5]\n"))
	l := &snapshottest.List{}
	for _, n := range []string{"a", "b", "c"} {
		l.Add(snapshottest.Node{Name: n, Pool: "default", Class: "default", InstanceType: "m5.xlarge", Zone: "us-east-1a", CPU: "3920m", Memory: "14Gi", Pods: 58})
	}
	l.AddPod(snapshottest.Pod{Namespace: "web", Name: "web-1", Node: "b", CPU: "500m", Memory: "512Mi"})
	l.AddPod(snapshottest.Pod{Namespace: "web", Name: "web-2", Node: "c", CPU: "500m", Memory: "512Mi"})
	write(t, state, l.YAML())
	args := []string{"disruption", "--pools", pools, "--cluster-state", state, "--at", "2026-11-28T12:00:00Z", "--region", "us-east-1"}
	code, out, stderr := lint(t, "", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"Consolidation at 2026-11-28T12:00:00Z (UTC), one command after the other:",
		"  1. Empty, empty: delete a (m5.xlarge on-demand us-east-1a, $0.1920/h); 0 pod(s) move; saves $0.1920/h",
		"  2. Underutilized, multi: replace b (m5.xlarge on-demand us-east-1a, $0.1920/h), c (m5.xlarge on-demand us-east-1a, $0.1920/h) with a NodeClaim of NodePool default (c5.large"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	_, out, _ = lint(t, "", append(args, "--format", "json")...)
	var plan struct {
		Consolidation struct {
			Commands []struct {
				Method, Decision string
				Candidates       []struct{ Node string }
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &plan); err != nil || len(plan.Consolidation.Commands) < 2 || plan.Consolidation.Commands[1].Method != "multi" {
		t.Errorf("json: %v %+v\n%s", err, plan, out)
	}
	if code, _, stderr := lint(t, "", append(args, "--max-commands", "0")...); code != 1 || !strings.Contains(stderr, "--max-commands 0") {
		t.Errorf("--max-commands 0: exit %d %s", code, stderr)
	}
}
