package scheduling_test

import (
	"fmt"
	"strings"
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
