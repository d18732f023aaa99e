package scheduling_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling/schedulingtest"
)

// TestPoolOrderExplained: Karpenter's order is weight, then the name in
// reverse: of "general" and "spot" (weight 0 both), "spot" takes the
// pods; the explanation says so per pool, and nodepool-weight-tie warns at
// the pool that takes nothing, naming the one Karpenter fills first. A
// weight on "general" puts it first and the warning goes.
func TestPoolOrderExplained(t *testing.T) {
	e := schedulingtest.Start(t, nil)
	in := scheduling.Input{
		NodePools:   []string{schedulingtest.Pool("general", "", ""), schedulingtest.Pool("spot", "", "")},
		NodeClasses: []string{schedulingtest.Class},
		Workloads:   []string{schedulingtest.Deployment("web", 3, "500m", "")},
	}
	d := e.Decide(t, in)
	ex := d.Explain()
	if !regexp.MustCompile(`^1st of 2 \(weight 0, equal weight with "general": reverse name order\): took 3 pods on 1 NodeClaims: default/Deployment/web 3$`).MatchString(ex["spot"]) ||
		!strings.HasPrefix(ex["general"], `2nd of 2 (weight 0, equal weight with "spot": reverse name order): took no pod`) {
		t.Errorf("explanation %q", ex)
	}
	var ties []scheduling.Finding
	for _, f := range d.Findings {
		if f.Rule.ID == "nodepool-weight-tie" {
			ties = append(ties, f)
		}
	}
	if len(ties) != 1 || ties[0].Severity != rules.Warning || ties[0].Path.String() != "node_pools[0]" ||
		!strings.Contains(ties[0].Detail, `so "spot" takes them and "general" only what "spot" cannot`) ||
		!strings.Contains(ties[0].Detail, `"default/Deployment/web"`) || ties[0].Object != "/NodePool/general" {
		t.Errorf("weight tie findings %+v", ties)
	}
	in.NodePools[0] = schedulingtest.Pool("general", "  weight: 10\n", "")
	d = e.Decide(t, in)
	if ex := d.Explain(); !strings.HasPrefix(ex["general"], "1st of 2 (weight 10): took 3 pods") || !strings.HasPrefix(ex["spot"], "2nd of 2 (weight 0): took no pod") {
		t.Errorf("weighted: explanation %q", ex)
	}
	for _, f := range d.Findings {
		t.Errorf("weighted: finding %s: %s", f.Rule.ID, f.Detail)
	}
}

// TestPoolLeftOutExplained: a pool whose requirements leave no instance
// type is explained as left out, and its pods get the scheduler's own
// reason.
func TestPoolLeftOutExplained(t *testing.T) {
	e := schedulingtest.Start(t, nil)
	d := e.Decide(t, scheduling.Input{
		NodePools: []string{schedulingtest.Pool("none", "", "      requirements:\n        - key: node.kubernetes.io/instance-type\n"+
			"          operator: In\n          values: [x9.nonexistent]\n")},
		NodeClasses: []string{schedulingtest.Class},
		Workloads:   []string{schedulingtest.Deployment("web", 1, "500m", "")},
	})
	if ex := d.Explain()["none"]; !strings.HasPrefix(ex, "left out: its requirements leave no instance type") {
		t.Errorf("explanation %q", ex)
	}
	if r := d.Workloads[0].Reason; r != "nodepool requirements filtered out all available instance types" {
		t.Errorf("reason %q", r)
	}
}

// TestWorkloadNames: with the map form of workloads, findings are at
// workloads["<file>"] and name the file and the line in it.
func TestWorkloadNames(t *testing.T) {
	e := schedulingtest.Start(t, nil)
	d := e.Decide(t, scheduling.Input{
		NodePools:     []string{schedulingtest.Pool("default", "", "")},
		NodeClasses:   []string{schedulingtest.Class},
		Workloads:     []string{schedulingtest.Deployment("ok", 1, "500m", ""), "# bad\n---\n" + schedulingtest.Deployment("bad", 1, "500m", "      nodeSelector:\n        team: x\n")},
		WorkloadNames: []string{"apps/ok.yaml", "apps/bad.yaml"},
	})
	if len(d.Findings) != 1 {
		t.Fatalf("findings %+v", d.Findings)
	}
	f := d.Findings[0]
	if f.Path.String() != `workloads["apps/bad.yaml"]` || !strings.Contains(f.Detail, "default/Deployment/bad (apps/bad.yaml, line 3)") {
		t.Errorf("finding at %s: %s", f.Path, f.Detail)
	}
}

// TestZoneTieIsChance: a spread over zones a pool names together, whose
// instance types are not offered alike in them: Karpenter puts each
// replica in whichever zone its Go map yields, and the decision reports
// the three zones for each NodeClaim, the same on every run; as drawn,
// each NodeClaim is in one zone.
func TestZoneTieIsChance(t *testing.T) {
	e := schedulingtest.Start(t, nil)
	spread := "      topologySpreadConstraints:\n        - maxSkew: 1\n          topologyKey: topology.kubernetes.io/zone\n" +
		"          whenUnsatisfiable: DoNotSchedule\n          labelSelector:\n            matchLabels:\n              app: web\n"
	in := scheduling.Input{
		NodePools: []string{schedulingtest.Pool("default", "", "      requirements:\n        - key: topology.kubernetes.io/zone\n"+
			"          operator: In\n          values: [us-east-1a, us-east-1b, us-east-1c]\n")},
		NodeClasses: []string{schedulingtest.Class},
		Workloads:   []string{schedulingtest.Deployment("web", 4, "500m", spread)},
	}
	var first string
	for i := range 20 {
		d := e.Decide(t, in)
		out := fmt.Sprint(d.NodeClaims)
		for _, nc := range d.NodeClaims {
			if strings.Join(nc.Zones, ",") != "us-east-1a,us-east-1b,us-east-1c" {
				t.Fatalf("run %d: NodeClaim zones %v, want the three tied zones", i, nc.Zones)
			}
		}
		for _, nc := range d.Drawn {
			if len(nc.Zones) != 1 {
				t.Fatalf("run %d: drawn NodeClaim zones %v, want the one Karpenter picked", i, nc.Zones)
			}
		}
		if i == 0 {
			first = out
		} else if out != first {
			t.Fatalf("run %d differs:\n%s\nfirst:\n%s", i, out, first)
		}
	}
	// A pod pinned to a zone tells it from the others: not chance.
	in.Workloads = append(in.Workloads, schedulingtest.Deployment("pinned", 1, "500m", "      nodeSelector:\n        topology.kubernetes.io/zone: us-east-1b\n"))
	d := e.Decide(t, in)
	for _, nc := range d.NodeClaims {
		if strings.Contains(fmt.Sprint(nc.Pods), "pinned") && strings.Join(nc.Zones, ",") != "us-east-1b" {
			t.Errorf("the pinned pod's NodeClaim is in %v", nc.Zones)
		}
	}
}

// TestCompare: a heavier pool moves the workload and swaps its NodeClaim;
// the same decision compares empty.
func TestCompare(t *testing.T) {
	e := schedulingtest.Start(t, nil)
	in := scheduling.Input{
		NodePools:   []string{schedulingtest.Pool("general", "", "")},
		NodeClasses: []string{schedulingtest.Class},
		Workloads:   []string{schedulingtest.Deployment("web", 2, "500m", "")},
	}
	before := e.Decide(t, in)
	if diff := scheduling.Compare(before, e.Decide(t, in)); len(diff.Moves)+len(diff.Added)+len(diff.Removed) != 0 {
		t.Errorf("the same input: %+v", diff)
	}
	in.NodePools = append(in.NodePools, schedulingtest.Pool("spot", "  weight: 10\n", ""))
	diff := scheduling.Compare(before, e.Decide(t, in))
	if len(diff.Moves) != 1 || fmt.Sprint(diff.Moves[0]) != "{default/Deployment/web map[general:2] map[spot:2]}" ||
		len(diff.Added) != 1 || diff.Added[0].NodePool != "spot" || len(diff.Removed) != 1 || diff.Removed[0].NodePool != "general" {
		t.Errorf("diff %+v", diff)
	}
}
