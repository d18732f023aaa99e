package scheduling_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling/schedulingtest"
)

// TestDecisionIsCanonical: a zone spread of 4 replicas over three zones
// the pool's instance types are all offered in: Karpenter puts the extra
// replica in whichever zone its Go map yields first, the decision always
// names the same one. The same input twenty times gives one output.
func TestDecisionIsCanonical(t *testing.T) {
	e := schedulingtest.Start(t, nil)
	spread := "      topologySpreadConstraints:\n        - maxSkew: 1\n          topologyKey: topology.kubernetes.io/zone\n" +
		"          whenUnsatisfiable: DoNotSchedule\n          labelSelector:\n            matchLabels:\n              app: web\n"
	in := scheduling.Input{
		NodePools:   []string{schedulingtest.Pool("default", "", "      requirements:\n        - key: karpenter.k8s.aws/instance-family\n          operator: In\n          values: [m5, c5]\n")},
		NodeClasses: []string{schedulingtest.Class},
		Workloads:   []string{schedulingtest.Deployment("web", 4, "500m", spread)},
	}
	var first string
	zones := map[string]int{}
	for i := range 20 {
		d := e.Decide(t, in)
		out := fmt.Sprint(d.NodeClaims)
		for _, nc := range d.NodeClaims {
			zones[strings.Join(nc.Zones, "+")]++
		}
		if i == 0 {
			first = out
			continue
		}
		if out != first {
			t.Fatalf("run %d differs:\n%s\nfirst:\n%s", i, out, first)
		}
	}
	if zones["us-east-1a"] != 20 || zones["us-east-1b"] != 20 || zones["us-east-1c"] != 20 {
		t.Errorf("NodeClaims per zone over 20 runs: %v", zones)
	}
}

// TestConcurrentDecisions: a plan reads several karpenter_scheduling data
// sources at once (-parallelism=10); Karpenter's scheduler keeps state in
// package variables (metrics, NodeClaim hostnames), so concurrent decisions
// must not disturb each other (run with -race in make test-race).
func TestConcurrentDecisions(t *testing.T) {
	e := schedulingtest.Start(t, nil)
	in := scheduling.Input{
		NodePools:   []string{schedulingtest.Pool("default", "", "")},
		NodeClasses: []string{schedulingtest.Class},
		Workloads: []string{schedulingtest.Deployment("web", 6, "500m", "      affinity:\n        podAntiAffinity:\n"+
			"          requiredDuringSchedulingIgnoredDuringExecution:\n            - topologyKey: kubernetes.io/hostname\n"+
			"              labelSelector:\n                matchLabels:\n                  app: web\n")},
	}
	p := scheduling.Parse(in)
	facts := e.Facts(t, p)
	want := fmt.Sprint(e.Decide(t, in).NodeClaims)
	var wg sync.WaitGroup
	out := make([]string, 4)
	for i := range out {
		wg.Go(func() {
			d, err := scheduling.Parse(in).Decide(context.Background(), facts)
			if err != nil {
				t.Error(err)
				return
			}
			out[i] = fmt.Sprint(d.NodeClaims)
		})
	}
	wg.Wait()
	for i, got := range out {
		if got != want {
			t.Errorf("decision %d differs:\n%s\nalone:\n%s", i, got, want)
		}
	}
}
