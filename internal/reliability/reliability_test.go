package reliability_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
)

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		_ = os.RemoveAll(buildDir) // a leftover temp dir fails nothing
	}
	os.Exit(code)
}

// cliConfig builds the provider once per test binary and returns a CLI
// configuration whose dev_overrides point Terraform at it. It skips the
// test without TF_ACC or without terraform on PATH.
func cliConfig(t *testing.T) string {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("set TF_ACC=1 (make test) to run Terraform against the built provider")
	}
	if _, err := exec.LookPath("terraform"); err != nil {
		t.Skip("terraform is not on PATH")
	}
	buildOnce.Do(func() { buildDir, buildErr = buildProvider() })
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(buildDir, "dev.tfrc")
}

// buildProvider builds the provider into a new directory with a CLI
// configuration beside it. The directory outlives any one test (every test
// of the binary shares the build), so TestMain removes it, not t.TempDir.
func buildProvider() (string, error) {
	dir, err := os.MkdirTemp("", "karpenter-reliability-")
	if err != nil {
		return "", err
	}
	// go test puts its own GOROOT/bin first on PATH, so this is the
	// toolchain running the tests.
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "bin", "terraform-provider-karpenter"), "github.com/karpenter-tf/terraform-provider-karpenter")
	if out, err := cmd.CombinedOutput(); err != nil {
		return dir, fmt.Errorf("go build: %v\n%s", err, out)
	}
	return dir, os.WriteFile(filepath.Join(dir, "dev.tfrc"), []byte(fmt.Sprintf(`provider_installation {
  dev_overrides {
    "karpenter-tf/karpenter" = %q
  }
  direct {}
}
`, filepath.Join(dir, "bin"))), 0o644)
}

// terraformEnv is the environment of a plan: the developer's Terraform and
// AWS settings removed, the dev_overrides configuration, static keys.
func terraformEnv(cli string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !strings.HasPrefix(k, "TF_") && !strings.HasPrefix(k, "AWS_") {
			env = append(env, kv)
		}
	}
	return append(env, "TF_CLI_CONFIG_FILE="+cli, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1",
		"AWS_ACCESS_KEY_ID=test", "AWS_SECRET_ACCESS_KEY=test", "AWS_EC2_METADATA_DISABLED=true")
}

// providerHCL points the provider at the emulator; extra goes in the block.
func providerHCL(url, extra string) string {
	return fmt.Sprintf(`terraform {
  required_providers {
    karpenter = { source = "karpenter-tf/karpenter" }
  }
}

provider "karpenter" {
  region = "us-east-1"
  %s
  endpoints {
    ec2 = %[2]q
    ssm = %[2]q
    eks = %[2]q
    sts = %[2]q
    iam = %[2]q
  }
}
`, extra, url)
}

// fleetHCL is n classes with the alias and one pool on each.
func fleetHCL(n int, alias string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `
resource "karpenter_ec2nodeclass" "c%[1]d" {
  name = "class-%[1]d"
  role = "KarpenterNodeRole-demo"
  ami_selector_terms { alias = %[2]q }
  subnet_selector_terms { tags = { "karpenter.sh/discovery" = "demo" } }
  security_group_selector_terms { tags = { "karpenter.sh/discovery" = "demo" } }
}

resource "karpenter_nodepool" "p%[1]d" {
  name       = "pool-%[1]d"
  node_class = karpenter_ec2nodeclass.c%[1]d.node_class
  requirements {
    key      = "karpenter.k8s.aws/instance-family"
    operator = "In"
    values   = ["m5", "c5", "m6g"]
  }
}
`, i, alias)
	}
	return b.String()
}

type planRun struct {
	out  string
	err  error
	took time.Duration
}

// plan writes main.tf into a fresh directory and runs terraform plan.
func plan(t *testing.T, cli, hcl string, args ...string) planRun {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(hcl), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "terraform", append([]string{"plan", "-input=false", "-no-color"}, args...)...)
	cmd.Dir, cmd.Env = dir, terraformEnv(cli)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	return planRun{out: out.String(), err: err, took: time.Since(start)}
}

// planBody is plan output without the data source progress lines, whose
// order and timings vary between runs.
func planBody(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, ": Reading...") || strings.Contains(l, ": Read complete after") || strings.Contains(l, ": Still reading...") {
			continue
		}
		keep = append(keep, l)
	}
	return strings.Join(keep, "\n")
}

// With 30 % of AWS requests throttled the plan is the same, every distinct
// query is answered exactly once, and the retries stay few. One alias only:
// the SSM names of two aliases resolved at the same moment share a batch or
// not depending on timing, so the request count would not be exact.
func TestThrottledPlanMatchesUnthrottled(t *testing.T) {
	cli := cliConfig(t)
	hcl := func(url string) string {
		return providerHCL(url, `cluster { name = "demo" }`) + fleetHCL(2, "al2023@v20251209") + `
data "karpenter_amis" "team" {
  ami_family = "AL2023"
  ami_selector_terms {
    name  = "team-eks-node-al2023-*"
    owner = "self"
  }
}

data "karpenter_amis" "bottlerocket" {
  ami_family = "Bottlerocket"
  ami_selector_terms {
    name  = "bottlerocket-aws-k8s-1.32-*"
    owner = "amazon"
  }
}
`
	}
	url, clean := awsemutest.Start(t)
	want := plan(t, cli, hcl(url))
	if want.err != nil {
		t.Fatalf("unthrottled plan: %v\n%s", want.err, want.out)
	}
	queries := clean.Stats()["total"]

	url, throttled := awsemutest.Start(t, awsemu.Options{ThrottleRate: 0.3, Seed: 11})
	got := plan(t, cli, hcl(url))
	if got.err != nil {
		t.Fatalf("throttled plan: %v\n%s", got.err, got.out)
	}
	if planBody(got.out) != planBody(want.out) {
		t.Errorf("the throttled plan differs:\n--- throttled ---\n%s\n--- unthrottled ---\n%s", got.out, want.out)
	}
	st := throttled.Stats()
	if answered := st["total"] - st["throttled"]; answered != queries {
		t.Errorf("%d requests answered, want %d (one per distinct query): %v; unthrottled: %v", answered, queries, st, clean.Stats())
	}
	if st["throttled"] == 0 || st["throttled"] > 2*queries {
		t.Errorf("%d requests throttled for %d queries (want some, and few retries): %v", st["throttled"], queries, st)
	}
	t.Logf("%d queries; throttled %d times; plan %s unthrottled, %s throttled", queries, st["throttled"], want.took.Round(time.Millisecond), got.took.Round(time.Millisecond))
}

// With every request throttled the plan fails after max_retries with the
// throttling error and the provider's advice, each query tried 1 + 2 times.
func TestFullyThrottledPlanFailsClearly(t *testing.T) {
	cli := cliConfig(t)
	url, srv := awsemutest.Start(t, awsemu.Options{ThrottleRate: 1})
	got := plan(t, cli, providerHCL(url, `max_retries = 2
  cluster { name = "demo" }`)+fleetHCL(1, "al2023@latest"))
	if got.err == nil {
		t.Fatalf("the plan succeeded:\n%s", got.out)
	}
	flat := strings.Join(strings.Fields(got.out), " ")
	for _, want := range []string{"ThrottlingException", "AWS kept throttling the request after the configured retries"} {
		if !strings.Contains(flat, want) {
			t.Errorf("the output lacks %q:\n%s", want, got.out)
		}
	}
	st := srv.Stats()
	for k, n := range st {
		if strings.Contains(k, ":") && n%3 != 0 {
			t.Errorf("%s tried %d times, want 3 per query (max_retries = 2): %v", k, n, st)
		}
	}
	// Two backoffs of at most MaxBackoff (5 s) per query, a few queries in
	// a row at most.
	if got.took > time.Minute {
		t.Errorf("failing took %s", got.took)
	}
	t.Logf("failed after %s: %v", got.took.Round(time.Millisecond), st)
}

// 200 ms per answer, -parallelism=50, 50 classes and 50 pools on one
// alias: the resources plan concurrently and share in-flight calls, so AWS
// sees one request per distinct query.
func TestConcurrentPlanSharesCalls(t *testing.T) {
	cli := cliConfig(t)
	url, srv := awsemutest.Start(t, awsemu.Options{Latency: 200 * time.Millisecond})
	got := plan(t, cli, providerHCL(url, `cluster { name = "demo" }`)+fleetHCL(50, "al2023@v20251209"), "-parallelism=50")
	if got.err != nil {
		t.Fatalf("plan: %v\n%s", got.err, got.out)
	}
	st := srv.Stats()
	// Every class has the same alias, subnet and security group selectors
	// and role, every pool the same families: one query of each kind.
	want := map[string]int{"eks:DescribeCluster": 1, "ssm:GetParameters": 1, "ec2:DescribeImages": 1, "ec2:DescribeInstanceTypes": 1,
		"ec2:DescribeSubnets": 1, "ec2:DescribeSecurityGroups": 1, "ec2:DescribeInstanceTypeOfferings": 1, "iam:GetRole": 1}
	for k, n := range want {
		if st[k] != n {
			t.Errorf("%s: %d requests, want %d: %v", k, st[k], n, st)
		}
	}
	if st["total"] != len(want) {
		t.Errorf("%d requests, want %d: %v", st["total"], len(want), st)
	}
	t.Logf("100 resources planned in %s with %v", got.took.Round(time.Millisecond), st)
}

// SIGINT while the provider waits for AWS: Terraform stops the provider,
// the request's context reaches the SDK call, the plan ends within seconds
// and no further AWS request is made.
func TestInterruptStopsAWSCalls(t *testing.T) {
	cli := cliConfig(t)
	url, srv := awsemutest.Start(t, awsemu.Options{Latency: 60 * time.Second})
	dir := t.TempDir()
	hcl := providerHCL(url, `cluster {
    name               = "demo"
    kubernetes_version = "1.32"
  }`) + fleetHCL(3, "al2023@v20251209")
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(hcl), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("terraform", "plan", "-input=false", "-no-color")
	cmd.Dir, cmd.Env = dir, terraformEnv(cli)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
		}
	}()

	deadline := time.Now().Add(2 * time.Minute)
	for srv.Stats()["total"] == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no AWS request within 2 minutes:\n%s", out.String())
		}
		select {
		case err := <-done:
			t.Fatalf("terraform ended before any AWS request: %v\n%s", err, out.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	time.Sleep(200 * time.Millisecond) // let the other resources join the in-flight call
	atInterrupt := srv.Stats()["total"]
	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		var exit *exec.ExitError
		if err == nil || !errors.As(err, &exit) {
			t.Errorf("terraform exited with %v after SIGINT, want a failure", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("terraform still running 20 s after SIGINT (the AWS answer takes 60 s):\n%s", out.String())
	}
	took := time.Since(start)
	if took > 10*time.Second {
		t.Errorf("terraform took %s to stop after SIGINT", took)
	}
	time.Sleep(2 * time.Second)
	if after := srv.Stats()["total"]; after != atInterrupt {
		t.Errorf("%d AWS requests after SIGINT (%d before)", after-atInterrupt, atInterrupt)
	}
	t.Logf("terraform stopped %s after SIGINT; %d AWS requests in all\n%s", took.Round(time.Millisecond), atInterrupt, out.String())
}

// Credentials never reach Terraform's output, logs, plan or state: a plan
// and an apply with TF_LOG=trace, and a failing plan, with secret markers
// in the SDK's credential variables.
func TestNoCredentialsInLogsPlanStateOrDiagnostics(t *testing.T) {
	cli := cliConfig(t)
	const secret, token = "SECRETMARKERc2VjcmV0", "TOKENMARKERdG9rZW4"
	dir := t.TempDir()
	logFile := filepath.Join(dir, "trace.log")
	run := func(url string, args ...string) string {
		t.Helper()
		hcl := providerHCL(url, `cluster { name = "demo" }
  max_retries = 0`) + fleetHCL(1, "al2023@v20251209")
		if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(hcl), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("terraform", args...)
		cmd.Dir = dir
		cmd.Env = append(terraformEnv(cli), "AWS_SECRET_ACCESS_KEY="+secret, "AWS_SESSION_TOKEN="+token,
			"TF_LOG=trace", "TF_LOG_PATH="+logFile)
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	url, _ := awsemutest.Start(t)
	outputs := run(url, "plan", "-input=false", "-no-color", "-out=tfplan")
	outputs += run(url, "show", "-json", "-no-color", "tfplan")
	outputs += run(url, "apply", "-input=false", "-no-color", "-auto-approve")
	throttled, _ := awsemutest.Start(t, awsemu.Options{ThrottleRate: 1})
	failed := run(throttled, "plan", "-input=false", "-no-color", "-refresh=false", "-replace=karpenter_ec2nodeclass.c0")
	if !strings.Contains(failed, "ThrottlingException") {
		t.Fatalf("the failing plan did not fail on AWS:\n%s", failed)
	}
	state, err := os.ReadFile(filepath.Join(dir, "terraform.tfstate"))
	if err != nil || !strings.Contains(string(state), "karpenter_nodepool") {
		t.Fatalf("no state after apply: %v\n%s", err, outputs)
	}
	logs, err := os.ReadFile(logFile)
	if err != nil || !strings.Contains(string(logs), "sdk.framework") {
		t.Fatalf("no provider trace logs: %v", err)
	}
	for name, text := range map[string]string{"output and plan JSON": outputs, "failing plan": failed, "state": string(state), "trace log": string(logs)} {
		for _, marker := range []string{secret, token} {
			if strings.Contains(text, marker) {
				i := strings.Index(text, marker)
				t.Errorf("the %s contains a credential: ...%s...", name, text[max(0, i-200):min(len(text), i+50)])
			}
		}
	}
}
