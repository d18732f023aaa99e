package disruption_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/disruption"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling/schedulingtest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot/snapshottest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// consolidate decides consolidation of snap on pool with the emulator's
// instance types.
func consolidate(t *testing.T, e *schedulingtest.Emulator, pool string, snap *snapshot.Snapshot, at time.Time) *disruption.Consolidation {
	t.Helper()
	p := scheduling.Parse(scheduling.Input{Karpenter: []string{pool, schedulingtest.Class}})
	its, _ := p.InstanceTypes(context.Background(), e.Facts(t, p))
	c, findings := disruption.Consolidate(context.Background(), disruption.Input{Karpenter: []string{pool, schedulingtest.Class}, Cluster: snap, At: at, Version: versions.DefaultKarpenter},
		disruption.ConsolidationInput{InstanceTypes: its})
	if len(findings) > 0 {
		t.Fatalf("findings: %v", findings)
	}
	return c
}

func TestConsolidationSmoke(t *testing.T) {
	e := schedulingtest.Start(t, nil)
	pool := schedulingtest.Pool("general", "  disruption:\n    consolidateAfter: 0s\n", "      requirements:\n        - key: karpenter.k8s.aws/instance-family\n          operator: In\n          values: [m5, c5]\n")
	l := &snapshottest.List{}
	for i := range 3 {
		l.Add(snapshottest.Node{Name: fmt.Sprintf("n%d", i), Pool: "general", Class: "default", InstanceType: "m5.xlarge", Zone: "us-east-1a", CPU: "3920m", Memory: "14Gi", Pods: 58})
	}
	l.AddPod(snapshottest.Pod{Namespace: "default", Name: "a", Node: "n1", CPU: "500m", Memory: "512Mi"})
	l.AddPod(snapshottest.Pod{Namespace: "default", Name: "b", Node: "n2", CPU: "500m", Memory: "512Mi"})
	c := consolidate(t, e, pool, snapshot.Parse(l.YAML()), time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC))
	b, _ := json.MarshalIndent(c, "", "  ")
	t.Log(string(b))
}
