package disruption_test

import (
	"context"
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

// bigFleet is bigCluster's shape (1,000 nodes of 20 pods, 20,000 pods,
// 100 PodDisruptionBudgets) on an instance type the emulator serves
// (m5.xlarge; bigCluster's m5.2xlarge is not in its catalogue, so
// Karpenter would find no instance type and consolidate nothing), each
// node three-quarters full.
func bigFleet() string {
	l := &snapshottest.List{}
	for i := range 1000 {
		name := fmt.Sprintf("ip-10-0-%d-%d", i/250, i%250)
		l.Add(snapshottest.Node{Name: name, Pool: "general", Class: "default", InstanceType: "m5.xlarge", Zone: "us-east-1a",
			CPU: "3920m", Memory: "14Gi", Pods: 58})
		for j := range 20 {
			l.AddPod(snapshottest.Pod{Namespace: fmt.Sprintf("team-%d", j%10), Name: fmt.Sprintf("app-%d-%d", i, j), Node: name,
				CPU: "150m", Memory: "512Mi", Labels: map[string]string{"app": fmt.Sprintf("app-%d", i%100)}})
		}
	}
	for i := range 100 {
		l.AddPDB(snapshottest.PDB{Namespace: fmt.Sprintf("team-%d", i%10), Name: fmt.Sprintf("app-%d", i), Labels: map[string]string{"app": fmt.Sprintf("app-%d", i)},
			MaxUnavailable: 1, DisruptionsAllowed: 1})
	}
	return l.YAML()
}

// BenchmarkConsolidation1000Nodes20000Pods: the consolidation loop (up to
// DefaultBound commands) on the parsed snapshot, with the pool of poolYAML
// (consolidateAfter 1m, two nodes at a time on a Saturday).
func BenchmarkConsolidation1000Nodes20000Pods(b *testing.B) {
	e := schedulingtest.Start(b, nil)
	s := snapshot.Parse(bigFleet())
	karp := []string{poolYAML, schedulingtest.Class}
	p := scheduling.Parse(scheduling.Input{Karpenter: karp})
	its, _ := p.InstanceTypes(context.Background(), e.Facts(b, p))
	at := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	b.ResetTimer()
	cpu0 := cpuTime()
	var c *disruption.Consolidation
	for range b.N {
		var findings []string
		c, findings = disruption.Consolidate(context.Background(), disruption.Input{Karpenter: karp, Cluster: s, At: at, Version: versions.DefaultKarpenter},
			disruption.ConsolidationInput{InstanceTypes: its})
		if len(findings) > 0 {
			b.Fatal(findings)
		}
	}
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(len(c.Commands)), "commands")
	if len(c.Commands) > 0 {
		b.Logf("first command: %+v", c.Commands[0])
	}
}
