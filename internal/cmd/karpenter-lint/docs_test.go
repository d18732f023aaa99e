package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var flagRE = regexp.MustCompile(`--[a-z][a-z-]+`)

// The CI guide and the README name only flags the command has, and the
// guide's configuration file is one the command reads.
func TestDocsNameRealFlags(t *testing.T) {
	var o options
	var config string
	var outputs outputList
	fs := lintFlags(&o, &config, &outputs)
	known := map[string]bool{"--format": true} // rules list --format
	for _, doc := range []string{"templates/guides/linting-in-ci.md.tmpl", "README.md", "action.yml"} {
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
				if fs.Lookup(strings.TrimPrefix(f, "--")) == nil && !known[f] {
					t.Errorf("%s names %s, which karpenter-lint lint does not have: %s", doc, f, l)
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

// The guide's JSON example has the fields the json format writes.
func TestGuideJSONExample(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "templates/guides/linting-in-ci.md.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, _ := strings.Cut(string(b), "```json\n")
	block, _, _ = strings.Cut(block, "```")
	var example any
	if err := json.Unmarshal([]byte(block), &example); err != nil {
		t.Fatalf("the guide's JSON example: %v", err)
	}
	_, out, _ := lint(t, "", "lint", "--format", "json", "testdata/corpus/19-g5g-on-al2.yaml", "testdata/corpus/31-clean-general-purpose.yaml")
	var written any
	if err := json.Unmarshal([]byte(out), &written); err != nil {
		t.Fatal(err)
	}
	want, got := map[string]bool{}, map[string]bool{}
	keys("", example, want)
	keys("", written, got)
	for k := range got {
		if !want[k] {
			t.Errorf("the json format writes %s, the guide's example lacks it", k)
		}
	}
	for k := range want {
		if !got[k] {
			t.Errorf("the guide's example has %s, the json format does not write it", k)
		}
	}
}
