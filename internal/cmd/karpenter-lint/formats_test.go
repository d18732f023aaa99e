package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifestcheck"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// sarifSchema reads the SARIF 2.1.0 JSON schema that the go-sarif module
// embeds (pkg/report/v210/sarif/schema.go, a Go string of the OASIS file),
// from the module cache; the test skips where the module's source is not
// there.
func sarifSchema(t *testing.T) any {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/owenrumney/go-sarif/v3").Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		t.Skipf("the go-sarif module is not in the module cache (%v)", err)
	}
	src, err := os.ReadFile(filepath.Join(dir, "pkg/report/v210/sarif/schema.go"))
	if err != nil {
		t.Skipf("no schema in the go-sarif module: %v", err)
	}
	_, rest, ok := strings.Cut(string(src), "const schema = `")
	text, _, ok2 := strings.Cut(rest, "`")
	if !ok || !ok2 || !strings.Contains(text, `"Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"`) {
		t.Fatal("schema.go no longer holds the SARIF 2.1.0 schema as `const schema`")
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// The SARIF output validates against the SARIF 2.1.0 schema, and has what
// GitHub code scanning reads: rules with descriptions and help URIs,
// results with a relative file, line and column, levels, suppressions.
func TestSARIFValidates(t *testing.T) {
	c := jsonschema.NewCompiler()
	if err := c.AddResource("sarif-2.1.0.json", sarifSchema(t)); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("sarif-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	code, out, stderr := lint(t, "", "lint", "--format", "sarif", corpus)
	if code != exitFindings {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(doc); err != nil {
		t.Fatalf("the SARIF log does not validate: %v", err)
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name  string `json:"name"`
					Rules []struct {
						ID               string `json:"id"`
						ShortDescription struct{ Text string }
						FullDescription  struct{ Text string }
						HelpURI          string `json:"helpUri"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string `json:"level"`
				Message   struct{ Text string }
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
						Region struct {
							StartLine   int `json:"startLine"`
							StartColumn int `json:"startColumn"`
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
				Suppressions []struct {
					Kind          string `json:"kind"`
					Justification string `json:"justification"`
				} `json:"suppressions"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	rulesByID := map[string]int{}
	for i, r := range run.Tool.Driver.Rules {
		rulesByID[r.ID] = i
		if r.ShortDescription.Text == "" || r.FullDescription.Text == "" || r.HelpURI != guideURL+"#"+r.ID {
			t.Errorf("rule %s lacks descriptions or help: %+v", r.ID, r)
		}
	}
	suppressed := 0
	for _, res := range run.Results {
		if i, ok := rulesByID[res.RuleID]; !ok || i != res.RuleIndex {
			t.Errorf("result of %s points at rule %d", res.RuleID, res.RuleIndex)
		}
		loc := res.Locations[0].PhysicalLocation
		if !strings.HasPrefix(loc.ArtifactLocation.URI, "testdata/corpus/") || loc.Region.StartLine < 1 || loc.Region.StartColumn < 1 {
			t.Errorf("location %+v", loc)
		}
		if res.Level != "error" && res.Level != "warning" {
			t.Errorf("level %q", res.Level)
		}
		if len(res.Suppressions) > 0 {
			suppressed++
			if res.Suppressions[0].Kind != "inSource" || res.Suppressions[0].Justification == "" {
				t.Errorf("suppression %+v", res.Suppressions)
			}
		}
	}
	_, r := jsonOf(t, "", corpus)
	if len(run.Results) != len(r.Findings)+len(r.Suppressed) || suppressed != len(r.Suppressed) || log.Version != "2.1.0" || run.Tool.Driver.Name != "karpenter-lint" {
		t.Errorf("%d results (%d suppressed) for %d findings and %d suppressed", len(run.Results), suppressed, len(r.Findings), len(r.Suppressed))
	}
}

func TestSARIFURI(t *testing.T) {
	wd, _ := os.Getwd()
	for in, want := range map[string]string{
		"a/b c.yaml":                       "a/b%20c.yaml",
		filepath.ToSlash(wd) + "/x/y.yaml": "x/y.yaml",
		"charts/app/templates/np.yaml":     "charts/app/templates/np.yaml",
		"/elsewhere/k.yaml":                "file:///elsewhere/k.yaml",
		"k:8s.yaml":                        "./k:8s.yaml",
		"templates/100%.yaml":              "templates/100%25.yaml",
	} {
		if got := sarifURI(in); got != want {
			t.Errorf("sarifURI(%q) = %q, want %q", in, got, want)
		}
	}
}

// JUnit: a testsuite per file, a testcase per object, a failure per
// finding at or above the fail level, skipped testcases for the kinds not
// checked.
func TestJUnitParses(t *testing.T) {
	code, out, _ := lint(t, "", "lint", "--format", "junit", corpus)
	var suites junitSuites
	if err := xml.Unmarshal([]byte(out), &suites); err != nil || code != exitFindings {
		t.Fatalf("exit %d: %v\n%s", code, err, out)
	}
	_, r := jsonOf(t, "", corpus)
	failures, cases, skipped := 0, map[string]junitCase{}, 0
	for _, s := range suites.Suites {
		if s.Tests != len(s.Cases) {
			t.Errorf("suite %s: tests=%d for %d cases", s.Name, s.Tests, len(s.Cases))
		}
		for _, c := range s.Cases {
			cases[s.Name+" "+c.Name] = c
			failures += len(c.Failures)
			if c.Skipped != nil {
				skipped++
			}
		}
	}
	errs := 0
	for _, f := range r.Findings {
		if f.Severity == "error" {
			errs++
		}
	}
	if failures != errs || skipped != 1 || suites.Skipped != 1 {
		t.Errorf("%d failures for %d errors, %d skipped", failures, errs, skipped)
	}
	// The counts CI shows are the findings': failures="3" for 3 errors,
	// never the objects that have them.
	sum := 0
	for _, s := range suites.Suites {
		sum += s.Failures
	}
	if suites.Failures != errs || sum != errs {
		t.Errorf("failures=%d (suites %d) for %d errors", suites.Failures, sum, errs)
	}
	// The clean pool passes; the pool with a warning below the fail level
	// passes with the warning in its output.
	if c, ok := cases["testdata/corpus/31-clean-general-purpose.yaml NodePool/general-purpose"]; !ok || len(c.Failures) > 0 {
		t.Errorf("clean pool: %+v", c)
	}
	c := cases["testdata/corpus/28-ignore-without-reason.yaml NodePool/agent-taint"]
	if len(c.Failures) != 0 || !strings.Contains(c.SystemOut, "nodepool-taint-karpenter-owned") && !strings.Contains(c.SystemOut, "startupTaints") {
		t.Errorf("pool with an error and a warning: %+v", c)
	}
	c = cases["testdata/corpus/28-ignore-without-reason.yaml NodePool/agent-taint lint-ignore-reason-missing metadata.annotations[lint.karpenter-tf.io/ignore]"]
	if len(c.Failures) != 1 || c.Failures[0].Type != "lint-ignore-reason-missing" {
		t.Errorf("the error's testcase: %+v", c)
	}
	// --fail-level warning makes the warning a failure.
	_, out, _ = lint(t, "", "lint", "--format", "junit", "--fail-level", "warning", "testdata/corpus/28-ignore-without-reason.yaml")
	if strings.Count(out, "<failure ") != 2 {
		t.Errorf("fail level warning:\n%s", out)
	}
}

var githubRE = regexp.MustCompile(`^::(error|warning) file=([^,]+),line=(\d+),col=(\d+),title=([^:,]+)::(.+)$`)

// github: one workflow command per finding, file and line as the runner
// reads them, properties and message escaped.
func TestGitHubAnnotations(t *testing.T) {
	_, out, _ := lint(t, "", "lint", "--format", "github", corpus)
	_, r := jsonOf(t, "", corpus)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(r.Findings) {
		t.Fatalf("%d lines for %d findings", len(lines), len(r.Findings))
	}
	for i, l := range lines {
		m := githubRE.FindStringSubmatch(l)
		f := r.Findings[i]
		if m == nil || m[1] != f.Severity || m[2] != f.File || m[3] != strconv.Itoa(f.Line) || m[4] != strconv.Itoa(f.Column) {
			t.Errorf("line %q for %+v", l, f)
		}
	}
	for in, want := range map[string]string{"a%b\r\nc": "a%25b%0D%0Ac", "x:y,z": "x:y,z"} {
		if got := ghData(in); got != want {
			t.Errorf("ghData(%q) = %q", in, got)
		}
	}
	if got := ghProperty("rule: a, b%"); got != "rule%3A a%2C b%25" {
		t.Errorf("ghProperty: %q", got)
	}
}

// compact: one line per finding, file:line:col: severity rule: ...
func TestCompact(t *testing.T) {
	_, out, stderr := lint(t, "", "lint", "--format", "compact", "testdata/corpus/01-weight-zero.yaml")
	if !strings.HasPrefix(out, "testdata/corpus/01-weight-zero.yaml:7:3: error nodepool-weight-out-of-range: NodePool/weight-zero spec.weight: ") || strings.Count(out, "\n") != 1 {
		t.Errorf("compact:\n%s", out)
	}
	// The summary goes to stderr when no text output goes to stdout.
	if !strings.Contains(stderr, "1 error, 0 warnings") {
		t.Errorf("stderr: %s", stderr)
	}
}

// text: grouped by file, the summary names what was not checked.
func TestText(t *testing.T) {
	code, out, stderr := lint(t, "", "lint", corpus)
	for _, want := range []string{
		"testdata/corpus/19-g5g-on-al2.yaml\n  31:11  error  arm64-gpu-no-image  NodePool/gpu-arm64 spec.template.spec.requirements[0].values\n      AL2 publishes no arm64 NVIDIA image",
		"33 files, 37 documents: 32 checked (13 EC2NodeClass, 19 NodePool), 3 of a removed API version or a misspelled kind, 1 not YAML objects\n",
		"Not checked, of kinds karpenter-lint does not check (1): ConfigMap/app-settings (testdata/corpus/31-clean-general-purpose.yaml:26)\n",
		"; 1 suppressed by lint.karpenter-tf.io/ignore annotations",
		"Not made: checks that need AWS",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
	if code != exitFindings || stderr != "" {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// Several formats at once, paired with outputs by position.
func TestFormatsAndOutputs(t *testing.T) {
	dir := t.TempDir()
	sarifFile, junitFile := filepath.Join(dir, "k.sarif"), filepath.Join(dir, "k.xml")
	code, out, _ := lint(t, "", "lint", "--format", "compact", "--output", "-", "--format", "sarif", "--output", sarifFile,
		"--format", "junit", "--output", junitFile, "testdata/corpus/01-weight-zero.yaml")
	if code != exitFindings || !strings.Contains(out, "nodepool-weight-out-of-range") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	for _, f := range []string{sarifFile, junitFile} {
		if b, err := os.ReadFile(f); err != nil || !bytes.Contains(b, []byte("nodepool-weight-out-of-range")) {
			t.Errorf("%s: %v\n%s", f, err, b)
		}
	}
}

// checkFormats: whatever the input, every format writes without failing,
// JSON and SARIF are JSON, JUnit is XML, and each finding has one line in
// compact and github output.
func checkFormats(t *testing.T, text, name string) {
	t.Helper()
	res := manifestcheck.Run(context.Background(), []manifestcheck.Input{{Name: name, Text: text}}, manifestcheck.Options{Karpenter: versions.DefaultKarpenter})
	r := newReport(res, 1, options{SourceRoot: "charts"}, rules.Error)
	for format, write := range formats {
		var b bytes.Buffer
		if err := write(&b, r); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		switch format {
		case "json", "sarif":
			if !json.Valid(b.Bytes()) {
				t.Fatalf("%s is not JSON:\n%s", format, b.String())
			}
		case "junit":
			var s junitSuites
			if err := xml.Unmarshal(b.Bytes(), &s); err != nil {
				t.Fatalf("junit: %v\n%s", err, b.String())
			}
		case "compact", "github":
			if n := strings.Count(b.String(), "\n"); n != len(r.Findings) {
				t.Fatalf("%s: %d lines for %d findings:\n%s", format, n, len(r.Findings), b.String())
			}
		}
	}
}

func FuzzFormats(f *testing.F) {
	for _, name := range []string{"19-g5g-on-al2.yaml", "26-tab-indentation.yaml", "28-ignore-without-reason.yaml", "31-clean-general-purpose.yaml"} {
		b, err := os.ReadFile(filepath.Join(corpus, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b), "x.yaml")
	}
	f.Add("---\n# Source: c/templates/a,b:c%.yaml\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: \"a\\nb\"}\n", "-")
	f.Fuzz(checkFormats)
}

// Native fuzzing is slow here (coverage of the API server's packages), so
// every run also writes the formats for mutations of the corpus: lines
// dropped, duplicated and swapped, which keeps them YAML-shaped.
func TestFormatsOfMutatedCorpus(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, file := range corpusFiles(t) {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 4; i++ {
			lines := strings.Split(string(b), "\n")
			for k := 0; k < 1+r.Intn(3); k++ {
				p, q := r.Intn(len(lines)), r.Intn(len(lines))
				switch r.Intn(3) {
				case 0:
					lines = append(lines[:p], lines[p+1:]...)
				case 1:
					lines = append(lines[:p], append([]string{lines[q]}, lines[p:]...)...)
				default:
					lines[p], lines[q] = lines[q], lines[p]
				}
			}
			checkFormats(t, strings.Join(lines, "\n"), file)
		}
	}
}
