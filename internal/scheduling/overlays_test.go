package scheduling_test

import (
	"context"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling/schedulingtest"
)

const fuseOverlay = `apiVersion: karpenter.sh/v1alpha1
kind: NodeOverlay
metadata:
  name: fuse
spec:
  requirements:
    - key: node.kubernetes.io/instance-type
      operator: In
      values: ["m5.xlarge", "m5.2xlarge"]
  capacity:
    smarter-devices/fuse: "4"
`

const cheapC5 = `apiVersion: karpenter.sh/v1alpha1
kind: NodeOverlay
metadata:
  name: cheap-c5
spec:
  requirements:
    - key: karpenter.k8s.aws/instance-family
      operator: In
      values: ["c5"]
  price: "0.0001"
`

func overlayInput(overlays ...string) scheduling.Input {
	fuse := "      containers:\n        - name: sidecar\n          image: busybox\n          resources:\n            requests:\n" +
		"              smarter-devices/fuse: \"1\"\n            limits:\n              smarter-devices/fuse: \"1\"\n"
	return scheduling.Input{
		NodePools:    []string{schedulingtest.Pool("default", "", "      requirements:\n        - key: karpenter.k8s.aws/instance-family\n          operator: In\n          values: [m5, c5]\n")},
		NodeClasses:  []string{schedulingtest.Class},
		Workloads:    []string{fuseDeployment(fuse)},
		NodeOverlays: overlays,
	}
}

// fuseDeployment is a Deployment whose one container asks for the
// extended resource.
func fuseDeployment(container string) string {
	return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: fuse\nspec:\n  replicas: 2\n  selector:\n    matchLabels:\n      app: fuse\n" +
		"  template:\n    metadata:\n      labels:\n        app: fuse\n    spec:\n" + container
}

func decideWithGate(t *testing.T, e *schedulingtest.Emulator, in scheduling.Input, gate bool) *scheduling.Decision {
	t.Helper()
	p := scheduling.Parse(in)
	f := e.Facts(t, p)
	f.NodeOverlayGate = gate
	d, err := p.Decide(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func findings(d *scheduling.Decision, id string) []scheduling.Finding {
	var out []scheduling.Finding
	for _, f := range d.Findings {
		if f.Rule.ID == id {
			out = append(out, f)
		}
	}
	return out
}

// An extended resource only an overlay provides: with the gate on the pods
// land on the instance types the overlay names; with it off they cannot
// schedule and the overlay is reported as ignored.
func TestOverlayCapacitySchedules(t *testing.T) {
	e := schedulingtest.Start(t, nil)
	on := decideWithGate(t, e, overlayInput(fuseOverlay), true)
	if len(on.Workloads) != 1 || on.Workloads[0].Unschedulable != 0 {
		t.Fatalf("gate on: %+v %v", on.Workloads, on.Findings)
	}
	if len(on.NodeClaims) == 0 {
		t.Fatal("gate on: no NodeClaim")
	}
	for _, nc := range on.NodeClaims {
		for _, it := range nc.InstanceTypes {
			if it != "m5.xlarge" && it != "m5.2xlarge" {
				t.Errorf("NodeClaim may launch %s, which has no fuse device", it)
			}
		}
	}
	off := decideWithGate(t, e, overlayInput(fuseOverlay), false)
	if off.Workloads[0].Unschedulable != 2 {
		t.Errorf("gate off: %+v", off.Workloads)
	}
	if fs := findings(off, "nodeoverlay-feature-gate-off"); len(fs) != 1 || fs[0].Path.String() != "node_overlays[0]" ||
		!strings.Contains(fs[0].Detail, "FEATURE_GATES has NodeOverlay=true") {
		t.Errorf("gate off findings: %v", off.Findings)
	}
	none := decideWithGate(t, e, overlayInput(), true)
	if none.Workloads[0].Unschedulable != 2 {
		t.Errorf("no overlay: %+v", none.Workloads)
	}
}

// A price overlay reorders the instance types: the c5 types, made nearly
// free, come first in every NodeClaim that may launch them.
func TestOverlayPriceOrdersInstanceTypes(t *testing.T) {
	e := schedulingtest.Start(t, nil)
	in := scheduling.Input{
		NodePools:    []string{schedulingtest.Pool("default", "", "      requirements:\n        - key: karpenter.k8s.aws/instance-family\n          operator: In\n          values: [m5, c5]\n")},
		NodeClasses:  []string{schedulingtest.Class},
		Workloads:    []string{schedulingtest.Deployment("web", 1, "500m", "")},
		NodeOverlays: []string{cheapC5},
	}
	before := decideWithGate(t, e, in, false)
	after := decideWithGate(t, e, in, true)
	if len(before.NodeClaims) != 1 || len(after.NodeClaims) != 1 {
		t.Fatalf("NodeClaims: %v / %v", before.NodeClaims, after.NodeClaims)
	}
	if b := before.NodeClaims[0].InstanceTypes; len(b) > 1 && strings.HasPrefix(b[0], "c5.") && strings.HasPrefix(b[1], "c5.") && strings.HasPrefix(b[2], "c5.") {
		t.Fatalf("the test needs a catalogue where c5 is not already cheapest first: %v", b)
	}
	its := after.NodeClaims[0].InstanceTypes
	for i, it := range its {
		c5 := strings.HasPrefix(it, "c5.")
		if c5 && i > 0 && !strings.HasPrefix(its[i-1], "c5.") {
			t.Fatalf("with the overlay a c5 type follows another family: %v", its)
		}
	}
	if !strings.HasPrefix(its[0], "c5.") {
		t.Errorf("with the overlay the first type is %s: %v", its[0], its)
	}
}

// A document that is no NodeOverlay, and one the API server refuses, are
// input errors of node_overlays.
func TestOverlayInputErrors(t *testing.T) {
	p := scheduling.Parse(scheduling.Input{NodeOverlays: []string{schedulingtest.Class, strings.Replace(cheapC5, `price: "0.0001"`, `price: "-1"`, 1)}})
	fs := p.Findings()
	if len(fs) != 2 || !strings.Contains(fs[0].Detail, "holds NodeOverlay objects only") || !strings.Contains(fs[1].Detail, "the API server would refuse it") {
		t.Errorf("findings: %v", fs)
	}
}
