package disruption_test

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/disruption"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot/snapshottest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// bigCluster is a snapshot of 1,000 nodes (half on an old NodePool hash)
// with 20 pods each (20,000 pods) and 100 PodDisruptionBudgets.
func bigCluster() string {
	l := &snapshottest.List{}
	for i := range 1000 {
		h := ""
		if i%2 == 0 {
			h = "1"
		}
		name := fmt.Sprintf("ip-10-0-%d-%d", i/250, i%250)
		l.Add(snapshottest.Node{Name: name, Pool: "general", Class: "default", InstanceType: "m5.2xlarge", Zone: "us-east-1a",
			CPU: "7910m", Memory: "29Gi", Pods: 58, PoolHash: h})
		for j := range 20 {
			l.AddPod(snapshottest.Pod{Namespace: fmt.Sprintf("team-%d", j%10), Name: fmt.Sprintf("app-%d-%d", i, j), Node: name,
				CPU: "250m", Memory: "512Mi", Labels: map[string]string{"app": fmt.Sprintf("app-%d", i%100)}})
		}
	}
	for i := range 100 {
		l.AddPDB(snapshottest.PDB{Namespace: fmt.Sprintf("team-%d", i%10), Name: fmt.Sprintf("app-%d", i), Labels: map[string]string{"app": fmt.Sprintf("app-%d", i)},
			MaxUnavailable: 1, DisruptionsAllowed: 1})
	}
	return l.YAML()
}

// BenchmarkSnapshot1000Nodes20000Pods: parse the snapshot kubectl would
// print for the cluster, then decide drift and pacing on it.
func BenchmarkSnapshot1000Nodes20000Pods(b *testing.B) {
	text := bigCluster()
	b.SetBytes(int64(len(text)))
	at := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	b.ResetTimer()
	cpu0 := cpuTime()
	for range b.N {
		s := snapshot.Parse(text)
		if len(s.Nodes) != 1000 || len(s.Pods) != 20000 {
			b.Fatalf("%d nodes, %d pods: %v", len(s.Nodes), len(s.Pods), s.Findings[:min(3, len(s.Findings))])
		}
		p := disruption.Decide(disruption.Input{Karpenter: []string{poolYAML}, Cluster: s, At: at, Version: versions.DefaultKarpenter})
		if len(p.Pools) != 1 || len(p.Pools[0].Drifted) != 500 {
			b.Fatalf("%v", p.Findings)
		}
	}
	// CPU time, not wall time, is what the figure is about on a shared
	// machine.
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(len(text))/1e6, "snapshot-MB")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
