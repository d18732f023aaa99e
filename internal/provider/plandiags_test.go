package provider

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
)

// planDiagnostic is one diagnostic of `terraform plan -json`.
type planDiagnostic struct {
	Severity string `json:"severity"`
	Summary  string `json:"summary"`
	Detail   string `json:"detail"`
	Address  string `json:"address"`
	// Range is where Terraform points the diagnostic in the configuration.
	Range *struct {
		Filename string `json:"filename"`
		Start    struct {
			Line int `json:"line"`
		} `json:"start"`
	} `json:"range"`
}

// planDiagnostics plans config with the provider served in-process and
// returns every diagnostic, warnings included: terraform-plugin-testing
// only exposes errors, but warnings are half of what this provider says.
func planDiagnostics(t *testing.T, config string) []planDiagnostic {
	t.Helper()
	return terraformDiagnostics(t, config, "plan", "-input=false", "-json", "-refresh=false")
}

// terraformDiagnostics runs a terraform command with -json output against
// the in-process provider and returns its diagnostics.
func terraformDiagnostics(t *testing.T, config string, command ...string) []planDiagnostic {
	t.Helper()
	return terraformSteps(t, terraformStep{config, command})
}

// terraformStep is one terraform command run on a configuration.
type terraformStep struct {
	config  string
	command []string
}

// terraformSteps runs the steps in one working directory (so a later step
// sees the state an apply left) and returns the diagnostics of the last.
func terraformSteps(t *testing.T, steps ...terraformStep) []planDiagnostic {
	t.Helper()
	run := inProcessTerraform(t)
	dir := t.TempDir()
	writeMain(t, dir, steps[0].config)
	run(dir, "init", "-input=false", "-backend=false")
	var out []byte
	for _, st := range steps {
		writeMain(t, dir, st.config)
		out, _ = run(dir, st.command...)
	}
	return jsonDiagnostics(out)
}

// mainPreamble is the terraform block writeMain puts before a
// configuration: mainPreamble's lines come before the configuration's.
const mainPreamble = "terraform {\n  required_providers {\n    karpenter = { source = \"karpenter-tf/karpenter\" }\n  }\n}\n"

// writeMain writes config, which uses the in-process provider, as dir's
// main.tf.
func writeMain(t *testing.T, dir, config string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(mainPreamble+config), 0o600); err != nil {
		t.Fatal(err)
	}
}

// jsonDiagnostics reads the diagnostics of a terraform command's -json
// output.
func jsonDiagnostics(out []byte) []planDiagnostic {
	var diags []planDiagnostic
	// plan -json streams one message per line; validate -json is a single
	// document with a diagnostics list.
	var doc struct {
		Diagnostics []planDiagnostic `json:"diagnostics"`
	}
	if json.Unmarshal(out, &doc) == nil && doc.Diagnostics != nil {
		diags = doc.Diagnostics
	}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var msg struct {
			Type       string         `json:"type"`
			Diagnostic planDiagnostic `json:"diagnostic"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) == nil && msg.Type == "diagnostic" {
			diags = append(diags, msg.Diagnostic)
		}
	}
	return diags
}

// inProcessTerraform serves the provider in this process (so it sees the
// test's environment and emulator) and returns a function that runs a
// terraform command in a directory against it, returning its stdout and
// stderr. The server stops when the test ends.
func inProcessTerraform(t *testing.T) func(dir string, args ...string) (stdout, stderr []byte) {
	t.Helper()
	if _, err := exec.LookPath("terraform"); err != nil {
		t.Skip("terraform not on PATH")
	}
	// The in-process server would log every RPC at trace level.
	for _, k := range []string{"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK", "TF_LOG_PROVIDER"} {
		t.Setenv(k, "off")
	}
	ctx, cancel := context.WithCancel(context.Background())
	reattach := make(chan *plugin.ReattachConfig, 1)
	closed := make(chan struct{})
	go func() {
		_ = tf6server.Serve("registry.terraform.io/karpenter-tf/karpenter", func() tfprotov6.ProviderServer { s, _ := auditedFactory(); return s },
			tf6server.WithDebug(ctx, reattach, closed))
	}()
	rc := <-reattach
	t.Cleanup(func() {
		cancel()
		<-closed
	})
	info, err := json.Marshal(map[string]any{"registry.terraform.io/karpenter-tf/karpenter": map[string]any{
		"Protocol": string(rc.Protocol), "ProtocolVersion": rc.ProtocolVersion, "Pid": rc.Pid, "Test": true,
		"Addr": map[string]string{"Network": rc.Addr.Network(), "String": rc.Addr.String()},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return func(dir string, args ...string) (stdout, stderr []byte) {
		var o, e bytes.Buffer
		cmd := exec.CommandContext(ctx, "terraform", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "TF_REATTACH_PROVIDERS="+string(info), "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1")
		cmd.Stdout, cmd.Stderr = &o, &e
		_ = cmd.Run() // a failing command is judged by what it printed
		return o.Bytes(), e.Bytes()
	}
}

// expectDiagnostic fails unless a diagnostic of severity whose summary
// starts with rule and whose summary or detail contains every part exists.
func expectDiagnostic(t *testing.T, diags []planDiagnostic, severity, rule string, parts ...string) {
	t.Helper()
	if !hasDiagnostic(diags, severity, rule, 0, parts...) {
		t.Fatalf("no %s %s containing %q among:\n%s", severity, rule, parts, formatDiags(diags))
	}
}

// hasDiagnostic reports whether diags hold one of severity whose summary
// starts with rule, at line (0: anywhere), whose detail has every part.
func hasDiagnostic(diags []planDiagnostic, severity, rule string, line int, parts ...string) bool {
	for _, d := range diags {
		if d.Severity != severity || !strings.HasPrefix(d.Summary, rule+":") {
			continue
		}
		if line != 0 && (d.Range == nil || d.Range.Start.Line != line) {
			continue
		}
		// The parts may be in the summary (the object a warning names) or
		// the detail.
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(d.Summary+": "+d.Detail, p)
		}
		if ok {
			return true
		}
	}
	return false
}

func formatDiags(diags []planDiagnostic) string {
	var b strings.Builder
	for _, d := range diags {
		b.WriteString(d.Severity + " " + d.Summary + ": " + d.Detail + "\n")
	}
	return b.String()
}
