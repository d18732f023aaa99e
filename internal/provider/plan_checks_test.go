package provider

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
)

// Without AWS the embedded family facts answer, and a requirement value
// that names no instance type is a warning (the embedded list may lag behind
// a new type); with live facts it is an error (TestAccNodePoolSeeds).
func TestPlanOfflineUnknownInstanceTypeIsAWarning(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	withoutAWS(t)
	diags := planDiagnostics(t, `
provider "karpenter" {}
resource "karpenter_nodepool" "x" {
  name       = "x"
  node_class = { name = "shared" }
  requirements {
    key      = "node.kubernetes.io/instance-type"
    operator = "In"
    values   = ["g5g.medium", "g5g.xlarge"]
  }
}`)
	expectDiagnostic(t, diags, "warning", "requirement-value-matches-no-instance-type", "g5g.medium")
	for _, d := range diags {
		if d.Severity == "error" {
			t.Errorf("unexpected error: %s: %s", d.Summary, d.Detail)
		}
	}
}

// A class managed elsewhere can hand its facts over as a literal object; a
// Custom one whose userData does not register karpenter.sh/unregistered
// fails the pool's plan (the class's own resource reports it when it is
// managed here).
func TestAccNodePoolCustomClassWithoutUnregisteredTaint(t *testing.T) {
	prov := emulatorProvider(t, `cluster { name = "demo" }`)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: prov + `
resource "karpenter_nodepool" "x" {
  name = "x"
  node_class = {
    name       = "custom"
    ami_family = "Custom"
    amis = {
      amd64 = {
        id = "ami-0aaf333b614a08570", name = "team-eks-node-al2023-x86_64-20251015-r2"
        creation_date = "2025-10-15T09:00:00.000Z", requirements = "kubernetes.io/arch In amd64"
      }
    }
    registered_taints = [{ key = "example.com/dedicated", value = "ml", effect = "NoSchedule" }]
  }
  requirements {
    key      = "karpenter.k8s.aws/instance-family"
    operator = "In"
    values   = ["m5"]
  }
}`,
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)unregistered-taint-missing.*Custom and its userData registers the node with.*example.com/dedicated=ml:NoSchedule.*without\s+karpenter.sh/unregistered:NoExecute`),
		}},
	})
}

// The resources' CRD hook reports what Karpenter's CRD rejects as a finding
// at the attribute's Terraform path, and nothing for a valid object. Every
// value that reaches it through the schema passes the provider's own rules
// first, which are stricter than the CRD, so this is the way to see it fire.
func TestCRDHookReportsRejections(t *testing.T) {
	pool := func(weight int32) manifest.NodePool {
		return manifest.NodePool{
			APIVersion: manifest.NodePoolAPIVersion, Kind: manifest.NodePoolKind,
			Metadata: manifest.ObjectMeta{Name: "default"},
			Spec: manifest.NodePoolSpec{
				Weight: &weight,
				Template: manifest.NodeClaimTemplate{Spec: manifest.NodeClaimTemplateSpec{
					NodeClassRef: manifest.NodeClassRef{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"},
					Requirements: []manifest.Requirement{{Key: "kubernetes.io/arch", Operator: "In", Values: []string{"amd64"}}},
				}},
			},
		}
	}
	if fs := validateAgainstCRD(context.Background(), pool(10)); len(fs) != 0 {
		t.Fatalf("valid pool: %v", fs)
	}
	fs := validateAgainstCRD(context.Background(), pool(101))
	if len(fs) != 1 || fs[0].Rule.ID != "crd-validation" || fs[0].Path.String() != "weight" || !strings.Contains(fs[0].Detail, "less than or equal to 100") {
		t.Errorf("weight 101: %v", fs)
	}
}
