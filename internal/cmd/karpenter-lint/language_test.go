package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifestcheck"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// hclWords are what only a Terraform user can act on: the provider's
// acknowledgement list, its resources, an HCL assignment of a snake_case
// attribute or an HCL object.
var hclWords = regexp.MustCompile(`acknowledged_warnings|karpenter_(nodepool|ec2nodeclass)\b|\b[a-z]+(_[a-z0-9]+)+ = |= \{ `)

// Every rule's failing manifest example, through karpenter-lint: the rule
// is reported, its message speaks YAML (no HCL word, no name of the
// provider's: providerNames), and the passing example does not report it.
// `rules show` prints the same manifests.
func TestRuleExamplesSpeakYAML(t *testing.T) {
	n := 0
	emulated := false
	names := providerNames(t)
	for _, r := range rules.All() {
		if !manifestcheck.Reports(r.ID) {
			continue
		}
		bad, good, ok := r.YAMLExamples()
		if !ok {
			t.Errorf("%s: karpenter-lint reports it but it has no manifest examples (internal/rules/examples/%s)", r.ID, r.ID)
			continue
		}
		if len(r.LintArgs())+len(r.GoodLintArgs()) > 0 && !emulated {
			url, _ := awsemutest.Start(t)
			awsemutest.Setenv(t, url)
			emulated = true
		}
		n++
		rep := exampleReport(t, bad, r.LintArgs())
		found := false
		for _, f := range rep.Findings {
			found = found || f.Rule == r.ID
			if w := hclWords.FindString(f.Message); w != "" {
				t.Errorf("%s: Bad example: %s says %q: %s", r.ID, f.Rule, w, f.Message)
			}
			if said := names.in(f.Message); len(said) > 0 {
				t.Errorf("%s: Bad example: %s names the provider's %q: %s", r.ID, f.Rule, said, f.Message)
			}
		}
		if !found {
			t.Errorf("%s: Bad example does not report it: %+v", r.ID, rep.Findings)
		}
		rep = exampleReport(t, good, r.GoodLintArgs())
		for _, f := range rep.Findings {
			if f.Rule == r.ID {
				t.Errorf("%s: Good example reports it: %s", r.ID, f.Message)
			}
		}
		_, out, _ := lint(t, "", "rules", "show", r.ID)
		if !strings.Contains(out, indentLines(bad)) {
			t.Errorf("%s: rules show lacks the manifest example:\n%s", r.ID, out)
		}
		// A reader runs the examples with the flags they were linted with.
		if !strings.Contains(out, "Fails"+withArgs(r.LintArgs())+":\n") || !strings.Contains(out, "Passes"+withArgs(r.GoodLintArgs())+":\n") {
			t.Errorf("%s: rules show does not say the flags of the examples:\n%s", r.ID, out)
		}
	}
	if n < 150 {
		t.Errorf("only %d rules have manifest examples", n)
	}
}

// A rule whose fix is a Karpenter upgrade shows the release in the flags
// of each example; an offline rule shows none.
func TestRuleShowSaysTheFlags(t *testing.T) {
	_, out, _ := lint(t, "", "rules", "show", "alias-first-match-capacity-bug")
	for _, want := range []string{
		"Fails (karpenter-lint lint --karpenter-version 1.3 --region us-east-1 --kubernetes-version 1.32):\n",
		"Passes (karpenter-lint lint --karpenter-version 1.4 --region us-east-1 --kubernetes-version 1.32):\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	if _, out, _ := lint(t, "", "rules", "show", "alias-format"); !strings.Contains(out, "Fails:\n") || !strings.Contains(out, "Passes:\n") {
		t.Errorf("offline example with flags:\n%s", out)
	}
}

// karpenterKinds are the documents the schedule command reads with --pools.
var karpenterKinds = map[string]bool{"NodePool": true, "EC2NodeClass": true, "NodeOverlay": true}

var (
	documentSeparator = regexp.MustCompile(`(?m)^---[ \t]*$`)
	topLevelKind      = regexp.MustCompile(`(?m)^kind:[ \t]*(\S+)`)
)

// exampleReport runs a rule's manifest example through karpenter-lint
// with its args: lint by default, the example on standard input; when the
// args start with schedule, that command, with the example's documents in
// the files a user keeps them in: the Karpenter objects as --pools, a
// `kind: List` (kubectl's snapshot) as --cluster-state and the other
// documents as --workloads.
func exampleReport(t *testing.T, example string, args []string) jsonReport {
	t.Helper()
	if len(args) == 0 || args[0] != "schedule" {
		_, rep := jsonOf(t, example, append(slices.Clone(args), "-")...)
		return rep
	}
	docs := map[string][]string{}
	for _, doc := range documentSeparator.Split(example, -1) {
		kind := topLevelKind.FindStringSubmatch(doc)
		switch {
		case kind == nil:
			continue
		case kind[1] == "List":
			docs["--cluster-state"] = append(docs["--cluster-state"], doc)
		case karpenterKinds[kind[1]]:
			docs["--pools"] = append(docs["--pools"], doc)
		default:
			docs["--workloads"] = append(docs["--workloads"], doc)
		}
	}
	cmd := append([]string{"schedule", "--format", "json"}, args[1:]...)
	dir := t.TempDir()
	for _, flag := range []string{"--pools", "--workloads", "--cluster-state"} {
		if len(docs[flag]) > 0 {
			name := filepath.Join(dir, strings.TrimPrefix(flag, "--")+".yaml")
			write(t, name, strings.Join(docs[flag], "\n---\n"))
			cmd = append(cmd, flag, name)
		}
	}
	code, out, stderr := lint(t, "", cmd...)
	var rep jsonReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: exit %d, not JSON: %v\n%s\n%s", cmd, code, err, out, stderr)
	}
	return rep
}

// A near miss's fix in YAML terms: the field under its parent, and the
// ignore annotation to keep the value as written.
func TestNearMissFixInYAML(t *testing.T) {
	for id, want := range map[string][]string{
		"requirement-value-misspelled": {"Write `values: [\"spot\", \"on-demand\"]` under spec.template.spec.requirements[0].", `lint.karpenter-tf.io/ignore annotation: "requirement-value-misspelled: <why>"`},
		"nodepool-limit-misspelled":    {"Write `memory: ...` under spec.limits.", `"nodepool-limit-misspelled: <why>"`},
		"requirement-key-misspelled":   {"Write `key: \"kubernetes.io/arch\"` under spec.template.spec.requirements[0]."},
	} {
		bad, _, _ := rules.Lookup(id).YAMLExamples()
		_, rep := jsonOf(t, bad, "-")
		var msg string
		for _, f := range rep.Findings {
			if f.Rule == id {
				msg = f.Message
			}
		}
		for _, w := range want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: %q lacks %q", id, msg, w)
			}
		}
	}
}

// names are words only a Terraform user knows: the provider's attributes
// that are not Karpenter's field names (snake_case), its resources, data
// sources and functions.
type names map[string]bool

// snakeWord is a snake_case word that is not part of a path (an SSM
// parameter's .../image_id) or of a longer name.
var snakeWord = regexp.MustCompile(`(?:^|[^A-Za-z0-9_/-])([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\b`)

// in are the provider's names that msg says; a user's own value such as
// "my_value" is none of them.
func (n names) in(msg string) []string {
	var out []string
	for _, m := range snakeWord.FindAllStringSubmatch(msg, -1) {
		if n[m[1]] {
			out = append(out, m[1])
		}
	}
	return out
}

// providerNames are the provider's names, as internal/provider's
// TestProviderNamesFile reads them from its schemas and keeps them in
// testdata/provider-names.txt (one a line); importing the provider here
// would add its own rules to the catalogue this package lists.
func providerNames(t *testing.T) names {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "provider-names.txt"))
	if err != nil {
		t.Fatal(err)
	}
	n := names{}
	for _, name := range strings.Fields(string(b)) {
		n[name] = true
	}
	for _, want := range []string{"karpenter_version", "ami_family", "startup_taints", "image_gc_high_threshold_percent", "karpenter_nodepool", "validate_manifest"} {
		if !n[want] {
			t.Fatalf("testdata/provider-names.txt lacks %s: %d read", want, len(n))
		}
	}
	return n
}

// The provider's names are found where a message says them, and a user's
// own snake_case value or an SSM parameter's path is not one of them.
func TestProviderNamesInMessage(t *testing.T) {
	n := providerNames(t)
	for msg, want := range map[string][]string{
		`ami_family "AL2" with alias`:                            {"ami_family"},
		`set kubelet.max_pods on the class`:                      {"max_pods"},
		`(e.g. 'MyValue',  or 'my_value',  or '12345')`:          nil,
		`parameter /aws/service/bottlerocket/x86_64/image_id`:    nil,
		"Put them on the NodePool (`taints` or `startupTaints`)": nil,
		"Put them on the NodePool (`startup_taints`)":            {"startup_taints"},
	} {
		if got := n.in(msg); !slices.Equal(got, want) {
			t.Errorf("%q: got %q, want %q", msg, got, want)
		}
	}
}
