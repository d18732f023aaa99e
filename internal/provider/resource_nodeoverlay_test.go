package provider

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

const fuseOverlayHCL = `
resource "karpenter_nodeoverlay" "fuse" {
  name     = "fuse"
  weight   = 10
  capacity = { "smarter-devices/fuse" = "4" }
  requirements {
    key      = "karpenter.k8s.aws/instance-family"
    operator = "In"
    values   = ["m5"]
  }
}
`

const fuseOverlayManifest = `apiVersion: karpenter.sh/v1alpha1
kind: NodeOverlay
metadata:
  name: fuse
spec:
  capacity:
    smarter-devices/fuse: "4"
  requirements:
  - key: karpenter.k8s.aws/instance-family
    operator: In
    values:
    - m5
  weight: 10
`

// fuseWorkload is a Deployment whose pods need the overlay's resource.
const fuseWorkload = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: fuse\nspec:\n  replicas: 2\n  selector:\n    matchLabels:\n      app: fuse\n" +
	"  template:\n    metadata:\n      labels:\n        app: fuse\n    spec:\n      containers:\n        - name: app\n          image: busybox\n" +
	"          resources:\n            limits:\n              smarter-devices/fuse: \"1\"\n"

func TestAccNodeOverlayResource(t *testing.T) {
	prov := emulatorProvider(t, `cluster { name = "demo" }`)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				// The CRD's CEL rule, at terraform validate.
				Config: prov + `
resource "karpenter_nodeoverlay" "x" {
  name             = "both"
  price            = "0.05"
  price_adjustment = "-10%"
  requirements {
    key      = "karpenter.sh/capacity-type"
    operator = "Exists"
  }
}
`,
				ExpectError: regexp.MustCompile(`crd-validation(.|\n)*cannot set\s+both\s+'price'`),
			},
			{
				// Karpenter's runtime validation, at the requirement.
				Config: prov + `
resource "karpenter_nodeoverlay" "x" {
  name             = "spot"
  price_adjustment = "-10%"
  requirements {
    key      = "karpenter.sh/capacity-type"
    operator = "In"
    values   = ["Spot"]
  }
}
`,
				ExpectError: regexp.MustCompile(`nodeoverlay-runtime-invalid(.|\n)*requirements\[0\]`),
			},
			{
				Config: prov + fuseOverlayHCL,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("karpenter_nodeoverlay.fuse", tfjsonpath.New("manifest"), knownvalue.StringExact(fuseOverlayManifest)),
				},
			},
		},
	})
}

// With the gate off the plan warns at the resource; with it on it does
// not, and the scheduling data source applies the overlay: the pods that
// need its resource land on m5 types.
func TestAccNodeOverlayGate(t *testing.T) {
	off := emulatorProvider(t, `cluster { name = "demo" }`)
	var warned bool
	for _, d := range planDiagnostics(t, off+fuseOverlayHCL) {
		if d.Severity == "error" {
			t.Errorf("gate off: %s: %s", d.Summary, d.Detail)
		}
		if strings.HasPrefix(d.Summary, "nodeoverlay-feature-gate-off") && strings.Contains(d.Detail, "controller { feature_gates { node_overlay = true } }") {
			warned = true
		}
	}
	if !warned {
		t.Error("gate off: no nodeoverlay-feature-gate-off warning")
	}
	prov := emulatorProvider(t, "cluster { name = \"demo\" }\n  controller {\n    feature_gates { node_overlay = true }\n  }")
	for _, d := range planDiagnostics(t, prov+fuseOverlayHCL) {
		t.Errorf("gate on: %s %s: %s", d.Severity, d.Summary, d.Detail)
	}
	data, _ := schedData("x", []string{schedPool("default", "", "")}, []string{fuseWorkload}, "  node_overlays = [karpenter_nodeoverlay.fuse.manifest]\n")
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: prov + fuseOverlayHCL + data,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.karpenter_scheduling.x", schedPods.AtMapKey("default/Deployment/fuse").AtMapKey("unschedulable"), knownvalue.Int64Exact(0)),
			},
		}},
	})
}
