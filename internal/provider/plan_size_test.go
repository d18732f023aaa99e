package provider

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
)

// TestAccPlanSize counts the lines `terraform plan -no-color` prints for two
// stacks against the emulator, with the provider served in-process:
// examples/eks-stack as committed (what `make demo-stack` plans, without the
// script's own lines), and testdata/two-environments, the 40-resource stack
// of issue 16 (prod and staging, 6 NodePools each, one applier per
// manifest), created and then with prod's pinned release bumped. The counts are logged (`go test -v -run TestAccPlanSize`) and
// recorded in BENCHMARKS.md; PLAN_SIZE_DUMP=DIR writes each plan into DIR,
// to see where the lines go.
//
// The fixtures and the configuration are fixed, so a count changes only
// with what the provider or the example prints (or with Terraform's
// renderer). Each bound is about 10% above the count measured when it was
// set: a new attribute on every resource (about 3-15 lines each) stays
// within it, a large value printed once more per resource (an image list,
// a manifest or the userData again, 30-50 lines per resource) does not.
func TestAccPlanSize(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("TF_ACC is not set: this test runs terraform plan")
	}
	url, _ := awsemutest.Start(t)
	awsemutest.Setenv(t, url)
	run := inProcessTerraform(t)

	for _, c := range []struct {
		name      string
		dir       string
		resources string
		limit     int
	}{
		{"examples/eks-stack", stackCopy(t, "../../examples/eks-stack"), "7", 1500},
		{"two environments, 40 resources", twoEnvironments(t), "40", 4180},
	} {
		t.Run(c.name, func(t *testing.T) {
			if out, errs := run(c.dir, "init", "-input=false", "-backend=false"); !strings.Contains(string(out), "initialized") {
				t.Fatalf("terraform init:\n%s%s", out, errs)
			}
			planSize(t, run, c.dir, c.name, c.resources+" to add, 0 to change", c.limit)
		})
	}

	// The release bump of issue 16 (1,129 lines there, list positions
	// shifting): prod moves from v20251112 to v20251209. Both classes and
	// all six pools of prod change (their images), and the appliers of the
	// two class manifests (their alias); nothing of staging.
	t.Run("two environments, prod's release bumped", func(t *testing.T) {
		dir := twoEnvironments(t)
		run(dir, "init", "-input=false", "-backend=false")
		if out, errs := run(dir, "apply", "-input=false", "-auto-approve", "-no-color"); !strings.Contains(string(out), "Apply complete!") {
			t.Fatalf("apply:\n%s%s", out, errs)
		}
		main := filepath.Join(dir, "main.tf")
		src, err := os.ReadFile(main)
		if err != nil {
			t.Fatal(err)
		}
		bumped := strings.Replace(string(src), `environment    = "prod"
  al2023_release = "v20251112"`, `environment    = "prod"
  al2023_release = "v20251209"`, 1)
		if bumped == string(src) {
			t.Fatal("testdata/two-environments/main.tf no longer pins prod to v20251112")
		}
		if err := os.WriteFile(main, []byte(bumped), 0o600); err != nil {
			t.Fatal(err)
		}
		planSize(t, run, dir, "prod's release bumped", "0 to add, 10 to change", 600)
	})
}

// planSize plans dir, expects the plan's summary line to start with want
// ("7 to add, 0 to change"), logs how many lines terraform printed and fails
// above limit.
func planSize(t *testing.T, run func(string, ...string) ([]byte, []byte), dir, name, want string, limit int) {
	t.Helper()
	stdout, stderr := run(dir, "plan", "-input=false", "-no-color")
	out := string(stdout)
	if !strings.Contains(out, "\nPlan: "+want+", 0 to destroy.\n") {
		t.Fatalf("the plan is not %q:\n%s%s", want, out, stderr)
	}
	lines := strings.Count(out, "\n")
	t.Logf("%s: terraform plan prints %d lines (%s)", name, lines, want)
	dumpOutput(t, "PLAN_SIZE_DUMP", name, out)
	if lines > limit {
		t.Errorf("%s: terraform plan prints %d lines, more than %d: which value is printed more often than before?", name, lines, limit)
	}
}

// twoEnvironments is testdata/two-environments with the module of
// examples/eks-stack next to it, in a temporary directory.
func twoEnvironments(t *testing.T) string {
	t.Helper()
	dir := stackCopy(t, "testdata/two-environments")
	module := stackCopy(t, "../../examples/eks-stack/modules/karpenter-pools")
	if err := os.MkdirAll(filepath.Join(dir, "modules"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(module, filepath.Join(dir, "modules", "karpenter-pools")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// dumpOutput writes out into the directory the environment variable env
// names, if set, as a file named after name: for a reader who wants to see
// what terraform printed.
func dumpOutput(t *testing.T, env, name, out string) {
	t.Helper()
	d := os.Getenv(env)
	if d == "" {
		return
	}
	file := regexp.MustCompile(`[^a-z0-9]+`).ReplaceAllString(strings.ToLower(name), "-") + ".txt"
	if err := os.WriteFile(filepath.Join(d, file), []byte(out), 0o600); err != nil {
		t.Error(err)
	}
}
