package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"sigs.k8s.io/yaml"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/drift"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot/snapshottest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// driftPool is a pool whose budgets and lifetimes pace drift.
func driftPool(extra string) string {
	return poolHCL("mixed", "karpenter_ec2nodeclass.default.node_class", reqHCL("karpenter.k8s.aws/instance-family", "In", "m5", "m6g")+`  expire_after = "168h"
  disruption {
    consolidate_after = "1m"
    budgets { nodes = "1" }
  }
`+extra)
}

func driftClass(release, extra string) string {
	return classHCL("default", `  ami_selector_terms { alias = "al2023@`+release+`" }
`+extra)
}

// drift_hash is the hash of the rendered manifest, for the configured
// release and, from 1.12, the configured CA bundle.
func TestAccDriftHashIsTheManifestsHash(t *testing.T) {
	const ca = "Y2EtYnVuZGxl"
	for _, kv := range []string{"1.0.8", "1.11.0", "1.12.0"} {
		t.Run(kv, func(t *testing.T) {
			prov := emulatorProvider(t, fmt.Sprintf(`karpenter_version = %q
  cluster {
    name                  = "demo"
    certificate_authority = %q
  }`, kv, ca))
			release, err := versions.ParseKarpenter(kv)
			if err != nil {
				t.Fatal(err)
			}
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config: prov + driftClass("v20251209", "  kubelet { max_pods = 50 }") + driftPool(""),
					Check: resource.ComposeTestCheckFunc(
						checkDriftHash("karpenter_ec2nodeclass.default", drift.EC2NodeClassHashVersion(release), func(y []byte) (string, error) {
							var o manifest.EC2NodeClass
							if err := yaml.Unmarshal(y, &o); err != nil {
								return "", err
							}
							return drift.EC2NodeClassHash(o.Spec, ca, release)
						}),
						checkDriftHash("karpenter_nodepool.mixed", drift.NodePoolHashVersion(release), func(y []byte) (string, error) {
							var o manifest.NodePool
							if err := yaml.Unmarshal(y, &o); err != nil {
								return "", err
							}
							return drift.NodePoolHash(o.Spec, release)
						}),
					),
				}},
			})
		})
	}
}

func checkDriftHash(addr, version string, hash func([]byte) (string, error)) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[addr]
		if !ok {
			return fmt.Errorf("%s not in state", addr)
		}
		a := rs.Primary.Attributes
		want, err := hash([]byte(a["manifest"]))
		if err != nil {
			return err
		}
		if a["drift_hash"] != want || want == "" {
			return fmt.Errorf("%s drift_hash = %q, want %q (the hash of its manifest)", addr, a["drift_hash"], want)
		}
		if a["drift_hash_version"] != version {
			return fmt.Errorf("%s drift_hash_version = %q, want %q", addr, a["drift_hash_version"], version)
		}
		return nil
	}
}

// driftUpdate applies before, then plans after, and returns the plan's
// diagnostics.
func driftUpdate(t *testing.T, prov, before, after string) []planDiagnostic {
	t.Helper()
	return terraformSteps(t,
		terraformStep{prov + before, []string{"apply", "-input=false", "-auto-approve", "-json"}},
		terraformStep{prov + after, []string{"plan", "-input=false", "-json", "-refresh=false"}})
}

func driftWarnings(diags []planDiagnostic) []planDiagnostic {
	var out []planDiagnostic
	for _, d := range diags {
		if strings.HasPrefix(d.Summary, drift.RuleNodesWillDrift.ID+":") {
			out = append(out, d)
		}
	}
	return out
}

func TestPlanWarnsNodesWillDrift(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	prov := emulatorProvider(t, `cluster { name = "demo" }`)
	base := driftClass("v20251112", "") + driftPool("")

	t.Run("not on create", func(t *testing.T) {
		if w := driftWarnings(planDiagnostics(t, prov+base)); len(w) > 0 {
			t.Fatalf("a new class and pool replace no nodes, got:\n%s", formatDiags(w))
		}
	})
	t.Run("hashed change", func(t *testing.T) {
		diags := driftUpdate(t, prov, base, driftClass("v20251112", "  kubelet { max_pods = 50 }")+driftPool(""))
		expectDiagnostic(t, diags, "warning", "nodes-will-drift", "spec.kubelet", "ec2nodeclass-hash", `EC2NodeClass "default"`,
			"the nodes of the pools on this class launched before it")
		if w := driftWarnings(diags); len(w) != 1 {
			t.Fatalf("only the class changes, want its warning alone:\n%s", formatDiags(w))
		}
	})
	t.Run("hashed change of a pool", func(t *testing.T) {
		diags := driftUpdate(t, prov, base, driftClass("v20251112", "")+driftPool("  termination_grace_period = \"24h\"\n"))
		expectDiagnostic(t, diags, "warning", "nodes-will-drift", "spec.template.spec.terminationGracePeriod", "karpenter.sh/nodepool-hash",
			`NodePool "mixed"`, "this pool's nodes launched before it", "at most 1 node at a time")
		if w := driftWarnings(diags); len(w) != 1 {
			t.Fatalf("only the pool changes, want its warning alone:\n%s", formatDiags(w))
		}
	})
	t.Run("image change", func(t *testing.T) {
		diags := driftUpdate(t, prov, base, driftClass("v20251209", "")+driftPool(""))
		expectDiagnostic(t, diags, "warning", "nodes-will-drift", "the nodes of the pools on this class booted from the old images",
			"images change (amd64/", "amd64/standard")
		// The pool's own warning: its images and its budget.
		expectDiagnostic(t, diags, "warning", "nodes-will-drift", `NodePool "mixed"`, "this pool's nodes booted from the old images",
			"(amd64/standard, arm64/standard)", "at most 1 node at a time")
	})
	t.Run("not on a change Karpenter does not hash", func(t *testing.T) {
		diags := driftUpdate(t, prov, base, driftClass("v20251112", "")+driftPool("  weight = 10\n  limits = { cpu = \"100\" }\n"))
		if w := driftWarnings(diags); len(w) > 0 {
			t.Fatalf("weight and limits replace no nodes, got:\n%s", formatDiags(w))
		}
		for _, d := range diags {
			if d.Severity == "error" {
				t.Fatalf("unexpected error: %s", formatDiags(diags))
			}
		}
	})
}

// A new karpenter_version with another hash version: Karpenter re-stamps
// the hashes of running nodes instead of drifting them.
func TestPlanNoDriftWarningWhenTheHashVersionChanges(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	old := emulatorProvider(t, "karpenter_version = \"1.0.8\"\n  cluster { name = \"demo\" }")
	updated := strings.Replace(old, `"1.0.8"`, `"1.11.0"`, 1)
	before := driftClass("v20251112", "  kubelet { max_pods = 50 }") + driftPool("")
	after := driftClass("v20251112", "  kubelet { max_pods = 60 }") + driftPool("")
	diags := terraformSteps(t,
		terraformStep{old + before, []string{"apply", "-input=false", "-auto-approve", "-json"}},
		terraformStep{updated + after, []string{"plan", "-input=false", "-json", "-refresh=false"}})
	if w := driftWarnings(diags); len(w) > 0 {
		t.Fatalf("the hash version changes (v3 -> v4): no drift warning, got:\n%s", formatDiags(w))
	}
}

// From Karpenter 1.12 the class hash needs the cluster CA bundle: without
// one drift_hash is null (never unknown after apply), and a release bump
// still warns about the images.
func TestPlanDriftWithoutCABundle(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	prov := emulatorProvider(t, "karpenter_version = \"1.12.0\"\n  cluster { kubernetes_version = \"1.32\" }")
	diags := driftUpdate(t, prov, driftClass("v20251112", "")+driftPool(""), driftClass("v20251209", "")+driftPool(""))
	for _, d := range diags {
		if d.Severity == "error" {
			t.Fatalf("unexpected error: %s", formatDiags(diags))
		}
	}
	expectDiagnostic(t, diags, "warning", "nodes-will-drift", "the pools on this class", "amd64/standard")
	expectDiagnostic(t, diags, "warning", "nodes-will-drift", `NodePool "mixed"`, "arm64/standard")
}

// With the provider's cluster_state, nodes-will-drift counts the
// snapshot's NodeClaims the planned objects drift, also when the objects
// are new to Terraform: two r5 nodes fall outside the pool's requirements
// (RequirementsDrifted), and every node boots an image the class no longer
// resolves to (AMIDrift).
func TestPlanNodesWillDriftCountsTheClusterState(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	l := &snapshottest.List{}
	for _, n := range []struct{ name, it string }{{"a", "r5.large"}, {"b", "r5.xlarge"}, {"c", "m5.large"}} {
		l.Add(snapshottest.Node{Name: n.name, Pool: "mixed", Class: "default", InstanceType: n.it, Zone: "us-east-1a",
			CPU: "1930m", Memory: "7Gi", Pods: 29, ImageID: "ami-0retired"})
	}
	state := filepath.Join(t.TempDir(), "cluster.yaml")
	if err := os.WriteFile(state, []byte(l.YAML()), 0o600); err != nil {
		t.Fatal(err)
	}
	prov := emulatorProvider(t, "cluster { name = \"demo\" }\n  cluster_state = file(\""+state+"\")")
	diags := planDiagnostics(t, prov+driftClass("v20251112", "")+driftPool(""))
	expectDiagnostic(t, diags, "warning", "nodes-will-drift", `NodePool "mixed"`,
		"On the cluster state, 2 of the 3 NodeClaims drift (NodePool mixed: 2; RequirementsDrifted 2)", "at most 1 node at a time")
	expectDiagnostic(t, diags, "warning", "nodes-will-drift", `EC2NodeClass "default"`,
		"On the cluster state, 3 of the 3 NodeClaims drift (NodePool mixed: 3; AMIDrift 3)")
	if w := driftWarnings(diags); len(w) != 2 {
		t.Fatalf("want the pool's and the class's warnings:\n%s", formatDiags(w))
	}
	// A cluster_state known only at apply is skipped, not an error.
	unknown := emulatorProvider(t, "cluster { name = \"demo\" }\n  cluster_state = terraform_data.snapshot.output") +
		"resource \"terraform_data\" \"snapshot\" {\n  input = file(\"" + state + "\")\n}\n"
	diags = planDiagnostics(t, unknown+driftClass("v20251112", "")+driftPool(""))
	for _, d := range diags {
		if d.Severity == "error" || strings.HasPrefix(d.Summary, drift.RuleNodesWillDrift.ID+":") {
			t.Errorf("unknown cluster_state: %s", formatDiags([]planDiagnostic{d}))
		}
	}
}
