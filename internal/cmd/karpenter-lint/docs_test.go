package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
)

var flagRE = regexp.MustCompile(`--[a-z][a-z-]+`)

// The CI guide and the README name only flags the command has, and the
// guide's configuration file is one the command reads.
func TestDocsNameRealFlags(t *testing.T) {
	var o options
	var config string
	var outputs outputList
	fs, schedule := lintFlags(&o, &config, &outputs), scheduleFlags(&o, &config, &outputs)
	known := map[string]bool{"--format": true} // rules list --format
	for _, doc := range []string{"templates/guides/linting-in-ci.md.tmpl", "templates/guides/will-my-pods-schedule.md.tmpl", "README.md", "action.yml"} {
		b, err := os.ReadFile(filepath.Join(repoRoot, doc))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			switch i := strings.LastIndex(l, "karpenter-lint "); {
			case i >= 0:
				l = l[i:] // what comes before is another command's (helm's)
			case !strings.HasPrefix(l, "| `--") && !strings.Contains(l, "args:"):
				continue
			}
			for _, f := range flagRE.FindAllString(l, -1) {
				if fs.Lookup(strings.TrimPrefix(f, "--")) == nil && schedule.Lookup(strings.TrimPrefix(f, "--")) == nil && !known[f] {
					t.Errorf("%s names %s, which karpenter-lint lint and schedule do not have: %s", doc, f, l)
				}
			}
		}
		if doc != "templates/guides/linting-in-ci.md.tmpl" {
			continue
		}
		_, block, ok := strings.Cut(string(b), "```yaml\n# .karpenter-lint.yaml\n")
		block, _, ok2 := strings.Cut(block, "```")
		if !ok || !ok2 {
			t.Fatal("the guide has no .karpenter-lint.yaml example")
		}
		file := filepath.Join(t.TempDir(), "c.yaml")
		if err := os.WriteFile(file, []byte(block), 0o600); err != nil {
			t.Fatal(err)
		}
		c, _, err := loadConfig(file)
		if err != nil {
			t.Fatalf("the guide's configuration: %v", err)
		}
		if _, _, err := check(merge(c, options{}, nil)); err != nil {
			t.Errorf("the guide's configuration: %v", err)
		}
	}
}

// keys lists the object keys of a JSON value, recursively ("summary.errors"),
// looking at the first element of lists.
func keys(prefix string, v any, out map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			out[prefix+k] = true
			keys(prefix+k+".", e, out)
		}
	case []any:
		if len(x) > 0 {
			keys(prefix, x[0], out)
		}
	}
}

// The guide's JSON examples have the fields the json format writes: lint's,
// then schedule's.
func TestGuideJSONExample(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "templates/guides/linting-in-ci.md.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(string(b), "```json\n")[1:]
	if len(blocks) != 2 {
		t.Fatalf("the guide has %d JSON examples, want lint's and schedule's", len(blocks))
	}
	_, lintOut, _ := lint(t, "", "lint", "--format", "json", "testdata/corpus/19-g5g-on-al2.yaml", "testdata/corpus/31-clean-general-purpose.yaml")
	url, _ := awsemutest.Start(t)
	awsemutest.Setenv(t, url)
	pools, workloads, _ := scheduleFiles(t)
	_, scheduleOut, _ := lint(t, "", "schedule", "--format", "json", "--pools", pools, "--workloads", workloads, "--region", "us-east-1", "--cluster", "demo")
	for i, out := range []string{lintOut, scheduleOut} {
		block, _, _ := strings.Cut(blocks[i], "```")
		var example any
		if err := json.Unmarshal([]byte(block), &example); err != nil {
			t.Fatalf("the guide's JSON example %d: %v", i+1, err)
		}
		var written any
		if err := json.Unmarshal([]byte(out), &written); err != nil {
			t.Fatal(err)
		}
		want, got := map[string]bool{}, map[string]bool{}
		keys("", example, want)
		keys("", written, got)
		for k := range got {
			if !want[k] && !strings.HasPrefix(k, "pods.default/") { // the example shows two of the workloads
				t.Errorf("the json format writes %s, the guide's example %d lacks it", k, i+1)
			}
		}
		for k := range want {
			if !got[k] {
				t.Errorf("the guide's example %d has %s, the json format does not write it", i+1, k)
			}
		}
	}
}
