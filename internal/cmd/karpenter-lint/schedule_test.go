package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling/schedulingtest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot/snapshottest"
)

// The schedule command's decision is the data source's: the provider's
// test TestAccSchedulingExampleIsTheCommands compares them on the data
// source's example. These test what the command adds: places in files,
// formats, exit statuses, the configuration file.

func write(t *testing.T, name, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// scheduleFiles writes the example's workloads, its mistake appended (a
// GPU Job without the gpu pool's toleration), and pools like the
// example's on the emulator's demo cluster. It returns the pools' and the
// workloads' files, and the line of the workloads file the Job starts on.
func scheduleFiles(t *testing.T) (pools, workloads string, jobLine int) {
	t.Helper()
	w, mistake := schedulingtest.ExampleWorkloads(t, "../../..")
	gpu := schedulingtest.Pool("gpu", "", "      requirements:\n        - key: karpenter.k8s.aws/instance-gpu-manufacturer\n          operator: In\n"+
		"          values: [nvidia]\n      taints:\n        - key: nvidia.com/gpu\n          value: \"true\"\n          effect: NoSchedule\n")
	dir := t.TempDir()
	pools, workloads = filepath.Join(dir, "karpenter", "pools.yaml"), filepath.Join(dir, "apps", "all.yaml")
	// A ConfigMap among the pools is not read, and said so.
	write(t, pools, schedulingtest.Class+"---\n"+schedulingtest.Pool("general", "", "      requirements:\n        - key: karpenter.k8s.aws/instance-category\n"+
		"          operator: In\n          values: [c, m, r]\n")+"---\n"+gpu+
		"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: karpenter\n")
	w += "---\n"
	write(t, workloads, w+mistake)
	return pools, workloads, strings.Count(w, "\n") + 1
}

// A workload Karpenter would not place: exit 2, pod-unschedulable at the
// workload's file and line in every format, with Karpenter's reason and
// the toleration to add; allowed (flag or configuration file) it is a
// warning and the exit 0.
func TestScheduleUnschedulable(t *testing.T) {
	url, _ := awsemutest.Start(t)
	awsemutest.Setenv(t, url)
	pools, workloads, line := scheduleFiles(t)
	args := []string{"schedule", "--pools", pools, "--workloads", workloads, "--region", "us-east-1", "--cluster", "demo"}
	code, out, stderr := lint(t, "", append(args, "--format", "compact")...)
	want := fmt.Sprintf("%s:%d:1: error pod-unschedulable: Job/finetune: default/Job/finetune (%s:%d): 1 of its 1 pods would not be placed by Karpenter.",
		workloads, line, workloads, line)
	if code != exitFindings || !strings.HasPrefix(out, want) || !strings.Contains(out, "did not tolerate taint") || !strings.Contains(out, "tolerations") ||
		strings.Count(out, "\n") != 1 {
		t.Errorf("exit %d, want %d and\n%s\n%s%s", code, exitFindings, want, out, stderr)
	}
	code, out, _ = lint(t, "", append(args, "--format", "github")...)
	if want := fmt.Sprintf("::error file=%s,line=%d,col=1,title=pod-unschedulable%%3A Karpenter would not place a workload's pods::Job/finetune: ", workloads, line); code != exitFindings || !strings.HasPrefix(out, want) {
		t.Errorf("github: exit %d, want %s\n%s", code, want, out)
	}
	code, out, _ = lint(t, "", append(args, "--format", "sarif")...)
	var sarif struct {
		Runs []struct {
			Results []struct {
				RuleID    string `json:"ruleId"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }    `json:"artifactLocation"`
						Region           struct{ StartLine int } `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &sarif); err != nil || code != exitFindings || len(sarif.Runs) != 1 || len(sarif.Runs[0].Results) != 1 ||
		sarif.Runs[0].Results[0].RuleID != "pod-unschedulable" || sarif.Runs[0].Results[0].Locations[0].PhysicalLocation.Region.StartLine != line ||
		!strings.HasSuffix(sarif.Runs[0].Results[0].Locations[0].PhysicalLocation.ArtifactLocation.URI, "apps/all.yaml") {
		t.Errorf("sarif: exit %d, %v:\n%s", code, err, out)
	}
	code, out, stderr = lint(t, "", args...)
	// The text output: a row per workload, the NodeClaims (equal ones
	// once, with their count) with their instance types cheapest first,
	// truncated with their number, and each one's price; then the cost.
	for _, re := range []string{`\ndefault/Job/finetune +1 +- +1\n`, `\ndefault/Deployment/web +3 +general=3 +\n`,
		`\nNodeClaims Karpenter would create: 5 \(general 3, gpu 2\)\n`, `INSTANCE TYPES \(cheapest first\)\n`,
		`\n2 +gpu +default/Job/train +us-east-1a, us-east-1b, us-east-1c +on-demand, spot +amd64, arm64 +\$0\.4200 spot +g5g.xlarge, g4dn.xlarge, g5.xlarge\n`,
		// The web spread's zones are a coin (the region's types are not
		// offered alike in the three): its NodeClaims name all three.
		`\n2 +general +default/Deployment/web +us-east-1a, us-east-1b, us-east-1c +on-demand, spot +amd64, arm64 +\$0\.0440 spot +m1.small, c7g.large, m6g.large, c5.large, m7i-flex.large and 6 more \(11\)\n`,
		`\nCost of the NodeClaims: \$1\.0820/h, \$789\.86/month \(730 h\); general \$0\.2420/h, gpu \$0\.8400/h\nPrices: On-demand: Karpenter's static price table \(karpenter-provider-aws v1\.14\.1, generated 2026-07-06\), us-east-1: `} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("text: lacks %s:\n%s", re, out)
		}
	}
	for _, want := range []string{"Not read, of kinds the decision does not read (1): karpenter/ConfigMap/settings",
		"1 error, 0 warnings"} {
		if code != exitFindings || !strings.Contains(out, want) {
			t.Errorf("text: exit %d, lacks %q:\n%s%s", code, want, out, stderr)
		}
	}
	code, out, stderr = lint(t, "", append(args, "--format", "json", "--allow-unschedulable", "default/Job/finetune")...)
	var r jsonSchedule
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != exitOK || len(r.Findings) != 1 || r.Findings[0].Severity != "warning" ||
		r.Findings[0].Line != line || r.Pods["default/Job/finetune"].Unschedulable != 1 || !strings.Contains(r.Pods["default/Job/finetune"].Reason, "did not tolerate taint") ||
		r.Summary.Unschedulable != 1 || r.Summary.Warnings != 1 {
		t.Errorf("allowed: exit %d, %v:\n%s%s", code, err, out, stderr)
	}
	// The workloads through standard input: the finding names <stdin>.
	text, err := os.ReadFile(workloads)
	if err != nil {
		t.Fatal(err)
	}
	code, out, stderr = lint(t, string(text), "schedule", "--pools", pools, "--workloads", "-",
		"--region", "us-east-1", "--cluster", "demo", "--format", "compact")
	if code != exitFindings || !strings.HasPrefix(out, fmt.Sprintf("<stdin>:%d:1: error pod-unschedulable", line)) {
		t.Errorf("stdin: exit %d\n%s%s", code, out, stderr)
	}
	// The controller's settings: a larger VM memory overhead leaves the
	// smallest type (m1.small, 1.7 GiB) too small for a web replica.
	if code, out, stderr := lint(t, "", append(args, "--format", "json", "--vm-memory-overhead-percent", "0.5")...); code != exitFindings ||
		!strings.Contains(out, `"default/Deployment/web"`) || strings.Contains(out, `"m1.small"`) {
		t.Errorf("--vm-memory-overhead-percent 0.5: exit %d\n%s%s", code, out, stderr)
	}
	// One directory for both: each object counts where it is read, so only
	// the ConfigMap is not read.
	both := filepath.Dir(filepath.Dir(pools))
	code, out, stderr = lint(t, "", "schedule", "--pools", both, "--workloads", both, "--region", "us-east-1", "--cluster", "demo", "--format", "json")
	r = jsonSchedule{}
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != exitFindings || len(r.Findings) != 1 || r.Findings[0].Line != line ||
		r.Summary.Pods != 8 || r.Summary.NodePools != 2 || strings.Join(r.Skipped, " ") != "karpenter/ConfigMap/settings" {
		t.Errorf("one directory: exit %d, %v:\n%s%s", code, err, out, stderr)
	}
	// The configuration file's allow-unschedulable, in the working directory.
	dir := t.TempDir()
	write(t, filepath.Join(dir, defaultConfig), fmt.Sprintf("pools: [%s]\nworkloads: [%s]\nregion: us-east-1\ncluster: demo\nallow-unschedulable: [default/Job/finetune]\n", pools, workloads))
	t.Chdir(dir)
	if code, out, stderr := lint(t, "", "schedule", "--format", "compact"); code != exitOK || !strings.Contains(out, ": warning pod-unschedulable: Job/finetune") || !strings.Contains(out, "Acknowledged in allow-unschedulable.") {
		t.Errorf("allowed in %s: exit %d\n%s%s", defaultConfig, code, out, stderr)
	}
}

// Without AWS the decision cannot be made: exit 1 and the flag to add.
// Usage mistakes are exit 1 too; -h prints the command's help.
func TestScheduleCannotRun(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
		say  string
	}{
		{"offline", []string{"schedule", "--pools", "p.yaml", "--workloads", "w.yaml"}, exitCannot, "cannot be made offline: give --region (or --profile)"},
		{"no workloads", []string{"schedule", "--pools", "p.yaml", "--region", "us-east-1"}, exitCannot, "--workloads"},
		{"paths", []string{"schedule", "--pools", "p.yaml", "--workloads", "w.yaml", "--region", "us-east-1", "x.yaml"}, exitCannot, "schedule takes no paths"},
		{"stdin twice", []string{"schedule", "--pools", "-", "--workloads", "-", "--region", "us-east-1"}, exitCannot, "not both"},
		{"bad key", []string{"schedule", "--pools", "p.yaml", "--workloads", "w.yaml", "--region", "us-east-1", "--allow-unschedulable", "web"}, exitCannot,
			`"web" is not a workload key`},
		{"bad overhead", []string{"schedule", "--pools", "p.yaml", "--workloads", "w.yaml", "--region", "us-east-1", "--vm-memory-overhead-percent", "x"}, exitCannot, "not a number"},
		{"negative overhead", []string{"schedule", "--pools", "p.yaml", "--workloads", "w.yaml", "--region", "us-east-1", "--vm-memory-overhead-percent", "-1"}, exitCannot, "overhead"},
		{"help", []string{"schedule", "-h"}, exitOK, "Usage: karpenter-lint schedule --pools PATH --workloads PATH --region REGION"},
		{"help names the flags", []string{"schedule", "--help"}, exitOK, "-allow-unschedulable value"},
		{"commands", []string{"-h"}, exitOK, "  schedule  decide where Karpenter would put the workloads' pods (needs AWS)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := lint(t, "", tc.args...)
			if code != tc.code || !strings.Contains(out+stderr, tc.say) {
				t.Errorf("exit %d, want %d; output lacks %q:\n%s%s", code, tc.code, tc.say, out, stderr)
			}
		})
	}
}

// --baseline: the same workloads decided on the pools before the change;
// the output says which workloads move and which NodeClaims come and go,
// and the exit status is the new pools' alone (the baseline's pod that
// would not land does not fail the run; a new one does).
func TestScheduleBaseline(t *testing.T) {
	url, _ := awsemutest.Start(t)
	awsemutest.Setenv(t, url)
	dir := t.TempDir()
	general := schedulingtest.Pool("general", "", "")
	tainted := schedulingtest.Pool("general", "", "      taints:\n        - key: dedicated\n          value: team\n          effect: NoSchedule\n")
	spot := schedulingtest.Pool("spot", "  weight: 10\n", "")
	files := map[string]string{
		"before/pools.yaml":  schedulingtest.Class + "---\n" + general,
		"tainted/pools.yaml": schedulingtest.Class + "---\n" + tainted,
		"after/pools.yaml":   schedulingtest.Class + "---\n" + general + "---\n" + spot,
		"apps/web.yaml":      schedulingtest.Deployment("web", 3, "500m", ""),
	}
	for name, text := range files {
		write(t, filepath.Join(dir, name), text)
	}
	run := func(before, after string) (int, string) {
		code, out, stderr := lint(t, "", "schedule", "--pools", filepath.Join(dir, after), "--baseline", filepath.Join(dir, before),
			"--workloads", filepath.Join(dir, "apps"), "--region", "us-east-1", "--cluster", "demo")
		return code, out + stderr
	}
	code, out := run("before", "after")
	if code != 0 || !strings.Contains(out, "Against the baseline: 1 workload move, NodeClaims +1 -1") ||
		!regexp.MustCompile(`default/Deployment/web\s+general=3\s+spot=3`).MatchString(out) ||
		!strings.Contains(out, "+ spot: default/Deployment/web ×3 in ") || !strings.Contains(out, "- general: default/Deployment/web ×3 in ") {
		t.Errorf("a heavier pool: exit %d\n%s", code, out)
	}
	if code, out := run("tainted", "before"); code != 0 || !regexp.MustCompile(`default/Deployment/web\s+\(not placed\)=3\s+general=3`).MatchString(out) {
		t.Errorf("the baseline's pods did not land, the new pools' do: exit %d, want 0\n%s", code, out)
	}
	if code, out := run("before", "tainted"); code != exitFindings || !strings.Contains(out, "pod-unschedulable") ||
		!regexp.MustCompile(`default/Deployment/web\s+general=3\s+\(not placed\)=3`).MatchString(out) {
		t.Errorf("the new pools leave the pods out: exit %d, want %d\n%s", code, exitFindings, out)
	}
	// What the change adds or saves: the baseline's cost less, in text and
	// json; the pools that no longer take the pods save all they cost.
	cost := func(args ...string) (jsonSchedule, string) {
		_, js, stderr := lint(t, "", append([]string{"schedule", "--workloads", filepath.Join(dir, "apps"), "--region", "us-east-1",
			"--cluster", "demo", "--format", "json"}, args...)...)
		var r jsonSchedule
		if err := json.Unmarshal([]byte(js), &r); err != nil {
			t.Fatalf("json: %v\n%s%s", err, js, stderr)
		}
		return r, js
	}
	alone, _ := cost("--pools", filepath.Join(dir, "before"))
	if alone.Cost.Hourly <= 0 {
		t.Fatalf("the general pool's NodeClaims cost nothing: %+v", alone.Cost)
	}
	saved, js := cost("--pools", filepath.Join(dir, "tainted"), "--baseline", filepath.Join(dir, "before"))
	if saved.Baseline == nil || saved.Baseline.Cost.Hourly != -alone.Cost.Hourly || saved.Baseline.Cost.NodePools["general"].Hourly != -alone.Cost.Hourly {
		t.Errorf("baseline.cost: want hourly %v (the general pool's NodeClaims gone)\n%s", -alone.Cost.Hourly, js)
	}
	if _, out := run("before", "tainted"); !strings.Contains(out, fmt.Sprintf("cost -$%.4f/h", alone.Cost.Hourly)) {
		t.Errorf("text: lacks the saving of $%.4f/h\n%s", alone.Cost.Hourly, out)
	}
	if _, out := run("tainted", "before"); !strings.Contains(out, fmt.Sprintf("cost +$%.4f/h", alone.Cost.Hourly)) {
		t.Errorf("text: lacks the addition of $%.4f/h\n%s", alone.Cost.Hourly, out)
	}
}

// With the endpoint down, each failed read names its own service: the
// EKS call (the cluster's Kubernetes version) is not blamed on EC2.
func TestScheduleEndpointDownNamesEachService(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	_ = ln.Close() // nothing listens there now
	awsemutest.Setenv(t, url)
	pools, workloads, _ := scheduleFiles(t)
	code, out, stderr := lint(t, "", "schedule", "--pools", pools, "--workloads", workloads, "--region", "us-east-1", "--cluster", "demo")
	if code != exitCannot || !strings.Contains(stderr, "the decision needs AWS facts that could not be read") {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	for _, l := range strings.Split(stderr, "\n") {
		// The request a line is about is the one its endpoint error names
		// first; "when <action> was sent" names the one that found it down.
		for _, svc := range []string{"EC2", "EKS", "SSM"} {
			if strings.Contains(l, "operation error "+svc+":") && !strings.Contains(l, "the "+svc+" endpoint "+url) {
				t.Errorf("a failed %s request blames another service's endpoint: %s", svc, l)
			}
			if i := strings.Index(l, "the "+svc+" endpoint "+url); i >= 0 {
				if _, action, ok := strings.Cut(l[i:], " for "); ok && !strings.HasPrefix(action, strings.ToLower(svc)+":") {
					t.Errorf("a line names the wrong request: %s", l)
				}
			}
		}
	}
}

// lint and schedule read the same files alike: a NodePool and an
// EC2NodeClass written with a metadata.namespace (common in charts and
// GitOps trees) are cluster-scoped, so the API server clears the
// namespace before it validates (k8s.io/apiserver BeforeCreate); neither
// command rejects them.
func TestLintAndScheduleAgreeOnNamespacedObjects(t *testing.T) {
	url, _ := awsemutest.Start(t)
	awsemutest.Setenv(t, url)
	dir := t.TempDir()
	pools, workloads := filepath.Join(dir, "pools.yaml"), filepath.Join(dir, "apps.yaml")
	ns := func(doc string) string {
		return strings.Replace(doc, "metadata:\n", "metadata:\n  namespace: karpenter\n", 1)
	}
	write(t, pools, ns(schedulingtest.Class)+"---\n"+ns(schedulingtest.Pool("general", "", "      requirements:\n        - key: kubernetes.io/arch\n          operator: In\n          values: [amd64]\n")))
	write(t, workloads, schedulingtest.Deployment("web", 2, "500m", ""))
	if code, out, stderr := lint(t, "", "lint", "--format", "compact", pools); code != exitOK || out != "" {
		t.Errorf("lint: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr := lint(t, "", "schedule", "--pools", pools, "--workloads", workloads, "--region", "us-east-1", "--cluster", "demo", "--format", "json")
	var r jsonSchedule
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != exitOK || r.Summary.NodePools != 1 || r.Summary.Pods != 2 || r.Summary.Unschedulable != 0 {
		t.Errorf("schedule: exit %d, %v\n%s%s", code, err, out, stderr)
	}
}

// --cluster-state: the workloads' pods go to the snapshot's nodes first
// (text and json say which), and an item of the snapshot that cannot be
// read is a warning at its line of the snapshot file.
func TestScheduleClusterState(t *testing.T) {
	url, _ := awsemutest.Start(t)
	awsemutest.Setenv(t, url)
	dir := t.TempDir()
	pools, workloads, state := filepath.Join(dir, "pools.yaml"), filepath.Join(dir, "web.yaml"), filepath.Join(dir, "cluster.yaml")
	write(t, pools, schedulingtest.Class+"---\n"+schedulingtest.Pool("default", "", ""))
	write(t, workloads, schedulingtest.Deployment("web", 3, "1", ""))
	l := &snapshottest.List{}
	l.Add(snapshottest.Node{Name: "ip-10-0-1-1", Pool: "default", Class: "default", InstanceType: "m5.xlarge", Zone: "us-east-1a", CPU: "3920m", Memory: "14Gi", Pods: 58})
	snap := l.YAML()
	write(t, state, snap+"---\napiVersion: v1\nkind: Node\nmetadata:\n  name: trimmed\n")
	args := []string{"schedule", "--pools", pools, "--workloads", workloads, "--cluster-state", state, "--region", "us-east-1", "--cluster", "demo"}
	code, out, stderr := lint(t, "", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, stderr)
	}
	for _, want := range []string{"EXISTING NODE", "ip-10-0-1-1    default   default/Deployment/web ×3", "NodeClaims Karpenter would create: 0",
		"existing nodes=3", state, fmt.Sprintf("%d:1  warning  cluster-state-incomplete", strings.Count(snap, "\n")+2), "Node trimmed", "no status.allocatable"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	_, js, _ := lint(t, "", append(args, "--format", "json")...)
	var doc struct {
		ExistingNodes map[string][]string `json:"existing_nodes"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil || len(doc.ExistingNodes["ip-10-0-1-1"]) != 3 {
		t.Errorf("json existing_nodes: %v %v\n%s", doc.ExistingNodes, err, js)
	}
}
