package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

const repoRoot = "../../.."

func readYAML(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, name))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// The release builds this command as its own archives and leaves the
// provider's, which the Terraform Registry reads by name, as they were.
func TestReleaseConfiguration(t *testing.T) {
	var cfg struct {
		Builds []struct {
			ID, Main, Binary string
		}
		Archives []struct {
			ID           string
			IDs          []string `json:"ids"`
			Formats      []string
			NameTemplate string `json:"name_template"`
		}
	}
	readYAML(t, ".goreleaser.yml", &cfg)
	builds := map[string]string{}
	for _, b := range cfg.Builds {
		builds[b.ID] = b.Main + " " + b.Binary
	}
	if builds["provider"] != " {{ .ProjectName }}_v{{ .Version }}" || builds["karpenter-lint"] != "./internal/cmd/karpenter-lint karpenter-lint" {
		t.Errorf("builds: %v", builds)
	}
	archives := map[string]string{}
	for _, a := range cfg.Archives {
		archives[a.ID] = strings.Join(a.IDs, ",") + " " + strings.Join(a.Formats, ",") + " " + a.NameTemplate
	}
	if archives["provider"] != "provider zip {{ .ProjectName }}_{{ .Version }}_{{ .Os }}_{{ .Arch }}" ||
		archives["karpenter-lint"] != "karpenter-lint tar.gz karpenter-lint_{{ .Version }}_{{ .Os }}_{{ .Arch }}" {
		t.Errorf("archives: %v", archives)
	}
}

// buildCommand builds karpenter-lint into dir/bin, where the action finds
// it ($(go env GOPATH)/bin).
func buildCommand(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the command")
	}
	gopath := t.TempDir()
	out, err := exec.Command("go", "build", "-o", filepath.Join(gopath, "bin", "karpenter-lint"), ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return gopath
}

// The action's lint step, run as the runner runs it: annotations on
// stdout, the SARIF file written, the exit status kept for the last step
// (so that the upload runs first).
func TestActionLintStep(t *testing.T) {
	var action struct {
		Runs struct {
			Using string
			Steps []struct {
				ID, Name, Shell, Run string
				Env                  map[string]string
			}
		}
	}
	readYAML(t, "action.yml", &action)
	script := ""
	for _, s := range action.Runs.Steps {
		if s.ID == "lint" {
			script = s.Run
		}
	}
	if action.Runs.Using != "composite" || script == "" {
		t.Fatalf("no lint step in %+v", action)
	}
	gopath := buildCommand(t)
	dir := t.TempDir()
	outputs := filepath.Join(dir, "github-output")
	abs, _ := filepath.Abs(corpus)
	cmd := exec.Command("bash", "-e", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOPATH="+gopath, "GITHUB_OUTPUT="+outputs, "PATHS="+abs+"/01-weight-zero.yaml "+abs+"/31-clean-general-purpose.yaml",
		"FAIL_LEVEL=error", "SARIF_FILE=k.sarif", "ARGS=--karpenter-version 1.12 --disable nodepool-taint-karpenter-owned")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the step failed: %v\n%s", err, out)
	}
	got, _ := os.ReadFile(outputs)
	sarif, _ := os.ReadFile(filepath.Join(dir, "k.sarif"))
	if string(got) != "exit-code=2\n" || !strings.HasPrefix(string(out), "::error file="+abs+"/01-weight-zero.yaml,line=7,col=3,") ||
		!strings.Contains(string(sarif), `"ruleId": "nodepool-weight-out-of-range"`) {
		t.Errorf("outputs %q\nstdout %s\nsarif %.300s", got, out, sarif)
	}
}

// The pre-commit hook's entry, as pre-commit calls it with the staged
// files.
func TestPreCommitHook(t *testing.T) {
	var hooks []struct {
		ID, Entry, Language string
		RequireSerial       bool `json:"require_serial"`
	}
	readYAML(t, ".pre-commit-hooks.yaml", &hooks)
	if len(hooks) != 1 || hooks[0].ID != "karpenter-lint" || hooks[0].Language != "golang" || !hooks[0].RequireSerial {
		t.Fatalf("hooks: %+v", hooks)
	}
	args := append(strings.Fields(hooks[0].Entry)[1:], filepath.Join(corpus, "19-g5g-on-al2.yaml"), filepath.Join(corpus, "00-shared-class.yaml"))
	code, out, _ := lint(t, "", args...)
	if code != exitFindings || !strings.HasPrefix(out, "testdata/corpus/19-g5g-on-al2.yaml:31:11: error arm64-gpu-no-image: ") {
		t.Errorf("exit %d\n%s", code, out)
	}
	// Only the pool staged: its class is read from the repository, and
	// only the pool's findings are reported.
	args = append(strings.Fields(hooks[0].Entry)[1:], filepath.Join(corpus, "19-g5g-on-al2.yaml"))
	code, out, _ = lint(t, "", args...)
	if code != exitFindings || !strings.HasPrefix(out, "testdata/corpus/19-g5g-on-al2.yaml:31:11: error arm64-gpu-no-image: ") ||
		strings.Contains(out, "00-shared-class.yaml") {
		t.Errorf("pool staged alone: exit %d\n%s", code, out)
	}
	// A pool whose class is nowhere fails the hook, loudly: pre-commit
	// hides the output of a hook that passes.
	dir := t.TempDir()
	pool := filepath.Join(dir, "pool.yaml")
	b, err := os.ReadFile(filepath.Join(corpus, "31-clean-general-purpose.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pool, []byte(strings.ReplaceAll(string(b), "name: shared", "name: elsewhere")), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := lint(t, "", append(strings.Fields(hooks[0].Entry)[1:], pool)...)
	if code != exitCannot || !strings.Contains(stderr, `no input defines EC2NodeClass "elsewhere"`) {
		t.Errorf("class nowhere: exit %d\n%s%s", code, out, stderr)
	}
	// Without --require-cross-checks the same run passes with the note.
	code, _, stderr = lint(t, "", "lint", "--format", "compact", pool)
	if code != exitOK || !strings.Contains(stderr, "Not made: the NodePool/EC2NodeClass cross-checks") {
		t.Errorf("without the hook's flags: exit %d\n%s", code, stderr)
	}
}
