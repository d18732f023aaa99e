package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling/schedulingtest"
)

// The scheduling tests decide against the emulator's fixtures: cluster
// demo (Kubernetes 1.32), its subnets in us-east-1a, b and c tagged
// karpenter.sh/discovery = demo, the region's 25 instance types.

var (
	schedClass      = schedulingtest.Class
	schedPool       = schedulingtest.Pool
	schedDeployment = schedulingtest.Deployment
)

// heredoc writes s as an HCL heredoc element of a list.
func heredoc(s string) string {
	var b strings.Builder
	b.WriteString("<<-EOT\n")
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString("      " + l + "\n")
	}
	b.WriteString("    EOT\n   ")
	return b.String()
}

// schedData is a karpenter_scheduling data source; it returns the HCL and,
// for each workload, the line (counted from the first line of the HCL) its
// element starts on.
func schedData(name string, pools, workloads []string, tail string) (string, []int) {
	var b strings.Builder
	fmt.Fprintf(&b, "data \"karpenter_scheduling\" %q {\n  node_classes = [\n    %s,\n  ]\n  node_pools = [\n", name, heredoc(schedClass))
	for _, p := range pools {
		b.WriteString("    " + heredoc(p) + ",\n")
	}
	b.WriteString("  ]\n  workloads = [\n")
	var lines []int
	for _, w := range workloads {
		lines = append(lines, strings.Count(b.String(), "\n")+1)
		b.WriteString("    " + heredoc(w) + ",\n")
	}
	b.WriteString("  ]\n" + tail + "}\n")
	return b.String(), lines
}

// schedCase is one way a workload does not land.
type schedCase struct {
	name   string
	pools  []string
	bad    string
	reason string // part of Karpenter's message
}

var schedCases = []schedCase{
	{"taint", []string{schedPool("gpu", "", "      taints:\n        - key: nvidia.com/gpu\n          value: \"true\"\n          effect: NoSchedule\n")},
		schedDeployment("bad", 1, "500m", ""), "did not tolerate taint"},
	{"label", []string{schedPool("default", "", "")},
		schedDeployment("bad", 1, "500m", "      nodeSelector:\n        team: payments\n"), `label "team" does not have known values`},
	{"overhead", []string{schedPool("small", "", "      requirements:\n        - key: node.kubernetes.io/instance-type\n          operator: In\n          values: [m5.large]\n")},
		schedDeployment("bad", 1, "2", ""), "no instance type has enough resources"},
	{"limit", []string{schedPool("capped", "  limits:\n    cpu: \"1\"\n", "      requirements:\n        - key: karpenter.k8s.aws/instance-family\n          operator: In\n          values: [m5]\n")},
		schedDeployment("bad", 1, "500m", ""), "all available instance types exceed limits"},
	{"zone", []string{schedPool("default", "", "")},
		schedDeployment("bad", 1, "500m", "      nodeSelector:\n        topology.kubernetes.io/zone: us-east-1d\n"), "us-east-1d"},
}

// TestSchedulingUnschedulableAtTheWorkload: each way of not landing fails
// the plan with pod-unschedulable at the workload's element of workloads,
// quoting Karpenter; allow_unschedulable makes each a warning.
func TestSchedulingUnschedulableAtTheWorkload(t *testing.T) {
	prov := emulatorProvider(t, `cluster { name = "demo" }`)
	for _, allow := range []bool{false, true} {
		var cfg strings.Builder
		cfg.WriteString(prov)
		want := map[int]schedCase{}
		for _, c := range schedCases {
			tail := ""
			if allow {
				tail = "  allow_unschedulable = [\"default/Deployment/bad\"]\n"
			}
			// Element 0 is a ConfigMap, so the path must name element 1.
			src, lines := schedData(c.name, c.pools, []string{"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: b\n", c.bad}, tail)
			first := strings.Count(cfg.String(), "\n") + 1
			cfg.WriteString(src)
			want[first+lines[1]-1] = c
		}
		diags := planDiagnostics(t, cfg.String())
		found := map[int]bool{}
		for _, d := range diags {
			if !strings.HasPrefix(d.Summary, "pod-unschedulable: ") {
				if d.Severity == "error" {
					t.Errorf("unexpected error %s: %s", d.Summary, d.Detail)
				}
				continue
			}
			if d.Range == nil {
				t.Errorf("no range: %s", d.Detail)
				continue
			}
			// terraform counts the required_providers block the helper adds.
			line := d.Range.Start.Line - 5
			c, ok := want[line]
			if !ok {
				t.Errorf("pod-unschedulable at line %d, not at a bad workload (%v): %s", line, want, d.Detail)
				continue
			}
			found[line] = true
			if wantSev := map[bool]string{false: "error", true: "warning"}[allow]; d.Severity != wantSev {
				t.Errorf("%s: severity %s, want %s", c.name, d.Severity, wantSev)
			}
			if !strings.Contains(d.Detail, "default/Deployment/bad") || !strings.Contains(d.Detail, c.reason) {
				t.Errorf("%s: the detail does not name the workload and Karpenter's reason %q:\n%s", c.name, c.reason, d.Detail)
			}
		}
		if len(found) != len(schedCases) {
			t.Errorf("allow=%v: pod-unschedulable at %d of %d workloads", allow, len(found), len(schedCases))
		}
	}
}

var schedPods = tfjsonpath.New("pods")

func TestAccSchedulingDataSource(t *testing.T) {
	prov := emulatorProvider(t, `cluster { name = "demo" }`)
	ok, _ := schedData("x", []string{schedPool("default", "", "")}, []string{schedDeployment("web", 3, "500m", ""),
		"apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n    - port: 80\n"}, "")
	bad, _ := schedData("x", []string{schedPool("default", "", "")}, []string{schedDeployment("web", 1, "500m", "      tolerationz: []\n")}, "")
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				// A misspelt key fails terraform validate.
				Config:      prov + bad,
				ExpectError: regexp.MustCompile(`scheduling-document-invalid(.|\n)*tolerationz`),
			},
			{
				Config: prov + ok,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.karpenter_scheduling.x", schedPods.AtMapKey("default/Deployment/web"), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"pods": knownvalue.Int64Exact(3), "node_pools": knownvalue.MapExact(map[string]knownvalue.Check{"default": knownvalue.Int64Exact(3)}),
						"unschedulable": knownvalue.Int64Exact(0), "reason": knownvalue.StringExact(""),
					})),
					statecheck.ExpectKnownValue("data.karpenter_scheduling.x", tfjsonpath.New("node_claims").AtSliceIndex(0).AtMapKey("pods"),
						strList("default/Deployment/web/0", "default/Deployment/web/1", "default/Deployment/web/2")),
					statecheck.ExpectKnownValue("data.karpenter_scheduling.x", tfjsonpath.New("node_claims").AtSliceIndex(0).AtMapKey("zones"),
						strList("us-east-1a", "us-east-1b", "us-east-1c")),
					statecheck.ExpectKnownValue("data.karpenter_scheduling.x", tfjsonpath.New("skipped"), strList("default/Service/web")),
				},
			},
		},
	})
}

// TestAccSchedulingDeferred: inputs not known at plan (a manifest of a
// resource created in the same run) defer the read; the outputs are
// unknown and nothing fails.
func TestAccSchedulingDeferred(t *testing.T) {
	prov := emulatorProvider(t, `cluster { name = "demo" }`)
	src, _ := schedData("x", []string{schedPool("default", "", "")}, []string{schedDeployment("web", 1, "500m", "")}, "")
	src = strings.Replace(src, "  workloads = [\n", "  workloads = [\n    terraform_data.later.output,\n", 1)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: prov + `
resource "terraform_data" "later" {
  input = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: later\n"
}
` + src + `
output "pods" {
  value = data.karpenter_scheduling.x.pods
}
`,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectUnknownOutputValue("pods")}},
		}},
	})
}

// TestSchedulingNeedsAWS: without AWS the data source cannot decide and
// says so, once.
func TestSchedulingNeedsAWS(t *testing.T) {
	offlineEnv(t)
	src, _ := schedData("x", []string{schedPool("default", "", "")}, []string{schedDeployment("web", 1, "500m", "")}, "")
	var errs []string
	for _, d := range planDiagnostics(t, "provider \"karpenter\" {}\n"+src) {
		if d.Severity == "error" {
			errs = append(errs, d.Summary)
		}
	}
	if len(errs) != 1 || errs[0] != "scheduling-needs-aws: the scheduling decision needs AWS" {
		t.Errorf("errors %v", errs)
	}
}

// TestAccSchedulingExample applies the documentation's example (the data
// source reads at apply, after the pools it depends on): every workload
// lands where the example says; with its commented-out mistake restored,
// the apply fails with pod-unschedulable and the toleration to add.
func TestAccSchedulingExample(t *testing.T) {
	src, err := os.ReadFile("../../examples/data-sources/karpenter_scheduling/data-source.tf")
	if err != nil {
		t.Fatal(err)
	}
	example := inDemoAccount(string(src))
	var mistake strings.Builder
	inMistake := false
	for _, l := range strings.SplitAfter(example, "\n") {
		switch {
		case strings.HasPrefix(l, "    # , <<-EOT"):
			inMistake = true
			l = "    , <<-EOT\n"
		case inMistake && strings.HasPrefix(l, "    # EOT"):
			inMistake = false
			l = "    EOT\n"
		case inMistake:
			l = "    " + strings.TrimPrefix(l, "    # ")
		}
		mistake.WriteString(l)
	}
	if strings.Count(mistake.String(), "<<-EOT") != 2 {
		t.Fatal("the example's commented-out mistake was not found")
	}
	prov := emulatorProvider(t, `cluster { name = "demo" }`)
	pods := func(key string, pool string, n int64) statecheck.StateCheck {
		return statecheck.ExpectKnownValue("data.karpenter_scheduling.prod", schedPods.AtMapKey(key), knownvalue.ObjectExact(map[string]knownvalue.Check{
			"pods": knownvalue.Int64Exact(n), "node_pools": knownvalue.MapExact(map[string]knownvalue.Check{pool: knownvalue.Int64Exact(n)}),
			"unschedulable": knownvalue.Int64Exact(0), "reason": knownvalue.StringExact(""),
		}))
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: prov + example,
				ConfigStateChecks: []statecheck.StateCheck{
					pods("default/Deployment/web", "general", 3), pods("default/StatefulSet/db", "general", 2), pods("default/Job/train", "gpu", 2),
				},
			},
			{
				Config:      prov + mistake.String(),
				ExpectError: regexp.MustCompile(`pod-unschedulable(.|\n)*default/Job/finetune(.|\n)*did not tolerate taint(.|\n)*tolerations`),
			},
		},
	})
}

// TestAccSchedulingGuide runs the HCL of the guide "Will my pods
// schedule?" against the emulator, with the files it reads: the GitOps
// block fails the plan with the guide's excerpt; the resource on managed
// pools decides in the first plan, and its acknowledged workload is a
// warning at its file.
func TestAccSchedulingGuide(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("TF_ACC is not set: this test runs terraform")
	}
	src, err := os.ReadFile("../../templates/guides/will-my-pods-schedule.md.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	blocks, texts := terraformBlocks(string(src)), textBlocks(string(src))
	if len(blocks) != 2 || len(texts) != 1 {
		t.Fatalf("the guide has %d terraform and %d text blocks; this test runs 2 and 1", len(blocks), len(texts))
	}
	prov := emulatorProvider(t, `cluster { name = "demo" }`)
	run := inProcessTerraform(t)
	general := schedPool("general", "", "      requirements:\n        - key: karpenter.k8s.aws/instance-category\n          operator: In\n          values: [c, m, r]\n")
	gpu := schedPool("gpu", "", "      requirements:\n        - key: karpenter.k8s.aws/instance-gpu-manufacturer\n          operator: In\n          values: [nvidia]\n"+
		"      taints:\n        - key: nvidia.com/gpu\n          value: \"true\"\n          effect: NoSchedule\n")
	train := "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: %s\n  namespace: %s\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n" +
		"      containers:\n        - name: train\n          image: trainer\n          resources:\n            limits:\n              nvidia.com/gpu: 1\n"
	files := map[string]string{
		"karpenter/ec2nodeclasses.yaml": schedClass, "karpenter/nodepools.yaml": general + "---\n" + gpu,
		"apps/web.yaml": schedDeployment("web", 3, "500m", ""), "apps/train.yaml": fmt.Sprintf(train, "train", "ml"),
	}
	write := func(dir, config string, files map[string]string) {
		head := "terraform {\n  required_providers {\n    karpenter = { source = \"karpenter-tf/karpenter\" }\n  }\n}\n"
		files["main.tf"] = head + prov + config
		for name, body := range files {
			p := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}

	gitops := t.TempDir()
	write(gitops, blocks[0], files)
	run(gitops, "init", "-input=false", "-backend=false")
	_, stderr := run(gitops, "plan", "-input=false", "-no-color")
	if err := excerptOf(texts[0], string(stderr)); err != nil {
		t.Errorf("the guide's excerpt: %v\n%s", err, stderr)
	}

	managed := t.TempDir()
	pools := `
resource "karpenter_ec2nodeclass" "default" {
  name = "default"
  role = "KarpenterNodeRole-demo"
  ami_selector_terms { alias = "al2023@latest" }
  subnet_selector_terms { tags = { "karpenter.sh/discovery" = "demo" } }
  security_group_selector_terms { tags = { "karpenter.sh/discovery" = "demo" } }
}

resource "karpenter_nodepool" "prod" {
  for_each   = toset(["general"])
  name       = each.key
  node_class = karpenter_ec2nodeclass.default.node_class
}
`
	// A Job for a pool this configuration does not have: acknowledged.
	backfill := strings.Replace(fmt.Sprintf(train, "backfill", "batch"), "      restartPolicy", "      nodeSelector:\n        team: batch\n      restartPolicy", 1)
	write(managed, pools+blocks[1], map[string]string{"apps/web.yaml": files["apps/web.yaml"], "apps/backfill.yaml": backfill})
	run(managed, "init", "-input=false", "-backend=false")
	// The resource decides in the first plan, although the pools are
	// created in the same run; the acknowledged Job is a warning there,
	// naming its file.
	stdout, stderr := run(managed, "plan", "-input=false", "-json")
	if strings.Contains(string(stdout), "changes pending") {
		t.Errorf("the decision is left to apply:\n%s%s", stdout, stderr)
	}
	var acknowledged bool
	for _, d := range jsonDiagnostics(stdout) {
		if d.Severity == "error" {
			t.Errorf("plan: %s: %s", d.Summary, d.Detail)
		}
		acknowledged = acknowledged || d.Severity == "warning" && strings.HasPrefix(d.Summary, "pod-unschedulable") &&
			strings.Contains(d.Detail, "batch/Job/backfill (backfill.yaml, line 1)")
	}
	if !acknowledged {
		t.Errorf("plan: the acknowledged Job is not a warning at its file:\n%s", stdout)
	}
	stdout, _ = run(managed, "apply", "-input=false", "-json", "-auto-approve")
	for _, d := range jsonDiagnostics(stdout) {
		if d.Severity == "error" {
			t.Errorf("apply: %s: %s", d.Summary, d.Detail)
		}
	}
}

// TestSchedulingReadDenied: a planning role without a readiness read. Denied
// ec2:DescribeSubnets leaves the class's zones unknown: its pool is left out
// of the decision and the pods only it could take are a warning, not an
// error (nothing says Karpenter would fail). Denied
// ec2:DescribeSecurityGroups does not touch the decision: the pods land.
// Each plan carries one readiness-read-denied warning, and no error.
func TestSchedulingReadDenied(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	src, _ := schedData("x", []string{schedPool("default", "", "")}, []string{schedDeployment("web", 2, "500m", "")}, "")
	for _, tc := range []struct {
		deny          string
		unschedulable bool
	}{
		{"ec2:DescribeSubnets", true},
		{"ec2:DescribeSecurityGroups", false},
	} {
		prov, _ := deniedEmulator(t, `cluster { name = "demo" }`, tc.deny)
		diags := planDiagnostics(t, prov+src)
		if errs := errorsOf(diags); len(errs) > 0 {
			t.Errorf("%s: errors:\n%s", tc.deny, formatDiags(errs))
		}
		if got := onlyRule(diags, "warning", "readiness-read-denied"); len(got) != 1 || !strings.Contains(got[0].Detail, tc.deny) {
			t.Errorf("%s: want one readiness-read-denied warning naming it:\n%s", tc.deny, formatDiags(diags))
		}
		got := onlyRule(diags, "warning", "pod-unschedulable")
		switch {
		case !tc.unschedulable && len(got) > 0:
			t.Errorf("%s: the pods should land:\n%s", tc.deny, formatDiags(got))
		case tc.unschedulable && (len(got) != 1 || !strings.Contains(got[0].Detail, `could not be predicted ("default")`)):
			t.Errorf("%s: want one pod-unschedulable warning naming the pool left out:\n%s", tc.deny, formatDiags(diags))
		}
		if pools := onlyRule(diags, "warning", "nodepool-not-scheduling"); tc.unschedulable != (len(pools) == 1) {
			t.Errorf("%s: nodepool-not-scheduling warnings:\n%s", tc.deny, formatDiags(pools))
		}
	}
}
