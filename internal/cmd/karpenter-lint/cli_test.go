package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
)

// Exit status: 0 nothing at or above the fail level, 1 the command could
// not run, 2 findings.
func TestExitCodes(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.yaml")
	empty := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		code int
		say  string
	}{
		{"clean", []string{"lint", "testdata/corpus/31-clean-general-purpose.yaml", "testdata/corpus/00-shared-class.yaml"}, exitOK, ""},
		{"suppressed only", []string{"lint", "testdata/corpus/30-ignored-with-reason.yaml"}, exitOK, ""},
		{"an error", []string{"lint", "testdata/corpus/01-weight-zero.yaml"}, exitFindings, ""},
		{"warnings below the fail level", []string{"lint", "--disable", "lint-ignore-reason-missing", "testdata/corpus/28-ignore-without-reason.yaml"}, exitOK, ""},
		{"warnings at the fail level", []string{"lint", "--fail-level", "warning", "--disable", "lint-ignore-reason-missing", "testdata/corpus/28-ignore-without-reason.yaml"}, exitFindings, ""},
		{"the error's rule disabled", []string{"lint", "--disable", "nodepool-weight-out-of-range", "testdata/corpus/01-weight-zero.yaml"}, exitOK, ""},
		{"flags after the path", []string{"lint", "testdata/corpus/01-weight-zero.yaml", "--disable=nodepool-weight-out-of-range"}, exitOK, ""},
		{"a path after --", []string{"lint", "--", "testdata/corpus/01-weight-zero.yaml"}, exitFindings, ""},
		{"unknown flag", []string{"lint", "--formt", "json", "testdata/corpus"}, exitCannot, "flag provided but not defined"},
		{"unknown format", []string{"lint", "--format", "sarf", "testdata/corpus"}, exitCannot, `did you mean "sarif"`},
		{"more outputs than formats", []string{"lint", "--output", "a", "--output", "b", "testdata/corpus"}, exitCannot, "2 outputs for 1 formats"},
		{"unknown rule", []string{"lint", "--disable", "nodepool-weight-out-of-rang", "testdata/corpus"}, exitCannot, `did you mean "nodepool-weight-out-of-range"`},
		{"bad fail level", []string{"lint", "--fail-level", "info", "testdata/corpus"}, exitCannot, "want error or warning"},
		{"bad karpenter version", []string{"lint", "--karpenter-version", "0.37", "testdata/corpus"}, exitCannot, "karpenter-version"},
		{"kubernetes version offline", []string{"lint", "--kubernetes-version", "1.32", "testdata/corpus"}, exitCannot, "--region or --profile"},
		{"missing path", []string{"lint", missing}, exitCannot, "no such file"},
		{"directory without manifests", []string{"lint", empty}, exitCannot, "no *.yaml"},
		{"no path", []string{"lint"}, exitCannot, "nothing to check"},
		{"unwritable output", []string{"lint", "--format", "json", "--output", filepath.Join(missing, "x.json"), "testdata/corpus/01-weight-zero.yaml"}, exitCannot, "writing the json output"},
		{"unknown command", []string{"lnt"}, exitCannot, `unknown command "lnt"`},
		{"help", []string{"lint", "-h"}, exitOK, "Exit status"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := lint(t, "", tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.say) {
				t.Errorf("exit %d, want %d; stderr lacks %q:\n%s%s", code, tc.code, tc.say, out, stderr)
			}
		})
	}
}

// The configuration file: found in the working directory, its keys are the
// flags', flags win, --enable undoes its disable, unknown keys are errors.
func TestConfigFile(t *testing.T) {
	dir := t.TempDir()
	bad, err := os.ReadFile("testdata/corpus/01-weight-zero.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "karpenter"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "karpenter", "pool.yaml"), bad, 0o600); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	write(".karpenter-lint.yaml", "paths: [karpenter]\nformat: compact\ndisable:\n  - nodepool-weight-out-of-range\n")
	if code, out, stderr := lint(t, "", "lint"); code != exitOK || out != "" || !strings.Contains(stderr, "rules disabled: nodepool-weight-out-of-range") {
		t.Errorf("config disables the rule: exit %d\n%s%s", code, out, stderr)
	}
	if code, out, _ := lint(t, "", "lint", "--enable", "nodepool-weight-out-of-range"); code != exitFindings || !strings.HasPrefix(out, "karpenter/pool.yaml:7:3: error nodepool-weight-out-of-range") {
		t.Errorf("--enable undoes it: exit %d\n%s", code, out)
	}
	write("other.yaml", "fail-level: warning\nformats: [json]\n")
	if code, _, stderr := lint(t, "", "lint", "--config", "other.yaml", "karpenter"); code != exitCannot || !strings.Contains(stderr, `unknown key "formats" (did you mean "format"?)`) {
		t.Errorf("unknown key: exit %d %s", code, stderr)
	}
	if code, _, stderr := lint(t, "", "lint", "--config", "absent.yaml", "karpenter"); code != exitCannot || !strings.Contains(stderr, "absent.yaml") {
		t.Errorf("missing --config file: exit %d %s", code, stderr)
	}
	write(".karpenter-lint.yaml", "karpenter-version: \"1.99\"\n")
	if code, _, stderr := lint(t, "", "lint", "karpenter"); code != exitCannot || !strings.Contains(stderr, ".karpenter-lint.yaml") {
		t.Errorf("bad value in the file: exit %d %s", code, stderr)
	}
}

// Manifests whose mistakes need the account's facts: an AL2 class on
// @latest with a g5g pool, a name selector whose only image is pending, a
// subnet selector that matches nothing.
const awsManifests = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: al2
spec:
  role: KarpenterNodeRole-demo
  amiSelectorTerms:
    - alias: al2@latest
  subnetSelectorTerms:
    - tags:
        karpenter.sh/discovery: demo
  securityGroupSelectorTerms:
    - tags:
        karpenter.sh/discovery: demo
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: gpu
spec:
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: al2
      requirements:
        - key: karpenter.k8s.aws/instance-family
          operator: In
          values: ["g5g"]
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: gpu-images
spec:
  role: KarpenterNodeRole-demo
  amiFamily: AL2023
  amiSelectorTerms:
    - name: team-gpu-node-*
  subnetSelectorTerms:
    - tags:
        karpenter.sh/discovery: prod
  securityGroupSelectorTerms:
    - tags:
        karpenter.sh/discovery: demo
`

// With --region the checks that need AWS run against the emulator (the
// SDK honours AWS_ENDPOINT_URL_*); offline the same files report what the
// embedded facts decide and say what was not checked.
func TestRegionAgainstTheEmulator(t *testing.T) {
	url, emu := awsemutest.Start(t)
	awsemutest.Setenv(t, url)
	file := filepath.Join(t.TempDir(), "k.yaml")
	if err := os.WriteFile(file, []byte(awsManifests), 0o600); err != nil {
		t.Fatal(err)
	}
	rulesAt := func(r jsonReport) string {
		var out []string
		for _, f := range r.Findings {
			out = append(out, f.Object+" "+f.Rule)
		}
		return strings.Join(out, ", ")
	}
	code, r := jsonOf(t, "", "--region", "us-east-1", "--kubernetes-version", "1.32", file)
	if got := rulesAt(r); got != "NodePool/gpu arm64-gpu-no-image, EC2NodeClass/gpu-images ami-not-available, EC2NodeClass/gpu-images subnet-selector-matches-nothing" ||
		code != exitFindings || len(r.Summary.SkippedChecks) != 0 || len(r.Summary.FailedAWSRequests) != 0 {
		t.Errorf("--region: exit %d: %s; skipped %q; failed %q", code, got, r.Summary.SkippedChecks, r.Summary.FailedAWSRequests)
	}
	if !strings.Contains(r.Findings[0].Message, "amis [ami-0") {
		t.Errorf("the images are not named: %s", r.Findings[0].Message)
	}
	if n := emu.Stats()["total"]; n == 0 || n > 10 {
		t.Errorf("%d AWS requests (%v)", n, emu.Stats())
	}
	// --cluster reads the Kubernetes version with eks:DescribeCluster.
	if code, r := jsonOf(t, "", "--region", "us-east-1", "--cluster", "demo", file); code != exitFindings || len(r.Findings) != 3 {
		t.Errorf("--cluster: exit %d: %s", code, rulesAt(r))
	}
	// An AWS request that fails (an unknown cluster) means the checks asked
	// for were not made: exit 1, and the failure is named, without the
	// provider's advice (it has a block to point at; this has --cluster).
	if code, out, stderr := lint(t, "", "lint", "--region", "us-east-1", "--cluster", "nope", file); code != exitCannot || !strings.Contains(out+stderr, `cluster "nope" does not exist in this account and region`) || strings.Contains(out+stderr, "provider") {
		t.Errorf("unknown cluster: exit %d\n%s%s", code, out, stderr)
	}
	// Offline: the family facts still catch the g5g pool; the summary says
	// what needs AWS.
	code, r = jsonOf(t, "", file)
	if got := rulesAt(r); got != "NodePool/gpu arm64-gpu-no-image" || code != exitFindings || len(r.Summary.SkippedChecks) != 1 || !strings.Contains(r.Summary.SkippedChecks[0], "need AWS") {
		t.Errorf("offline: exit %d: %s; skipped %q", code, got, r.Summary.SkippedChecks)
	}
}

// A rule of the provider's resources only (alias-latest-drift: pinning
// the alias the resource resolves) is not listed by the CLI, which never
// reports it, and an ignore annotation naming it gets a warning instead of
// silencing nothing without a word.
func TestProviderOnlyRulesAreNotTheCLIs(t *testing.T) {
	code, out, _ := lint(t, "", "rules", "list")
	if code != exitOK || strings.Contains(out, "alias-latest-drift") || !strings.Contains(out, "alias-version-shape") {
		t.Errorf("rules list: exit %d\n%s", code, out)
	}
	code, _, stderr := lint(t, "", "rules", "show", "alias-latest-drift")
	if code != exitCannot || !strings.Contains(stderr, "never reports it") {
		t.Errorf("rules show: exit %d\n%s", code, stderr)
	}
	b, err := os.ReadFile("testdata/corpus/30-ignored-with-reason.yaml")
	if err != nil {
		t.Fatal(err)
	}
	in := strings.Replace(string(b), "lint.karpenter-tf.io/ignore: \"", "lint.karpenter-tf.io/ignore: \"alias-latest-drift,", 1)
	if in == string(b) {
		t.Fatal("the corpus file has no ignore annotation")
	}
	_, r := jsonOf(t, in, "-")
	var got []string
	for _, f := range r.Findings {
		got = append(got, f.Severity+" "+f.Rule+": "+f.Message)
	}
	if len(got) != 1 || !strings.HasPrefix(got[0], `warning lint-ignore-invalid: lint.karpenter-tf.io/ignore: "alias-latest-drift" is a rule of the provider's resources only`) ||
		len(r.Suppressed) == 0 {
		t.Errorf("annotation naming alias-latest-drift: %q, %d suppressed", got, len(r.Suppressed))
	}
}

// Counted nouns: "2 EC2NodeClasses", not "EC2NodeClasss".
func TestPlural(t *testing.T) {
	for n, want := range map[int]string{1: "1 EC2NodeClass", 2: "2 EC2NodeClasses"} {
		if got := plural(n, "EC2NodeClass"); got != want {
			t.Errorf("plural(%d) = %q, want %q", n, got, want)
		}
	}
	if got := plural(3, "error"); got != "3 errors" {
		t.Errorf("plural(3, error) = %q", got)
	}
}
