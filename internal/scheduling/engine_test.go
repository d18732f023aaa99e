package scheduling_test

import (
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling/schedulingtest"
)

func TestSmoke(t *testing.T) {
	e := schedulingtest.Start(t, nil)
	d := e.Decide(t, scheduling.Input{
		NodePools:   []string{pool},
		NodeClasses: []string{class},
		Workloads:   []string{web},
	})
	for _, f := range d.Findings {
		t.Log(f.String())
	}
	for _, w := range d.Workloads {
		t.Logf("%+v", w)
	}
	for _, nc := range d.NodeClaims {
		t.Logf("%s %v %v %v %d types: %v", nc.NodePool, nc.Zones, nc.CapacityTypes, nc.Architectures, len(nc.InstanceTypes), nc.Pods)
	}
}

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
