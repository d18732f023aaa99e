package provider

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
)

// TestAccAMIRolloutsGuidePlans proves that the plan and diagnostic excerpts
// of the AMI rollouts guide are what terraform prints: each scenario runs the
// guide's own HCL (TestAccDocSnippets runs it too, with plan checks) through
// terraform init, apply and plan against the emulator, and the guide's
// ```text block, cut at its elisions ("..."), must occur in that output, in
// order (see excerptOf). GUIDE_PLANS_DUMP=DIR writes each output into DIR,
// from which the excerpts are cut.
func TestAccAMIRolloutsGuidePlans(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("TF_ACC is not set: this test runs terraform")
	}
	// The excerpts were cut from Terraform 1.11's output; older releases
	// render some plan lines differently.
	if v, err := exec.Command("terraform", "version", "-json").Output(); err == nil {
		var tv struct {
			Version string `json:"terraform_version"`
		}
		if json.Unmarshal(v, &tv) == nil {
			if major, minor := majorMinor(tv.Version); major == 1 && minor < 11 {
				t.Skipf("terraform %s: the guide's excerpts are Terraform 1.11's output", tv.Version)
			}
		}
	}
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	src, err := os.ReadFile("../../templates/guides/ami-rollouts.md.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	page := string(src)
	blocks, texts := terraformBlocks(page), textBlocks(page)
	beforeURL, _ := awsemutest.StartWith(t, fixturesBeforeRelease(t))
	afterURL, _ := awsemutest.Start(t)
	run := inProcessTerraform(t)
	pinned := `al2023_release = "v20251112"`
	bump := func(s string) string { return strings.Replace(s, pinned, `al2023_release = "v20251209"`, 1) }

	// The page's ```text blocks, in order: every one is checked.
	scenarios := []struct {
		name  string
		block string // a string only the scenario's HCL block contains
		// the emulator of the apply and of the plan: before or after EKS
		// published v20251209
		applyURL, planURL string
		edit              func(string) string // the reader's change before the plan
		noApply           bool
	}{
		{name: "a new release under @latest", block: `alias = "al2023@latest" }` + "\n  subnet", applyURL: beforeURL, planURL: afterURL},
		{name: "the check block of a pinned stack", block: pinned, applyURL: afterURL, planURL: afterURL},
		{name: "a pinned release, bumped", block: pinned, applyURL: afterURL, planURL: afterURL, edit: bump},
		// Each warning names its resource, so Terraform prints the pool's
		// next to the class's instead of folding it.
		{name: "the pool's nodes-will-drift warning", block: pinned, applyURL: afterURL, planURL: afterURL, edit: bump},
		{name: "a release not published for the next Kubernetes version", block: `data "karpenter_amis" "after_upgrade"`, planURL: afterURL, noApply: true},
	}
	if len(texts) != len(scenarios) {
		t.Fatalf("the guide has %d ```text blocks and this test %d scenarios: every excerpt must be produced by one", len(texts), len(scenarios))
	}
	for i, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			cfg := inDemoAccount(blocks[findBlock(t, blocks, "ami-rollouts", sc.block)])
			if sc.noApply {
				// The upgrade check sits next to the pinned stack.
				cfg = inDemoAccount(blocks[findBlock(t, blocks, "ami-rollouts", pinned)]) + "\n" + cfg
			}
			dir := t.TempDir()
			write := func(cfg string) {
				// The provider's source and configuration go last, so that
				// line numbers are the guide block's.
				src := cfg + "\nterraform {\n  required_providers {\n    karpenter = { source = \"karpenter-tf/karpenter\" }\n  }\n}\n" + snippetPreamble(cfg)
				if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(src), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			write(cfg)
			run(dir, "init", "-input=false", "-backend=false")
			if !sc.noApply {
				awsemutest.Setenv(t, sc.applyURL)
				if o, e := run(dir, "apply", "-input=false", "-auto-approve", "-no-color"); !strings.Contains(string(o), "Apply complete!") {
					t.Fatalf("apply:\n%s%s", o, e)
				}
			}
			if sc.edit != nil {
				write(sc.edit(cfg))
			}
			awsemutest.Setenv(t, sc.planURL)
			// Errors go to stderr, after the plan.
			stdout, stderr := run(dir, "plan", "-input=false", "-no-color")
			out := string(stdout) + string(stderr)
			dumpOutput(t, "GUIDE_PLANS_DUMP", sc.name, out)
			if err := excerptOf(texts[i], out); err != nil {
				t.Errorf("```text block %d of the guide is not what terraform prints: %v\nterraform printed:\n%s", i+1, err, out)
			}
		})
	}
}

// majorMinor reads "1.11.4" as 1, 11 (0, 0 when it cannot).
func majorMinor(v string) (major, minor int) {
	f := strings.SplitN(v, ".", 3)
	if len(f) < 2 {
		return 0, 0
	}
	major, _ = strconv.Atoi(f[0])
	minor, _ = strconv.Atoi(f[1])
	return major, minor
}

// textBlocks returns the ```text blocks of a markdown page, de-indented
// when they sit in a list item.
func textBlocks(md string) []string {
	re := regexp.MustCompile("(?ms)^( *)```text\n(.*?)^( *)```$")
	var out []string
	for _, m := range re.FindAllStringSubmatch(md, -1) {
		var lines []string
		for _, l := range strings.SplitAfter(m[2], "\n") {
			lines = append(lines, strings.TrimPrefix(l, m[1]))
		}
		out = append(out, strings.Join(lines, ""))
	}
	return out
}

// excerptOf reports the first part of excerpt that out does not print:
// the excerpt is cut at its elisions (lines whose text starts with "..."),
// and each part must occur in out, in order, with blanks and line breaks
// compared as one space (a list item indents the excerpt, and Terraform
// wraps a diagnostic's text where it will).
func excerptOf(excerpt, out string) error {
	norm := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	rest := norm(out)
	var part []string
	check := func() error {
		p := norm(strings.Join(part, "\n"))
		part = nil
		if p == "" {
			return nil
		}
		i := strings.Index(rest, p)
		if i < 0 {
			return fmt.Errorf("%q is not printed (after the parts before it)", p)
		}
		rest = rest[i+len(p):]
		return nil
	}
	for _, l := range strings.Split(excerpt, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "...") {
			if err := check(); err != nil {
				return err
			}
			continue
		}
		part = append(part, l)
	}
	return check()
}
