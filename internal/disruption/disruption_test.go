package disruption_test

import (
	"strings"
	"testing"
	"time"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/disruption"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot/snapshottest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// poolYAML is the snapshots' NodePool as configured.
const poolYAML = snapshottest.PoolYAML

// cluster: five nodes of pool general: two on the current hash, one on an
// old hash, one an r5 (outside the requirements), one on an old hash whose
// pod a PodDisruptionBudget protects, one whose pod has do-not-disrupt.
func cluster(t *testing.T) *snapshot.Snapshot {
	h := snapshottest.PoolHash(t)
	l := &snapshottest.List{}
	node := func(name, it, hash string) snapshottest.Node {
		return snapshottest.Node{Name: name, Pool: "general", Class: "default", InstanceType: it, Zone: "us-east-1a", CPU: "1930m", Memory: "7Gi", Pods: 29, PoolHash: hash}
	}
	l.Add(node("current-1", "m5.large", h)).Add(node("current-2", "c5.large", h)).Add(node("old-hash", "m5.large", "123"))
	l.Add(node("r5", "r5.large", h)).Add(node("pdb", "m5.large", "123")).Add(node("dnd", "m5.large", "123"))
	l.AddPod(snapshottest.Pod{Namespace: "db", Name: "db-0", Node: "pdb", CPU: "1", Memory: "1Gi", Labels: map[string]string{"app": "db"}})
	l.AddPDB(snapshottest.PDB{Namespace: "db", Name: "db", Labels: map[string]string{"app": "db"}, MaxUnavailable: 0})
	l.AddPod(snapshottest.Pod{Namespace: "batch", Name: "job-1", Node: "dnd", CPU: "1", Memory: "1Gi", Annotations: map[string]string{"karpenter.sh/do-not-disrupt": "true"}})
	s := snapshot.Parse(l.YAML())
	if len(s.Findings) > 0 {
		t.Fatal(s.Findings)
	}
	return s
}

func TestDriftAndPacing(t *testing.T) {
	saturday := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	p := disruption.Decide(disruption.Input{Karpenter: []string{poolYAML}, Cluster: cluster(t), At: saturday, Version: versions.DefaultKarpenter})
	if len(p.Findings) > 0 || len(p.Pools) != 1 {
		t.Fatalf("%v %v", p.Findings, p.Pools)
	}
	pp := p.Pools[0]
	got := map[string]string{}
	for _, d := range pp.Drifted {
		got[d.NodeClaim] = d.Reason + "|" + d.Blocked
	}
	want := map[string]string{
		"general-old-hash": "NodePoolDrifted|",
		"general-r5":       "RequirementsDrifted|",
		"general-pdb":      "NodePoolDrifted|PodDisruptionBudget db/db allows pod db-0 no disruption (status.disruptionsAllowed 0)",
		"general-dnd":      "NodePoolDrifted|pod batch/job-1 has karpenter.sh/do-not-disrupt",
	}
	if len(got) != len(want) {
		t.Fatalf("drifted %v", got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
	if pp.Nodes != 6 || pp.Candidates != 2 || pp.Allowed != 2 || pp.Rounds != 1 {
		t.Errorf("nodes %d candidates %d allowed %d rounds %d", pp.Nodes, pp.Candidates, pp.Allowed, pp.Rounds)
	}
	// Monday 10:00 UTC: the schedule's budget of 0 is active.
	monday := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	p = disruption.Decide(disruption.Input{Karpenter: []string{poolYAML}, Cluster: cluster(t), At: monday, Version: versions.DefaultKarpenter})
	if pp := p.Pools[0]; pp.Allowed != 0 || pp.Rounds != -1 {
		t.Errorf("Monday: allowed %d rounds %d", pp.Allowed, pp.Rounds)
	}
	if s := p.Summary(); !strings.Contains(s, "NodePool general: 4 of 6 nodes drifted, 2 can be disrupted; the drift budget allows none now") {
		t.Errorf("summary:\n%s", s)
	}
}

func TestDecideFindings(t *testing.T) {
	p := disruption.Decide(disruption.Input{Karpenter: []string{"kind: ConfigMap\n"}, At: time.Now()})
	if strings.Join(p.Findings, "\n") != "the configuration holds no karpenter.sh/v1 NodePool\nno cluster state: give the snapshot `"+snapshot.Command+"` prints" {
		t.Errorf("findings %q", p.Findings)
	}
}
