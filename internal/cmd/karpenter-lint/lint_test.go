package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// lint runs the command in-process on stdin and returns its exit status
// and outputs.
func lint(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(&env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut}, args)
	return code, out.String(), errOut.String()
}

// jsonOf runs lint --format json and decodes the report.
func jsonOf(t *testing.T, stdin string, args ...string) (int, jsonReport) {
	t.Helper()
	code, out, stderr := lint(t, stdin, append([]string{"lint", "--format", "json"}, args...)...)
	var r jsonReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("exit %d, not JSON: %v\n%s\n%s", code, err, out, stderr)
	}
	return code, r
}

const corpus = "testdata/corpus"

// corpusFiles are the corpus's YAML files, sorted.
func corpusFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(corpus, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	return files
}

var wantRE = regexp.MustCompile(`# want: ([a-z0-9, -]+)$`)

// markers reads the `# want: rule[, rule]` comments of the corpus: the
// findings expected on that line, as "file:line rule".
func markers(t *testing.T, files []string) []string {
	t.Helper()
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range strings.Split(string(b), "\n") {
			if m := wantRE.FindStringSubmatch(l); m != nil {
				for _, id := range strings.Split(m[1], ",") {
					out = append(out, fmt.Sprintf("%s:%d %s", filepath.ToSlash(f), i+1, strings.TrimSpace(id)))
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

func found(r jsonReport) []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, fmt.Sprintf("%s:%d %s", f.File, f.Line, f.Rule))
	}
	sort.Strings(out)
	return out
}

// Every planted mistake of the corpus is reported at its line, and nothing
// else is: the corpus covers every rule family, with clean controls.
func TestCorpus(t *testing.T) {
	files := corpusFiles(t)
	want := markers(t, files)
	code, r := jsonOf(t, "", corpus)
	if got := found(r); !slices.Equal(got, want) {
		t.Errorf("findings differ from the # want: markers\ngot:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if code != exitFindings {
		t.Errorf("exit %d", code)
	}
	// At least 25 files with a planted mistake; the rule families.
	planted := map[string]bool{}
	families := map[string]bool{}
	for _, w := range want {
		file, id, _ := strings.Cut(w, " ")
		file, _, _ = strings.Cut(file, ":")
		planted[file] = true
		families[rules.Lookup(id).Category] = true
	}
	if len(planted) < 25 {
		t.Errorf("%d files with a planted mistake", len(planted))
	}
	for _, c := range []string{"NodePool", "EC2NodeClass", "AMI selection", "CRD", "Manifests", "userData", "NodePool requirements", "NodePool and EC2NodeClass", "Object metadata"} {
		if !families[c] {
			t.Errorf("no planted mistake of category %q", c)
		}
	}
	if r.Summary.Suppressed != 1 || len(r.Suppressed) != 1 || r.Suppressed[0].Reason == "" {
		t.Errorf("suppressed: %+v", r.Suppressed)
	}
	// The documents not checked are listed, never taken for clean.
	if len(r.Summary.NotChecked) != 1 || r.Summary.NotChecked[0].Object != "ConfigMap/app-settings" {
		t.Errorf("not checked: %+v", r.Summary.NotChecked)
	}
	if len(r.Summary.Refused) != 3 || len(r.Summary.Malformed) != 1 {
		t.Errorf("refused %+v, malformed %+v", r.Summary.Refused, r.Summary.Malformed)
	}
	// The clean controls pass on their own (with the class they use).
	for _, f := range files {
		if b, _ := os.ReadFile(f); !strings.Contains(string(b), "# want:") {
			if code, out, stderr := lint(t, "", "lint", f, filepath.Join(corpus, "00-shared-class.yaml")); code != exitOK {
				t.Errorf("%s: exit %d\n%s%s", f, code, out, stderr)
			}
		}
	}
}

// The corpus through standard input, each file under a `# Source:` comment
// as helm template writes them, gives the same findings as the directory.
func TestCorpusThroughStdin(t *testing.T) {
	var stream strings.Builder
	for _, f := range corpusFiles(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&stream, "---\n# Source: %s\n%s", filepath.ToSlash(f), b)
	}
	_, dir := jsonOf(t, "", corpus)
	code, in := jsonOf(t, stream.String(), "-")
	strip := func(fs []finding) []finding {
		out := slices.Clone(fs)
		for i := range out {
			out[i].Input = ""
		}
		return out
	}
	a, _ := json.MarshalIndent(strip(dir.Findings), "", " ")
	b, _ := json.MarshalIndent(strip(in.Findings), "", " ")
	if !bytes.Equal(a, b) || code != exitFindings {
		t.Errorf("exit %d; directory:\n%s\nstdin:\n%s", code, a, b)
	}
	for _, f := range in.Findings {
		if f.Input != stdinName {
			t.Fatalf("a finding of the stream does not name it as its input: %+v", f)
		}
	}
}

// A Helm chart rendered to a stream: findings name the chart's template
// files, under --source-root, at their line in the rendered document.
func TestHelmStream(t *testing.T) {
	rendered, err := os.ReadFile("testdata/helm/rendered.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"testdata/helm/rendered.yaml"}, {"-"}} {
		code, out, _ := lint(t, string(rendered), append([]string{"lint", "--format", "compact", "--source-root", "testdata/helm"}, args...)...)
		var got []string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			where, rest, _ := strings.Cut(l, ": ")
			got = append(got, where+" "+strings.Fields(rest)[1])
		}
		want := []string{
			"testdata/helm/karpenter-config/templates/ec2nodeclass.yaml:16:5 metadata-options-invalid:",
			"testdata/helm/karpenter-config/templates/nodepools.yaml:15:11 arm64-gpu-no-image:",
		}
		if !slices.Equal(got, want) || code != exitFindings {
			t.Errorf("%v: exit %d\n%s", args, code, out)
		}
	}
	// Line 16 of the rendered EC2NodeClass is line 16 of its template.
	tmpl, _ := os.ReadFile("testdata/helm/karpenter-config/templates/ec2nodeclass.yaml")
	if l := strings.Split(string(tmpl), "\n")[15]; !strings.Contains(l, "httpTokens: require") {
		t.Errorf("template line 16 is %q", l)
	}
}
