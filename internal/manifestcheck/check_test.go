package manifestcheck

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/crd"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/migration"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules/rulestest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/yamlstream"
)

func check(input string) []Finding {
	return Check(context.Background(), input, versions.DefaultKarpenter)
}

// fixtures are the manifests under testdata: good/ are translations of the
// kinds of manifests Karpenter publishes (aws/karpenter-provider-aws
// examples/v1), bad/ carry mistakes.
func fixtures(t testing.TB) []string {
	t.Helper()
	var out []string
	for _, pattern := range []string{"testdata/*/*.yaml", "testdata/*/*.json"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m...)
	}
	if len(out) < 20 {
		t.Fatalf("only %d fixtures", len(out))
	}
	return out
}

// want reads a fixture's expected findings: `# want: <severity> <rule>
// <object> <path> <line>:<column>` lines (object "-" for a document that is
// not an object; `# want: nothing` for none), in the file or, for JSON,
// which has no comments, in a .want file beside it.
func want(t *testing.T, file, text string) []string {
	t.Helper()
	if strings.HasSuffix(file, ".json") {
		b, err := os.ReadFile(strings.TrimSuffix(file, ".json") + ".want")
		if err != nil {
			t.Fatal(err)
		}
		text = string(b)
	}
	var out []string
	declared := false
	for _, l := range strings.Split(text, "\n") {
		if w, ok := strings.CutPrefix(l, "# want: "); ok {
			declared = true
			if w != "nothing" {
				out = append(out, w)
			}
		}
	}
	if !declared {
		t.Fatalf("%s declares no # want: lines", file)
	}
	sort.Strings(out)
	return out
}

func TestFixtures(t *testing.T) {
	for _, file := range fixtures(t) {
		t.Run(file, func(t *testing.T) {
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			errs := 0
			for _, f := range check(string(b)) {
				p, obj := f.Path, f.Object
				if p == "" {
					p = `""`
				}
				if obj == "" {
					obj = "-"
				}
				got = append(got, fmt.Sprintf("%s %s %s %s %d:%d", f.Severity, f.Rule.ID, obj, p, f.Line, f.Column))
				if f.Severity == rules.Error {
					errs++
				}
			}
			sort.Strings(got)
			w := want(t, file, string(b))
			if strings.Join(got, "\n") != strings.Join(w, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(w, "\n"))
			}
			good := strings.Contains(file, "/good/")
			if good && errs > 0 || !good && errs == 0 {
				t.Errorf("good=%v with %d errors", good, errs)
			}
		})
	}
}

// Every finding is a rule of the catalogue with a message, located on a
// line of the input (and of its `# Source:` file), whatever the input.
func checkInvariants(t *testing.T, input string, fs []Finding) {
	t.Helper()
	lines := yamlstream.LineCount(input)
	for _, f := range fs {
		if f.Rule == nil || rules.Lookup(f.Rule.ID) != f.Rule {
			t.Fatalf("finding of a rule outside the catalogue: %+v", f)
		}
		if f.Message == "" {
			t.Fatalf("empty message: %v", f)
		}
		if f.Line < 1 || f.Line > lines || f.Column < 1 {
			t.Fatalf("finding at %d:%d of an input of %d lines: %v", f.Line, f.Column, lines, f)
		}
		if f.Source != "" && f.SourceLine < 1 {
			t.Fatalf("finding at line %d of %s: %v", f.SourceLine, f.Source, f)
		}
	}
}

func FuzzCheck(f *testing.F) {
	for _, file := range fixtures(f) {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("")
	f.Add("---\n---\n")
	f.Add("apiVersion: karpenter.sh/v1\nkind: NodePool\n")
	f.Add(`{"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "spec": null}`)
	f.Fuzz(func(t *testing.T, input string) {
		done := make(chan []Finding, 1)
		go func() { done <- check(input) }()
		select {
		case fs := <-done:
			checkInvariants(t, input, fs)
		case <-time.After(20 * time.Second):
			// A plan must not hang on a manifest: record the input.
			t.Fatalf("Check ran for more than 20s on %q", input)
		}
	})
}

func TestFixturesKeepInvariants(t *testing.T) {
	for _, file := range fixtures(t) {
		b, _ := os.ReadFile(file)
		checkInvariants(t, string(b), check(string(b)))
	}
}

// heredoc returns the YAML of a docs example.
func heredoc(t *testing.T, hcl string) string {
	t.Helper()
	_, rest, ok := strings.Cut(hcl, "<<-EOT\n")
	body, _, ok2 := strings.Cut(rest, "  EOT\n")
	if !ok || !ok2 {
		t.Fatalf("no heredoc in\n%s", hcl)
	}
	var b strings.Builder
	for _, l := range strings.SplitAfter(body, "\n") {
		b.WriteString(strings.TrimPrefix(l, "    "))
	}
	return b.String()
}

// Each rule's failing example triggers it and its passing example is clean.
func TestRuleExamples(t *testing.T) {
	if n := rulestest.CheckExamples(t, Category); n != 7 {
		t.Fatalf("%d rules in %s", n, Category)
	}
	for _, r := range rules.All() {
		if r.Category != Category {
			continue
		}
		if fs := check(heredoc(t, r.Bad)); !hasRule(fs, r.ID) {
			t.Errorf("%s: Bad example gives %v", r.ID, fs)
		}
		if fs := check(heredoc(t, r.Good)); len(fs) > 0 {
			t.Errorf("%s: Good example gives %v", r.ID, fs)
		}
	}
}

// The migration rules that only a manifest can hold have validate_manifest
// examples: the failing one triggers the rule, the passing one is clean.
func TestMigrationRuleExamples(t *testing.T) {
	n := 0
	for _, r := range rules.All() {
		if r.Category != migration.Category || !strings.Contains(r.Bad, "validate_manifest") {
			continue
		}
		n++
		if fs := check(heredoc(t, r.Bad)); !hasRule(fs, r.ID) {
			t.Errorf("%s: Bad example gives %v", r.ID, fs)
		}
		if fs := check(heredoc(t, r.Good)); len(fs) > 0 {
			t.Errorf("%s: Good example gives %v", r.ID, fs)
		}
	}
	if n < 2 {
		t.Fatalf("only %d manifest examples among the migration rules", n)
	}
}

func hasRule(fs []Finding, id string) bool {
	for _, f := range fs {
		if f.Rule.ID == id {
			return true
		}
	}
	return false
}

func TestSplit(t *testing.T) {
	in := "# header\n---\na: 1\n--- # second\nb: 2\n---x: 3\n...\n---\n\n# only a comment\n---\n"
	docs := split(in)
	if len(docs) != 2 {
		t.Fatalf("got %d documents: %+v", len(docs), docs)
	}
	if docs[0].index != 0 || docs[0].line != 3 || docs[0].text != "a: 1\n" {
		t.Errorf("first: %+v", docs[0])
	}
	// "---x" is no separator; it stays in the second document.
	if docs[1].index != 1 || docs[1].line != 5 || !strings.Contains(docs[1].text, "---x: 3") {
		t.Errorf("second: %+v", docs[1])
	}
	if len(split("")) != 0 || len(split("\n# nothing\n")) != 0 {
		t.Error("empty input has documents")
	}
}

func TestEmptyAndForeignInputHaveNoFindings(t *testing.T) {
	for _, in := range []string{"", "---\n", "# comment", "apiVersion: v1\nkind: Secret\nmetadata: {name: x}\n", "replicaCount: 2\n"} {
		if fs := check(in); len(fs) != 0 {
			t.Errorf("%q: %v", in, fs)
		}
	}
}

func TestMalformedLineIsTheInputsLine(t *testing.T) {
	in := "apiVersion: v1\nkind: ConfigMap\n---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: x\n\tspec: {}\n"
	fs := check(in)
	if len(fs) != 1 || fs[0].Rule != ruleMalformed || fs[0].Path != "" || fs[0].Line != 8 || !strings.Contains(fs[0].Message, "line 8") {
		t.Fatalf("got %v", fs)
	}
}

func TestLiteralPathOfObjectMetadata(t *testing.T) {
	p := rules.Root("metadata").Attr("annotations").Key("karpenter.sh/nodepool-hash")
	if got := literal(p); got != "metadata.annotations[karpenter.sh/nodepool-hash]" {
		t.Fatalf("got %q", got)
	}
}

// An API server error on a field the project's rules already reported is
// left out; one elsewhere is kept. An object-level rule's error (at a
// container) is left out only when an error inside it quotes it.
func TestCovered(t *testing.T) {
	own := []Finding{{Severity: rules.Error, Path: "spec.limits[cpu]"}, {Severity: rules.Warning, Path: "spec.weight"}, {Severity: rules.Error, Path: "spec.template.spec.requirements[0].operator"}}
	quoted := []Finding{{Severity: rules.Error, Path: "spec.limits", Message: `the pool is static and sets limits on cpu; the API server rejects it ("only 'limits.nodes' is supported on static NodePools")`}}
	for _, c := range []struct {
		p, detail string
		own       []Finding
		want      bool
	}{
		{"spec", "only 'limits.nodes' is supported on static NodePools", quoted, true},
		{"spec", "'weight' is not supported on static NodePools", quoted, false},
		{"spec", "", quoted, false},
		{"spec", "only 'limits.nodes' is supported on static NodePools", []Finding{{Severity: rules.Warning, Path: "spec.limits", Message: quoted[0].Message}}, false},
	} {
		if got := covered(c.p, c.detail, c.own); got != c.want {
			t.Errorf("covered(%q, %q) = %v", c.p, c.detail, got)
		}
	}
	for p, want := range map[string]bool{
		"spec.limits.cpu":                       true,
		"spec.limits":                           true,
		"spec.weight":                           false, // a warning covers nothing
		"spec.template.spec.requirements[0]":    true,
		"spec.template.spec.requirements[1]":    false,
		"spec.template.spec":                    false, // a container: an object-level CEL rule
		"spec":                                  false,
		"spec.template.spec.requirements[0].op": false,
	} {
		if got := covered(p, "", own); got != want {
			t.Errorf("covered(%q) = %v", p, got)
		}
	}
}

// An object-level CEL error is the project's own only when one of its
// errors inside that object quotes the server's message.
func TestCoveredWhenQuoted(t *testing.T) {
	const cel = "must specify exactly one of ['role', 'instanceProfile']"
	own := []Finding{{Severity: rules.Error, Path: "spec.role", Message: `both role "a" and instanceProfile "b" are set; the API server rejects it ("` + cel + `").`}}
	for _, c := range []struct {
		e    crd.Error
		own  []Finding
		want bool
	}{
		{crd.Error{Field: "spec", Detail: cel}, own, true},
		{crd.Error{Field: "spec", Detail: "must have only one blockDeviceMappings with rootVolume"}, own, false}, // another rule of spec
		{crd.Error{Field: "spec.template", Detail: cel}, own, false},                                             // not around the finding
		{crd.Error{Field: "spec", Detail: cel}, []Finding{{Severity: rules.Warning, Path: own[0].Path, Message: own[0].Message}}, false},
		{crd.Error{Field: "spec"}, []Finding{{Severity: rules.Error, Path: "spec.role", Message: `""`}}, false},
	} {
		if got := covered(c.e.Field, c.e.Detail, c.own); got != c.want {
			t.Errorf("covered(%+v, %+v) = %v", c.e, c.own, got)
		}
	}
}

// Native fuzzing is slow here (coverage of the API server's packages makes
// every execution costly), so every run also checks a few hundred
// deterministic mutations of the fixtures: bytes replaced, dropped and
// duplicated, as the fuzzer's mutator does.
func TestMutatedFixturesKeepInvariants(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, file := range fixtures(t) {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 30; i++ {
			m := append([]byte(nil), b...)
			for k := 0; k < 1+r.Intn(4) && len(m) > 0; k++ {
				p := r.Intn(len(m))
				switch r.Intn(3) {
				case 0:
					m[p] = byte(r.Intn(128))
				case 1:
					m = append(m[:p], m[p+1:]...)
				default:
					q := r.Intn(len(m))
					chunk := append([]byte(nil), m[q:min(len(m), q+8)]...)
					m = append(m[:p], append(chunk, m[p:]...)...)
				}
			}
			checkInvariants(t, string(m), check(string(m)))
		}
	}
}

func TestSplitPath(t *testing.T) {
	for p, want := range map[string]string{
		"":                                   "",
		"spec.tags[team]":                    "spec tags [team]",
		"metadata.annotations[a.b/c]":        "metadata annotations [a.b/c]",
		"spec.template.spec.requirements[0]": "spec template spec requirements 0",
		"spec.x[1][2].y":                     "spec x 1 2 y",
		"spec.limits[-1]":                    "spec limits [-1]",
		"a[unclosed":                         "a [unclosed]",
	} {
		var got []string
		for _, s := range splitPath(p) {
			switch {
			case s.index >= 0:
				got = append(got, fmt.Sprint(s.index))
			case s.bracket:
				got = append(got, "["+s.name+"]")
			default:
				got = append(got, s.name)
			}
		}
		if strings.Join(got, " ") != want {
			t.Errorf("splitPath(%q) = %q, want %q", p, strings.Join(got, " "), want)
		}
	}
}

// A path is located at the key of its field or the element of its list;
// a field that is missing at its nearest ancestor; map keys in either of
// the API server's notations; JSON as well as YAML.
func TestLocate(t *testing.T) {
	const doc = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: x
spec:
  tags:
    karpenter.sh/discovery: demo
    team: a
  amiSelectorTerms:
    - alias: al2023@latest
    -   id: ami-1
  base: &base
    a: 1
  copy: *base
`
	n := parseNodes(document{line: 11, text: doc})
	for path, want := range map[string]string{
		"":                                  "11:1",
		"kind":                              "12:1",
		"spec.tags[team]":                   "18:5",
		"spec.tags[karpenter.sh/discovery]": "17:5",
		"spec.tags.karpenter.sh/discovery":  "17:5",
		"spec.amiSelectorTerms[0]":          "20:7",
		"spec.amiSelectorTerms[1].id":       "21:9",
		"spec.amiSelectorTerms[2].id":       "19:3",
		"spec.subnetSelectorTerms":          "15:1",
		"spec.role":                         "15:1",
		"spec.tags[team].deeper":            "18:5",
		"spec.copy.a":                       "23:5",
		"metadata.name[0]":                  "14:3",
	} {
		p := n.locate(path)
		if got := fmt.Sprintf("%d:%d", p.line, p.column); got != want {
			t.Errorf("locate(%q) = %s, want %s", path, got, want)
		}
	}
	j := parseNodes(document{line: 1, text: "{\n  \"kind\": \"NodePool\",\n  \"spec\": {\"weight\": 200}\n}\n"})
	if p := j.locate("spec.weight"); p.line != 3 || p.column != 12 {
		t.Errorf("JSON: %+v", p)
	}
	if p := parseNodes(document{line: 5, text: "a: [\n"}).locate("a"); p.line != 5 || p.column != 1 {
		t.Errorf("unparsable document: %+v", p)
	}
}

// helm template writes `# Source: <file>` above each document; lines then
// count within the rendered document, from the line after the comment; a
// document without a comment continues the file of the one before.
func TestSplitSources(t *testing.T) {
	in := "---\n# Source: chart/templates/a.yaml\nkind: A\nx: 1\n---\n# Source: chart/templates/a.yaml\nkind: B\n---\n# Source: chart/templates/c.yaml\n\nkind: C\n---\nkind: D\n"
	docs := split(in)
	if len(docs) != 4 {
		t.Fatalf("%d documents", len(docs))
	}
	// The document's first line (its comment) and the line of its kind.
	for i, want := range []struct {
		source   string
		kindLine int
	}{{"chart/templates/a.yaml", 1}, {"chart/templates/a.yaml", 1}, {"chart/templates/c.yaml", 2}, {"chart/templates/c.yaml", 4}} {
		d := docs[i]
		kind := d.line + strings.Count(strings.Split(d.text, "kind:")[0], "\n")
		if d.source != want.source || kind-d.line+d.sourceLine != want.kindLine {
			t.Errorf("document %d: %s line %d, want %s line %d", i, d.source, kind-d.line+d.sourceLine, want.source, want.kindLine)
		}
	}
	// A file that starts with a separator, concatenated after its comment.
	docs = split("---\n# Source: f.yaml\n---\nkind: E\n")
	if len(docs) != 1 || docs[0].source != "f.yaml" || docs[0].sourceLine != 2 {
		t.Errorf("got %+v", docs)
	}
	if docs := split("kind: F\n# Source: not/a/header.yaml\n"); docs[0].source != "" {
		t.Errorf("a comment after content names the source: %+v", docs)
	}
}

func TestFindingsOfAHelmStreamNameTheTemplate(t *testing.T) {
	in := "---\n# Source: karpenter-config/templates/pools.yaml\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: a\nspec:\n  weight: 0\n  template:\n    spec:\n      requirements: []\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: x}\n" +
		"---\n# Source: karpenter-config/templates/pools.yaml\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: b\nspec:\n  weight: 101\n  template:\n    spec:\n      requirements: []\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: x}\n"
	var got []string
	for _, f := range check(in) {
		file, line := f.Where()
		got = append(got, fmt.Sprintf("%s:%d %s %s %s (input line %d)", file, line, f.Object, f.Rule.ID, f.Path, f.Line))
	}
	want := []string{
		"karpenter-config/templates/pools.yaml:6 NodePool/a nodepool-weight-out-of-range spec.weight (input line 8)",
		"karpenter-config/templates/pools.yaml:6 NodePool/b nodepool-weight-out-of-range spec.weight (input line 20)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The ignore annotation silences the rules it names on its object, with a
// reason; without one, naming an unknown rule, or in spec.template.metadata
// it silences nothing and is a finding of its own.
func TestIgnoreAnnotation(t *testing.T) {
	pool := func(meta, tmeta string) string {
		return "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: p\n" + meta + "spec:\n  weight: 0\n  template:\n" + tmeta +
			"    spec:\n      requirements: []\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: x}\n"
	}
	const other = "---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: q\nspec:\n  weight: 0\n  template:\n    spec:\n      requirements: []\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: x}\n"
	summary := func(in string) string {
		var out []string
		for _, f := range Run(context.Background(), []Input{{Name: "x.yaml", Text: in}}, Options{Karpenter: versions.DefaultKarpenter}).Findings {
			s := f.Object + " " + f.Rule.ID + "@" + fmt.Sprint(f.Line)
			if f.Suppressed != "" {
				s += " suppressed: " + f.Suppressed
			}
			out = append(out, s)
		}
		return strings.Join(out, "; ")
	}
	for _, tc := range []struct{ name, in, want string }{
		{"with a reason", pool("  annotations:\n    lint.karpenter-tf.io/ignore: \"nodepool-weight-out-of-range, crd-validation: weight 0 is what we mean\"\n", "") + other,
			"NodePool/p nodepool-weight-out-of-range@8 suppressed: weight 0 is what we mean; NodePool/q nodepool-weight-out-of-range@19"},
		{"without a reason", pool("  annotations:\n    lint.karpenter-tf.io/ignore: nodepool-weight-out-of-range\n", ""),
			"NodePool/p nodepool-weight-out-of-range@8; NodePool/p lint-ignore-reason-missing@6"},
		{"with an empty reason", pool("  annotations:\n    lint.karpenter-tf.io/ignore: \"nodepool-weight-out-of-range:  \"\n", ""),
			"NodePool/p nodepool-weight-out-of-range@8; NodePool/p lint-ignore-reason-missing@6"},
		{"an unknown rule", pool("  annotations:\n    lint.karpenter-tf.io/ignore: \"nodepool-weight-out-of-rang: because\"\n", ""),
			"NodePool/p nodepool-weight-out-of-range@8; NodePool/p lint-ignore-invalid@6"},
		{"no rule", pool("  annotations:\n    lint.karpenter-tf.io/ignore: \": because\"\n", ""),
			"NodePool/p nodepool-weight-out-of-range@8; NodePool/p lint-ignore-invalid@6"},
		{"in the template", pool("", "    metadata:\n      annotations:\n        lint.karpenter-tf.io/ignore: \"nodepool-weight-out-of-range: because\"\n"),
			"NodePool/p nodepool-weight-out-of-range@6; NodePool/p lint-ignore-in-template@10"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := summary(tc.in); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
	if fs := check(pool("  annotations:\n    lint.karpenter-tf.io/ignore: \"nodepool-weight-out-of-range: weight 0 is what we mean\"\n", "")); len(fs) != 0 {
		t.Errorf("Check reports suppressed findings: %v", fs)
	}
}

// Several inputs are checked together: a pool finds its class in another
// file, preferring its own file and directory.
func TestRunCrossChecksAcrossInputs(t *testing.T) {
	class := func(name, alias string) string {
		return "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata:\n  name: " + name + "\nspec:\n  role: KarpenterNodeRole-demo\n  amiSelectorTerms:\n    - alias: " + alias +
			"\n  subnetSelectorTerms:\n    - tags: {karpenter.sh/discovery: demo}\n  securityGroupSelectorTerms:\n    - tags: {karpenter.sh/discovery: demo}\n"
	}
	const gpuPool = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: gpu\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements:\n        - key: karpenter.k8s.aws/instance-family\n          operator: In\n          values: [g5g]\n"
	rules := func(inputs ...Input) string {
		res := Run(context.Background(), inputs, Options{Karpenter: versions.DefaultKarpenter})
		var out []string
		for _, f := range res.Findings {
			out = append(out, f.Input+":"+f.Rule.ID)
		}
		return strings.Join(out, " ")
	}
	// AL2 has no arm64 GPU image; AL2023 has.
	if got := rules(Input{Name: "prod/pools.yaml", Text: gpuPool}, Input{Name: "prod/classes.yaml", Text: class("default", "al2@v20251209")}); got != "prod/pools.yaml:arm64-gpu-no-image" {
		t.Errorf("class in another file: %s", got)
	}
	if got := rules(Input{Name: "prod/pools.yaml", Text: gpuPool}, Input{Name: "prod/classes.yaml", Text: class("default", "al2023@v20251209")},
		Input{Name: "dev/classes.yaml", Text: class("default", "al2@v20251209")}); got != "" {
		t.Errorf("the class in the same directory wins: %s", got)
	}
	res := Run(context.Background(), []Input{{Name: "pools.yaml", Text: gpuPool}, {Name: "a/classes.yaml", Text: class("default", "al2@v20251209")}, {Name: "b/classes.yaml", Text: class("default", "al2@v20251209")}}, Options{Karpenter: versions.DefaultKarpenter})
	if len(res.Findings) != 0 || !strings.Contains(strings.Join(res.Skipped, "\n"), `defined in several: "default"`) {
		t.Errorf("two candidate classes: %v, skipped %q", res.Findings, res.Skipped)
	}
}

// Every document is described, so the summary can count what was not
// checked.
func TestRunDescribesDocuments(t *testing.T) {
	in := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n---\n- not an object\n---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: p\nspec:\n  template:\n    spec:\n      requirements: []\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: x}\n"
	res := Run(context.Background(), []Input{{Name: "in.yaml", Text: in}}, Options{Karpenter: versions.DefaultKarpenter})
	var got []string
	for _, d := range res.Documents {
		got = append(got, fmt.Sprintf("%s@%d checked=%v malformed=%v", d.Object(), d.Line, d.Checked, d.Malformed))
	}
	if want := "Deployment/web@1 checked=false malformed=false,@6 checked=false malformed=true,NodePool/p@8 checked=true malformed=false"; strings.Join(got, ",") != want {
		t.Errorf("got %s", strings.Join(got, ","))
	}
	if len(res.Skipped) != 2 || !strings.Contains(res.Skipped[0], "offline") || !strings.HasSuffix(res.Skipped[1], `: "x"`) {
		t.Errorf("skipped: %q", res.Skipped)
	}
}

func FuzzLocate(f *testing.F) {
	f.Add("a:\n  b: [1, {c: 2}]\n", "a.b[1].c")
	f.Add("x: &a {y: *a}\n", "x.y.y.y")
	f.Add("{\"k\": [[]]}", "k[0][0]")
	f.Add("---\n# Source: t.yaml\na: 1\n---\nb: 2\n", "b")
	f.Fuzz(func(t *testing.T, text, path string) {
		total := yamlstream.LineCount(text)
		for _, d := range split(text) {
			p := parseNodes(d).locate(path)
			if p.line < d.line || p.line > max(total, 1) || p.column < 1 {
				t.Fatalf("locate(%q) in a document at line %d of %d lines: %+v", path, d.line, total, p)
			}
		}
	})
}

// A context input (the pre-commit hook's repository) lends the class a
// staged NodePool names, so the cross-checks are made, and reports
// nothing of its own: not its other documents, not the class's findings.
func TestRunContextInputsLendClasses(t *testing.T) {
	const gpuPool = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: gpu\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements:\n        - key: karpenter.k8s.aws/instance-family\n          operator: In\n          values: [g5g]\n"
	const al2Class = "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata:\n  name: default\nspec:\n  role: KarpenterNodeRole-demo\n  amiSelectorTerms:\n    - alias: al2@v20251209\n  metadataOptions:\n    httpTokens: require\n  subnetSelectorTerms:\n    - tags: {karpenter.sh/discovery: demo}\n  securityGroupSelectorTerms:\n    - tags: {karpenter.sh/discovery: demo}\n"
	const otherPool = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: other\nspec:\n  weight: 0\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements: []\n"
	opt := Options{Karpenter: versions.DefaultKarpenter}
	alone := Run(context.Background(), []Input{{Name: "pools/gpu.yaml", Text: gpuPool}}, opt)
	if len(alone.Findings) != 0 || !slices.Equal(alone.Uncrossed, []string{"default"}) {
		t.Fatalf("without its class: %+v uncrossed %v", alone.Findings, alone.Uncrossed)
	}
	res := Run(context.Background(), []Input{{Name: "pools/gpu.yaml", Text: gpuPool},
		{Name: "classes/default.yaml", Text: al2Class + "---\n" + otherPool, Context: true}}, opt)
	var got []string
	for _, f := range res.Findings {
		got = append(got, f.Input+":"+f.Rule.ID)
	}
	if strings.Join(got, " ") != "pools/gpu.yaml:arm64-gpu-no-image" || len(res.Uncrossed) != 0 {
		t.Errorf("with the class from the context: %v uncrossed %v", got, res.Uncrossed)
	}
	if len(res.Documents) != 1 || res.Documents[0].Input != "pools/gpu.yaml" {
		t.Errorf("documents: %+v", res.Documents)
	}
}

// A static pool's limits and weight are one error each: the project's
// rule, not the CRD's object-level rule again at spec.
func TestStaticPoolErrorsOnce(t *testing.T) {
	pool := rules.NodePoolYAML("  replicas: 3\n  weight: 10\n  limits:\n    cpu: \"100\"\n",
		"      requirements:\n        - key: karpenter.sh/capacity-type\n          operator: In\n          values: [\"on-demand\"]\n")
	var got []string
	for _, f := range Check(context.Background(), pool, versions.DefaultKarpenter) {
		got = append(got, f.Rule.ID)
	}
	slices.Sort(got)
	if want := []string{"nodepool-static-limits", "nodepool-static-weight"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
