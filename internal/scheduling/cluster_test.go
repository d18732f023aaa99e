package scheduling_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling/schedulingtest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot/snapshottest"
)

// TestClusterStateTakesPodsFirst: two running m5.xlarge nodes with room
// for 3 and 1 more pods of 1 CPU; of 6 new pods, 4 go to them (the fuller
// node by Karpenter's order of existing nodes, canonically by name) and
// only 2 make a NodeClaim. Without the snapshot all 6 make NodeClaims.
func TestClusterStateTakesPodsFirst(t *testing.T) {
	e := schedulingtest.Start(t, nil)
	l := &snapshottest.List{}
	l.Add(snapshottest.Node{Name: "ip-10-0-1-1", Pool: "default", Class: "default", InstanceType: "m5.xlarge", Zone: "us-east-1a", CPU: "3920m", Memory: "14Gi", Pods: 58})
	l.Add(snapshottest.Node{Name: "ip-10-0-1-2", Pool: "default", Class: "default", InstanceType: "m5.xlarge", Zone: "us-east-1b", CPU: "3920m", Memory: "14Gi", Pods: 58})
	l.AddPod(snapshottest.Pod{Namespace: "default", Name: "old-1", Node: "ip-10-0-1-2", CPU: "2500m", Memory: "1Gi"})
	in := scheduling.Input{
		NodePools:    []string{schedulingtest.Pool("default", "", "")},
		NodeClasses:  []string{schedulingtest.Class},
		Workloads:    []string{schedulingtest.Deployment("web", 6, "1", "")},
		ClusterState: l.YAML(),
	}
	d := e.Decide(t, in)
	for _, f := range d.Findings {
		t.Errorf("finding: %s", f.Detail)
	}
	w := d.Workloads[0]
	if w.ExistingNodes["ip-10-0-1-1"] != 3 || w.ExistingNodes["ip-10-0-1-2"] != 1 || w.NodePools["default"] != 2 {
		t.Fatalf("existing %v, new %v", w.ExistingNodes, w.NodePools)
	}
	if got := fmt.Sprint(d.ExistingNodes); got != "[{ip-10-0-1-1 default [default/Deployment/web/0 default/Deployment/web/1 default/Deployment/web/2]} {ip-10-0-1-2 default [default/Deployment/web/3]}]" {
		t.Errorf("existing nodes: %s", got)
	}
	pods := 0
	for _, nc := range d.NodeClaims {
		pods += len(nc.Pods)
		for _, p := range nc.Pods {
			if p < "default/Deployment/web/4" {
				t.Errorf("NodeClaim pod %s numbered before the existing nodes' pods", p)
			}
		}
	}
	if pods != 2 {
		t.Errorf("NodeClaims take %d pods: %v", pods, d.NodeClaims)
	}
	in.ClusterState = ""
	if d := e.Decide(t, in); d.Workloads[0].NodePools["default"] != 6 || len(d.ExistingNodes) != 0 {
		t.Errorf("empty cluster: %v, %v", d.Workloads[0], d.ExistingNodes)
	}
}

// TestClusterStateFindings: a snapshot item that cannot be read is a
// cluster-state-incomplete warning naming it; the rest is used.
func TestClusterStateFindings(t *testing.T) {
	e := schedulingtest.Start(t, nil)
	l := &snapshottest.List{}
	l.Add(snapshottest.Node{Name: "ip-10-0-1-1", Pool: "default", Class: "default", InstanceType: "m5.xlarge", Zone: "us-east-1a", CPU: "3920m", Memory: "14Gi", Pods: 58})
	text := l.YAML() + "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: trimmed\nspec:\n  providerID: aws:///us-east-1a/i-9\n"
	d := e.Decide(t, scheduling.Input{
		NodePools: []string{schedulingtest.Pool("default", "", "")}, NodeClasses: []string{schedulingtest.Class},
		Workloads: []string{schedulingtest.Deployment("web", 2, "1", "")}, ClusterState: text,
	})
	if len(d.Findings) != 1 || d.Findings[0].Rule != scheduling.RuleClusterState ||
		!strings.Contains(d.Findings[0].Detail, "Node trimmed (item 2, line") || !strings.Contains(d.Findings[0].Detail, "no status.allocatable") {
		t.Fatalf("findings: %v", d.Findings)
	}
	if d.Workloads[0].ExistingNodes["ip-10-0-1-1"] != 2 {
		t.Errorf("the readable node takes no pod: %v", d.Workloads[0])
	}
}
