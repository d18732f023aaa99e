package scheduling_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling/schedulingtest"
)

const class = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  amiSelectorTerms:
    - alias: al2023@latest
  role: KarpenterNodeRole-demo
  subnetSelectorTerms:
    - tags:
        karpenter.sh/discovery: demo
  securityGroupSelectorTerms:
    - tags:
        karpenter.sh/discovery: demo
`

const pool = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
`

const web = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
        - name: app
          image: nginx
          resources:
            requests:
              cpu: 500m
`

// TestDecisionIsCanonical: a zone spread of 4 replicas over three zones
// the pool's instance types are all offered in: Karpenter puts the extra
// replica in whichever zone its Go map yields first, the decision always
// names the same one. The same input twenty times gives one output.
func TestDecisionIsCanonical(t *testing.T) {
	e := schedulingtest.Start(t, nil)
	in := scheduling.Input{
		NodePools:   []string{pool + "      requirements:\n        - key: karpenter.k8s.aws/instance-family\n          operator: In\n          values: [m5, c5]\n"},
		NodeClasses: []string{class},
		Workloads: []string{strings.Replace(strings.Replace(web, "replicas: 3", "replicas: 4", 1), "      containers:",
			"      topologySpreadConstraints:\n        - maxSkew: 1\n          topologyKey: topology.kubernetes.io/zone\n"+
				"          whenUnsatisfiable: DoNotSchedule\n          labelSelector:\n            matchLabels:\n              app: web\n      containers:", 1)},
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
