package provider

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// schedStack is a class, the pools (HCL bodies by name) as
// karpenter_nodepool resources, and resource karpenter_scheduling "team"
// over their manifests with workloads as a map of file name to content.
func schedStack(pools map[string]string, files map[string]string, tail string) string {
	var b strings.Builder
	b.WriteString(`
resource "karpenter_ec2nodeclass" "default" {
  name = "default"
  role = "KarpenterNodeRole-demo"

  ami_selector_terms { alias = "al2023@latest" }
  subnet_selector_terms { tags = { "karpenter.sh/discovery" = "demo" } }
  security_group_selector_terms { tags = { "karpenter.sh/discovery" = "demo" } }
}
`)
	var refs []string
	for _, name := range sortedKeys(pools) {
		fmt.Fprintf(&b, "\nresource \"karpenter_nodepool\" %q {\n  name       = %q\n  node_class = karpenter_ec2nodeclass.default.node_class\n%s}\n", name, name, pools[name])
		refs = append(refs, "karpenter_nodepool."+name+".manifest")
	}
	fmt.Fprintf(&b, "\nresource \"karpenter_scheduling\" \"team\" {\n  node_pools   = [%s]\n  node_classes = [karpenter_ec2nodeclass.default.manifest]\n  workloads = {\n",
		strings.Join(refs, ", "))
	for _, f := range sortedKeys(files) {
		fmt.Fprintf(&b, "    %q = %s\n", f, heredoc(files[f]))
	}
	b.WriteString("  }\n" + tail + "}\n")
	return b.String()
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

const (
	// zonesRequirement names the three zones of the demo subnets: the
	// zones are named by an input, yet alike for every pod.
	zonesRequirement = `
  requirements {
    key      = "topology.kubernetes.io/zone"
    operator = "In"
    values   = ["us-east-1a", "us-east-1b", "us-east-1c"]
  }
`
	gpuTaint = `
  taints {
    key    = "dedicated"
    value  = "team"
    effect = "NoSchedule"
  }
`
)

// spreadWeb is a Deployment of 4 replicas spread over zones: Karpenter
// breaks the tie of the fourth at random.
var spreadWeb = schedDeployment("web", 4, "500m", "      topologySpreadConstraints:\n        - maxSkew: 1\n"+
	"          topologyKey: topology.kubernetes.io/zone\n          whenUnsatisfiable: DoNotSchedule\n"+
	"          labelSelector:\n            matchLabels:\n              app: web\n")

var teamPods = tfjsonpath.New("pods")

func landed(key string, pools map[string]int64) knownvalue.Check {
	checks := map[string]knownvalue.Check{}
	var n int64
	for p, c := range pools {
		checks[p] = knownvalue.Int64Exact(c)
		n += c
	}
	return knownvalue.ObjectExact(map[string]knownvalue.Check{
		"pods": knownvalue.Int64Exact(n), "node_pools": knownvalue.MapExact(checks),
		"unschedulable": knownvalue.Int64Exact(0), "reason": knownvalue.StringExact(""),
	})
}

// TestAccSchedulingResource: the decision is made at plan from the
// planned manifests of pools that change in the same run. A first plan of
// a configuration whose workload cannot land fails with pod-unschedulable
// at the workload's file; once applied, a change to a pool that leaves the
// workload without a node fails the plan; a change that moves pods shows
// the move in the plan; and an applied configuration with zone ties plans
// no change, 20 times in a row.
func TestAccSchedulingResource(t *testing.T) {
	poolCosts := tfjsonpath.New("cost").AtMapKey("node_pools")
	prov := emulatorProvider(t, `cluster { name = "demo" }`)
	files := map[string]string{"apps/web.yaml": spreadWeb}
	general := map[string]string{"general": zonesRequirement}
	tainted := map[string]string{"general": zonesRequirement + gpuTaint}
	moved := map[string]string{"general": zonesRequirement, "spot": "  weight = 10\n" + zonesRequirement}
	steps := []resource.TestStep{
		{
			// The very first plan: nothing exists yet, the pool is to be
			// created, and the plan already fails at the file.
			Config:      prov + schedStack(tainted, files, ""),
			ExpectError: regexp.MustCompile(`pod-unschedulable(.|\n)*apps/web\.yaml, line 1(.|\n)*did not tolerate taint`),
		},
		{
			Config: prov + schedStack(general, files, ""),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectKnownValue("karpenter_scheduling.team", teamPods.AtMapKey("default/Deployment/web"), landed("default/Deployment/web", map[string]int64{"general": 4})),
				plancheck.ExpectKnownValue("karpenter_scheduling.team", poolCosts, knownvalue.MapExact(map[string]knownvalue.Check{"general": knownvalue.NotNull()})),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("karpenter_scheduling.team", teamPods.AtMapKey("default/Deployment/web"), landed("default/Deployment/web", map[string]int64{"general": 4})),
			},
		},
		{
			// The pool gains a taint the workload does not tolerate: the
			// pool has a pending change, and the plan fails anyway.
			Config:      prov + schedStack(tainted, files, ""),
			ExpectError: regexp.MustCompile(`pod-unschedulable(.|\n)*default/Deployment/web(.|\n)*did not tolerate taint`),
		},
		{
			// A heavier pool takes the pods: the plan shows the move.
			Config: prov + schedStack(moved, files, ""),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("karpenter_scheduling.team", plancheck.ResourceActionUpdate),
				plancheck.ExpectKnownValue("karpenter_scheduling.team", teamPods.AtMapKey("default/Deployment/web"), landed("default/Deployment/web", map[string]int64{"spot": 4})),
				plancheck.ExpectKnownValue("karpenter_scheduling.team", tfjsonpath.New("explanation").AtMapKey("spot"),
					knownvalue.StringRegexp(regexp.MustCompile(`^1st of 2 \(weight 10\): took 4 pods on \d NodeClaims: default/Deployment/web 4$`))),
				// The cost moves with the pods: the plan shows it.
				plancheck.ExpectKnownValue("karpenter_scheduling.team", poolCosts, knownvalue.MapExact(map[string]knownvalue.Check{"spot": knownvalue.NotNull()})),
			}},
		},
	}
	for range 20 {
		steps = append(steps, resource.TestStep{Config: prov + schedStack(moved, files, ""), PlanOnly: true, ExpectNonEmptyPlan: false})
	}
	resource.UnitTest(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: steps})
}

// TestSchedulingDecidedOncePerPlan: a resource and a data source of the
// same inputs in one plan decide once; the warnings of two acknowledged
// workloads name each workload in their summary, so Terraform folds none
// of them; findings of the map form name the file.
func TestSchedulingDecidedOncePerPlan(t *testing.T) {
	prov := emulatorProvider(t, `cluster { name = "demo" }`)
	bad := func(name string) string {
		return schedDeployment(name, 1, "500m", "      nodeSelector:\n        team: payments\n")
	}
	body := fmt.Sprintf(`  node_pools   = [%s]
  node_classes = [%s]
  workloads = {
    "a.yaml" = %s
    "b.yaml" = %s
  }
  allow_unschedulable = ["default/Deployment/a", "default/Deployment/b"]
`, heredoc(schedPool("default", "", "")), heredoc(schedClass), heredoc(bad("a")), heredoc(bad("b")))
	before := decisionsMade.Load()
	config := prov + "resource \"karpenter_scheduling\" \"r\" {\n" + body + "}\n\ndata \"karpenter_scheduling\" \"d\" {\n" + body + "}\n"
	// The lines of the map's elements (terraform counts the
	// required_providers block the helper adds: 5 lines).
	elementLines := map[int]bool{}
	for i, l := range strings.Split(config, "\n") {
		if strings.HasPrefix(l, `    "a.yaml" = `) || strings.HasPrefix(l, `    "b.yaml" = `) {
			elementLines[i+1+5] = true
		}
	}
	diags := planDiagnostics(t, config)
	if n := decisionsMade.Load() - before; n != 1 {
		t.Errorf("%d decisions for one input asked twice", n)
	}
	summaries := map[string]int{}
	for _, d := range diags {
		if d.Severity == "error" {
			t.Errorf("error %s: %s", d.Summary, d.Detail)
		}
		if strings.HasPrefix(d.Summary, "pod-unschedulable: ") {
			summaries[d.Summary]++
			if !strings.Contains(d.Detail, ".yaml, line 1)") {
				t.Errorf("the finding does not name the file: %s", d.Detail)
			}
			// Terraform points at the element's value: a heredoc's range
			// starts on the line after its key.
			if d.Range == nil || !elementLines[d.Range.Start.Line-1] {
				t.Errorf("the finding is not at its element of workloads (lines %v): %+v", elementLines, d.Range)
			}
		}
	}
	for _, w := range []string{"a", "b"} {
		want := `pod-unschedulable: Deployment "default/` + w + `": Karpenter would not place a workload's pods`
		if summaries[want] != 2 {
			t.Errorf("%q %d times (resource and data source), want 2; summaries %v", want, summaries[want], summaries)
		}
	}
}

// TestAccSchedulingScaleMax: with scale = "max" a HorizontalPodAutoscaler's
// target is planned at maxReplicas; "replicas" (and no scale) keeps the
// manifest's; a scale of another value fails validate.
func TestAccSchedulingScaleMax(t *testing.T) {
	prov := emulatorProvider(t, `cluster { name = "demo" }`)
	hpa := "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\nspec:\n  scaleTargetRef:\n" +
		"    apiVersion: apps/v1\n    kind: Deployment\n    name: web\n  minReplicas: 2\n  maxReplicas: 6\n"
	files := map[string]string{"web.yaml": schedDeployment("web", 2, "500m", "") + "---\n" + hpa}
	pools := map[string]string{"general": ""}
	step := func(scale string, pods int64) resource.TestStep {
		return resource.TestStep{Config: prov + schedStack(pools, files, scale),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectKnownValue("karpenter_scheduling.team", teamPods.AtMapKey("default/Deployment/web").AtMapKey("pods"), knownvalue.Int64Exact(pods)),
				plancheck.ExpectKnownValue("karpenter_scheduling.team", tfjsonpath.New("skipped"), knownvalue.ListExact(nil)),
			}}}
	}
	resource.UnitTest(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: []resource.TestStep{
		{Config: prov + schedStack(pools, files, "  scale = \"maximum\"\n"), PlanOnly: true, ExpectError: regexp.MustCompile(`scheduling-arguments-invalid(.|\n)*scale = "maximum"`)},
		step("", 2), step("  scale = \"replicas\"\n", 2), step("  scale = \"max\"\n", 6),
	}})
}

// TestAccSchedulingResourceExample applies the resource's documentation
// example: the HPA's target lands at maxReplicas on the heavier pool, as
// its outputs' comments say.
func TestAccSchedulingResourceExample(t *testing.T) {
	src, err := os.ReadFile("../../examples/resources/karpenter_scheduling/resource.tf")
	if err != nil {
		t.Fatal(err)
	}
	prov := emulatorProvider(t, `cluster { name = "demo" }`)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: prov + inDemoAccount(string(src)),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectKnownValue("karpenter_scheduling.prod", teamPods.AtMapKey("default/Deployment/web"), landed("default/Deployment/web", map[string]int64{"general": 12})),
				plancheck.ExpectKnownValue("karpenter_scheduling.prod", tfjsonpath.New("explanation"), knownvalue.MapExact(map[string]knownvalue.Check{
					"general": knownvalue.StringRegexp(regexp.MustCompile(`^1st of 2 \(weight 10\): took 12 pods on \d+ NodeClaims: default/Deployment/web 12$`)),
					"spot":    knownvalue.StringExact("2nd of 2 (weight 0): took no pod"),
				})),
			}},
		}},
	})
}
