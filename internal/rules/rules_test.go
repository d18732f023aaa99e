package rules

import (
	"strings"
	"testing"
)

func TestPathString(t *testing.T) {
	p := Root("ami_selector_terms").Index(2).Attr("tags").Key("team")
	if got, want := p.String(), `ami_selector_terms[2].tags["team"]`; got != want {
		t.Fatalf("got %s want %s", got, want)
	}
	q := Root("kubelet").Join(Root("eviction_hard"))
	if q.String() != "kubelet.eviction_hard" {
		t.Fatalf("join: %s", q)
	}
	// Builders must not alias the parent's backing array.
	base := Root("a")
	x, y := base.Attr("x"), base.Attr("y")
	if x.String() != "a.x" || y.String() != "a.y" {
		t.Fatalf("aliasing: %s %s", x, y)
	}
}

func TestRegisterRejectsBadRules(t *testing.T) {
	mustPanic := func(name string, r Rule) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s: Register did not panic", name)
			}
		}()
		Register(r)
	}
	good := Rule{ID: "test-rule-ok", Title: "t", Category: "c", Behaviour: "b", Source: "s", Bad: "x", Good: "y"}
	Register(good)
	mustPanic("duplicate", good)
	bad := good
	bad.ID = "Not_Kebab"
	mustPanic("id", bad)
	undocumented := good
	undocumented.ID = "test-rule-undocumented"
	undocumented.Good = ""
	mustPanic("docs", undocumented)
	ackWarning := good
	ackWarning.ID, ackWarning.Severity, ackWarning.Acknowledgeable = "test-rule-ack-warning", Warning, true
	mustPanic("acknowledgeable warning", ackWarning)
}

// A near miss (an acknowledgeable error) is about a legal value: the checks
// that build on the value still run, unlike after any other error.
func TestHasBlockingErrors(t *testing.T) {
	hard := Register(Rule{ID: "test-rule-hard", Severity: Error, Title: "t", Category: "c", Behaviour: "b", Source: "s", Bad: "x", Good: "y"})
	near := Register(Rule{ID: "test-rule-near", Severity: Error, Acknowledgeable: true, Title: "t", Category: "c", Behaviour: "b", Source: "s", Bad: "x", Good: "y"})
	nearMiss := New(near, Root("limits"), "typo")
	if fs := (Findings{nearMiss}); !fs.HasErrors() || fs.HasBlockingErrors() {
		t.Errorf("a near miss is an error that blocks nothing: %v", fs)
	}
	if fs := (Findings{nearMiss, New(hard, Root("name"), "bad")}); !fs.HasBlockingErrors() {
		t.Errorf("any other error blocks: %v", fs)
	}
	if fs := (Findings{New(hard, Root("name"), "bad").AsWarning()}); fs.HasBlockingErrors() {
		t.Errorf("a warning blocks nothing: %v", fs)
	}
}

func TestPathContains(t *testing.T) {
	labels := Root("labels")
	for _, c := range []struct {
		q    Path
		want bool
	}{{labels, true}, {labels.Key("a"), true}, {Root("labels_x"), false}, {Root("limits").Key("labels"), false}, {Path{}, false}} {
		if got := labels.Contains(c.q); got != c.want {
			t.Errorf("%s contains %s = %v", labels, c.q, got)
		}
	}
	if !(Path{}).Contains(Root("x")) {
		t.Error("the root contains everything")
	}
}

func TestFindingSummaryAndSeverity(t *testing.T) {
	r := Register(Rule{ID: "test-rule-summary", Severity: Error, Title: "something is wrong", Category: "c", Behaviour: "b", Source: "s", Bad: "x", Good: "y"})
	f := New(r, Root("name"), "value %q", "x")
	if f.Summary() != "test-rule-summary: something is wrong" {
		t.Fatal(f.Summary())
	}
	fs := Findings{f, f.AsWarning()}
	if !fs.HasErrors() || len(fs.ByRule("test-rule-summary")) != 2 {
		t.Fatal("helpers")
	}
	if (Findings{f.AsWarning()}).HasErrors() {
		t.Fatal("warning counted as error")
	}
	if got := fs.Under(Root("bootstrap"))[0].Path.String(); got != "bootstrap.name" {
		t.Fatal(got)
	}
	if !strings.Contains(f.String(), `at name: value "x"`) {
		t.Fatal(f.String())
	}
}

func TestUnknowns(t *testing.T) {
	u := Unknowns{}
	u.Add(Root("kubelet").Attr("max_pods"))
	u.Add(Root("tags"))
	if !u.Is(Root("kubelet").Attr("max_pods")) || u.Is(Root("kubelet")) || u.Is(Root("kubelet").Attr("pods_per_core")) {
		t.Fatal("Is must cover the path and what contains it only")
	}
	if !u.Is(Root("tags").Key("team")) {
		t.Fatal("an element of an unknown map is unknown")
	}
	if !u.Within(Root("kubelet")) || u.Within(Root("role")) || !u.Within(Path{}) {
		t.Fatal("Within must see unknown descendants")
	}
	if (Unknowns{}).Is(Root("x")) || (Unknowns(nil)).Within(Root("x")) {
		t.Fatal("empty sets know everything")
	}
	// "kubelet_x" is not inside "kubelet".
	v := Unknowns{}
	v.Add(Root("kubelet_x"))
	if v.Within(Root("kubelet")) {
		t.Fatal("prefix must stop at a path separator")
	}
}

func TestSummaryAboutNamesTheObject(t *testing.T) {
	r := Register(Rule{ID: "test-rule-object", Severity: Warning, Title: "NodeConfig part is odd", Category: "c", Behaviour: "b", Source: "s", Bad: "x", Good: "y"})
	f := New(r, Root("name"), "detail")
	obj := Object("NodePool", `prod "gpu"`)
	got := SummaryAbout(f.Summary(), obj)
	if want := `test-rule-object: NodePool "prod \"gpu\"": NodeConfig part is odd`; got != want {
		t.Fatalf("got %s want %s", got, want)
	}
	id, o, title, ok := ParseSummary(got)
	if !ok || id != r.ID || o != obj || title != r.Title {
		t.Fatalf("ParseSummary(%q) = %q %q %q %v", got, id, o, title, ok)
	}
	// A title that starts with a capitalised word is not taken for an object.
	if id, o, title, ok := ParseSummary(f.Summary()); !ok || id != r.ID || o != "" || title != r.Title {
		t.Fatalf("ParseSummary(%q) = %q %q %q %v", f.Summary(), id, o, title, ok)
	}
	// Named once only, and summaries without a rule id are left alone.
	if again := SummaryAbout(got, Object("NodePool", "other")); again != got {
		t.Fatalf("named twice: %s", again)
	}
	if s := SummaryAbout("Value Conversion Error", obj); s != "Value Conversion Error" {
		t.Fatal(s)
	}
	if s := SummaryAbout(f.Summary(), ""); s != f.Summary() {
		t.Fatal(s)
	}
}
