package manifestcheck

import (
	"context"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/migration"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules/rulestest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
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
// <path>` lines (`# want: nothing` for none), in the file or, for JSON,
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
				p := f.Path
				if p == "" {
					p = `""`
				}
				got = append(got, f.Severity.String()+" "+f.Rule.ID+" "+p)
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

// Every finding is a rule of the catalogue with a message, whatever the
// input.
func checkInvariants(t *testing.T, input string, fs []Finding) {
	t.Helper()
	multi := len(split(input)) > 1
	for _, f := range fs {
		if f.Rule == nil || rules.Lookup(f.Rule.ID) != f.Rule {
			t.Fatalf("finding of a rule outside the catalogue: %+v", f)
		}
		if f.Message == "" {
			t.Fatalf("empty message: %v", f)
		}
		if multi && !strings.HasPrefix(f.Path, "[") {
			t.Fatalf("several documents, path without index: %v", f)
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
	if n := rulestest.CheckExamples(t, Category); n != 4 {
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
	if len(fs) != 1 || fs[0].Rule != ruleMalformed || fs[0].Path != "[1]" || !strings.Contains(fs[0].Message, "line 8") {
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
// left out; one elsewhere is kept.
func TestCovered(t *testing.T) {
	own := []Finding{{Severity: rules.Error, Path: "spec.limits[cpu]"}, {Severity: rules.Warning, Path: "spec.weight"}, {Severity: rules.Error, Path: "spec.template.spec.requirements[0].operator"}}
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
		if got := covered(p, own); got != want {
			t.Errorf("covered(%q) = %v", p, got)
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
