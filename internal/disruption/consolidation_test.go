package disruption_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/karpenter/pkg/cloudprovider"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/disruption"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling/schedulingtest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot/snapshottest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// consolidate decides consolidation of snap on pool with the emulator's
// instance types.
func consolidate(t *testing.T, e *schedulingtest.Emulator, pool string, snap *snapshot.Snapshot, at time.Time, bound int) *disruption.Consolidation {
	t.Helper()
	p := scheduling.Parse(scheduling.Input{Karpenter: []string{pool, schedulingtest.Class}})
	its, _ := p.InstanceTypes(context.Background(), e.Facts(t, p))
	c, findings := disruption.Consolidate(context.Background(), disruption.Input{Karpenter: []string{pool, schedulingtest.Class}, Cluster: snap, At: at, Version: versions.DefaultKarpenter},
		disruption.ConsolidationInput{InstanceTypes: its, Bound: bound})
	if len(findings) > 0 {
		t.Fatalf("findings: %v", findings)
	}
	return c
}

const families = "      requirements:\n        - key: karpenter.k8s.aws/instance-family\n          operator: In\n          values: [m5, c5]\n"

// fleet is three m5.xlarge nodes of pool general, a empty and b and c
// running one small pod each, with the pods and annotations given.
func fleet(extra ...snapshottest.Pod) *snapshot.Snapshot {
	l := &snapshottest.List{}
	for _, n := range []string{"a", "b", "c"} {
		l.Add(snapshottest.Node{Name: n, Pool: "general", Class: "default", InstanceType: "m5.xlarge", Zone: "us-east-1a", CPU: "3920m", Memory: "14Gi", Pods: 58})
	}
	l.AddPod(snapshottest.Pod{Namespace: "web", Name: "web-1", Node: "b", CPU: "500m", Memory: "512Mi"})
	l.AddPod(snapshottest.Pod{Namespace: "web", Name: "web-2", Node: "c", CPU: "500m", Memory: "512Mi"})
	for _, p := range extra {
		l.AddPod(p)
	}
	return snapshot.Parse(l.YAML())
}

var noon = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

// The command loop: the empty node goes first (Emptiness), then the two
// underused nodes are replaced by one cheaper node (multi-node), and the
// replacement, running both pods, is kept; each command is applied before
// the next is decided.
func TestConsolidationLoop(t *testing.T) {
	e := schedulingtest.Start(t, nil)
	pool := schedulingtest.Pool("general", "  disruption:\n    consolidateAfter: 0s\n    budgets:\n      - nodes: \"100%\"\n", families)
	c := consolidate(t, e, pool, fleet(), noon, 0)
	if len(c.Commands) != 2 || c.Truncated {
		t.Fatalf("%d commands (truncated %v): %+v", len(c.Commands), c.Truncated, c.Commands)
	}
	empty, multi := c.Commands[0], c.Commands[1]
	if empty.Method != "empty" || empty.Reason != "Empty" || empty.Decision != "delete" || len(empty.Candidates) != 1 || empty.Candidates[0].Node != "a" ||
		empty.Savings != empty.Candidates[0].Price || empty.Candidates[0].Price <= 0 || empty.PodsMoved != 0 {
		t.Errorf("first: %+v", empty)
	}
	if multi.Method != "multi" || multi.Reason != "Underutilized" || multi.Decision != "replace" || len(multi.Candidates) != 2 || multi.PodsMoved != 2 ||
		len(multi.Replacements) != 1 || multi.Replacements[0].InstanceTypes[0] != "c5.large" || multi.Replacements[0].Pool != "general" {
		t.Fatalf("second: %+v", multi)
	}
	r := multi.Replacements[0]
	if want := multi.Candidates[0].Price + multi.Candidates[1].Price - r.Price; multi.Savings < want-1e-9 || multi.Savings > want+1e-9 {
		t.Errorf("savings %v, want the candidates' prices less the replacement's, %v", multi.Savings, want)
	}
	if len(c.Kept) != 1 || c.Kept[0].Node != r.Node || c.Kept[0].Why == "" {
		t.Errorf("kept: %+v", c.Kept)
	}
	// Bounded at one command, the loop says there is more.
	if c := consolidate(t, e, pool, fleet(), noon, 1); len(c.Commands) != 1 || !c.Truncated {
		t.Errorf("bound 1: %d commands, truncated %v", len(c.Commands), c.Truncated)
	}
}

// Why nodes are kept after the loop: a do-not-disrupt pod (Karpenter's
// event; the other two nodes' pods move onto it), the
// consolidateAfter wait (with the instant the node becomes
// consolidatable), a budget of 0, consolidation disabled.
func TestConsolidationKept(t *testing.T) {
	e := schedulingtest.Start(t, nil)
	open := "  disruption:\n    consolidateAfter: 0s\n    budgets:\n      - nodes: \"100%\"\n"
	for _, tc := range []struct {
		name, disruption string
		at               time.Time
		pods             []snapshottest.Pod
		node, want       string
	}{
		{"do-not-disrupt", open, noon, []snapshottest.Pod{{Namespace: "batch", Name: "train", Node: "a", CPU: "100m", Memory: "64Mi",
			Annotations: map[string]string{"karpenter.sh/do-not-disrupt": "true"}}}, "a", `Pod has "karpenter.sh/do-not-disrupt" annotation`},
		{"consolidateAfter", "  disruption:\n    consolidateAfter: 1h\n", snapshottest.Created.Add(20 * time.Minute), nil, "a",
			"consolidateAfter 1h0m0s has not passed since its last pod event (2026-11-01T00:00:00Z): consolidatable from 2026-11-01T01:00:00Z"},
		{"budget 0", "  disruption:\n    consolidateAfter: 0s\n    budgets:\n      - nodes: \"0\"\n", noon, nil, "a", "the NodePool's disruption budget allows no disruption now"},
		{"disabled", "  disruption:\n    consolidateAfter: Never\n", noon, nil, "b", "consolidation disabled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := consolidate(t, e, schedulingtest.Pool("general", tc.disruption, families), fleet(tc.pods...), tc.at, 0)
			for _, k := range c.Kept {
				if k.Node == tc.node {
					if !strings.Contains(k.Why, tc.want) {
						t.Errorf("%s kept because %q, want %q", k.Node, k.Why, tc.want)
					}
					return
				}
			}
			t.Errorf("%s not kept: %+v", tc.node, c.Kept)
		})
	}
}

// Without the pools' instance types consolidation is not decided, and the
// finding says so.
func TestConsolidationNeedsInstanceTypes(t *testing.T) {
	c, findings := disruption.Consolidate(context.Background(), disruption.Input{Karpenter: []string{schedulingtest.Pool("general", "", families)}, Cluster: fleet(), At: noon},
		disruption.ConsolidationInput{})
	if c != nil || len(findings) != 1 || !strings.Contains(findings[0], "instance types") {
		t.Errorf("%v %v", c, findings)
	}
	// A pool the scheduling decision left out: named, and its nodes kept
	// (Karpenter's own event: the pool is not among those it lists).
	c, findings = disruption.Consolidate(context.Background(), disruption.Input{Karpenter: []string{schedulingtest.Pool("general", "", families)}, Cluster: fleet(), At: noon},
		disruption.ConsolidationInput{InstanceTypes: map[string][]*cloudprovider.InstanceType{"other": nil}})
	if c == nil || len(c.Commands) != 0 || len(c.Kept) != 3 || len(findings) != 1 || !strings.Contains(findings[0], "NodePool general: its instance types are not known") ||
		!strings.Contains(c.Kept[0].Why, "NodePool not found (NodePool=general)") {
		t.Errorf("%+v %v", c, findings)
	}
	if c, findings := disruption.Consolidate(context.Background(), disruption.Input{Karpenter: []string{schedulingtest.Pool("general", "", families)}, At: noon},
		disruption.ConsolidationInput{}); c != nil || len(findings) != 1 || !strings.Contains(findings[0], "no cluster state") {
		t.Errorf("no snapshot: %v %v", c, findings)
	}
}
