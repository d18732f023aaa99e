package provider

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
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
      amd64 = "ami-0aaf333b614a08570 | team-eks-node-al2023-x86_64-20251015-r2 | 2025-10-15T09:00:00.000Z | kubernetes.io/arch In amd64"
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

// A node_class written by hand whose amis value is not one image on one
// line fails validate at that entry, naming the value and the form, rather
// than dropping the image from the pool's checks; a well-formed entry next
// to it passes.
func TestAccNodePoolClassAMIMalformed(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	const bad = "ami-0aaf333b614a08570 team-eks-node-al2023-x86_64-20251015-r2"
	diags := terraformDiagnostics(t, `
resource "karpenter_nodepool" "x" {
  name = "x"
  node_class = {
    name = "team"
    amis = {
      amd64 = "`+bad+`"
      arm64 = "ami-0bbb333b614a08570 | team-eks-node-al2023-arm64-20251015-r2 | 2025-10-15T09:00:00.000Z | kubernetes.io/arch In arm64"
    }
  }
}`, "validate", "-json")
	expectDiagnostic(t, diags, "error", "node-class-amis-invalid", `node_class.amis["amd64"] = "`+bad+`"`, "not four fields", "`<id> | <name> | <creation_date> | <requirements>`")
	for _, d := range diags {
		if d.Severity == "error" && (!strings.HasPrefix(d.Summary, "node-class-amis-invalid:") || strings.Contains(d.Detail, "arm64")) {
			t.Errorf("unexpected error: %s: %s", d.Summary, d.Detail)
		}
	}
}

// The finding is at the entry's path; unknown entries and maps are left
// for when they are known.
func TestClassAMIFindings(t *testing.T) {
	classAMIFindings := func(nodeClass attr.Value) rules.Findings {
		o, _ := nodeClass.(types.Object)
		_, fs := poolFromModel(nodePoolModel{Name: types.StringValue("p"), NodeClass: o})
		return fs
	}
	obj := func(amis attr.Value) attr.Value {
		attrs := map[string]attr.Value{}
		for k, ty := range nodeClassAttrTypes {
			null, err := ty.ValueFromTerraform(context.Background(), tftypes.NewValue(ty.TerraformType(context.Background()), nil))
			if err != nil {
				t.Fatal(err)
			}
			attrs[k] = null
		}
		attrs["name"], attrs["amis"] = types.StringValue("team"), amis
		return types.ObjectValueMust(nodeClassAttrTypes, attrs)
	}
	m := types.MapValueMust(types.StringType, map[string]attr.Value{
		"amd64":        types.StringValue("ami-1 | n | 2025-10-15T09:00:00.000Z | "),
		"arm64":        types.StringValue("ami-2"),
		"amd64/nvidia": types.StringUnknown(),
	})
	fs := classAMIFindings(obj(m))
	if len(fs) != 1 || fs[0].Rule.ID != "node-class-amis-invalid" || fs[0].Path.String() != `node_class.amis["arm64"]` || !strings.Contains(fs[0].Detail, `"ami-2"`) {
		t.Errorf("findings %+v, want one at node_class.amis[\"arm64\"]", fs)
	}
	for _, v := range []attr.Value{obj(types.MapUnknown(types.StringType)), obj(types.MapNull(types.StringType)), types.ObjectUnknown(nodeClassAttrTypes)} {
		if fs := classAMIFindings(v); len(fs) != 0 {
			t.Errorf("%v: %+v, want none", v, fs)
		}
	}
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
