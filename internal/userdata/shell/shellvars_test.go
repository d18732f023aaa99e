package shell

import (
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// probeEnv is the environment the last `probe` command of a script sees.
func probeEnv(t *testing.T, script string) Env {
	t.Helper()
	f, err := Parse(script)
	if err != nil {
		t.Fatal(err)
	}
	var probe *syntax.CallExpr
	for _, c := range Calls(f) {
		if c.Args[0].Value == "probe" {
			probe = c.Call
		}
	}
	if probe == nil {
		t.Fatalf("no probe in %q", script)
	}
	return CollectVars(f).EnvAt(probe)
}

func TestScriptVariables(t *testing.T) {
	for name, c := range map[string]struct {
		script   string
		value    string
		known    bool
		exported bool
	}{
		"sequence":             {"A=1\nA=\"$A 2\"\nA+=' 3'\nprobe\n", "1 2 3", true, false},
		"quotes and braces":    {"B=x\nA=\"${B}-'q'\"'\"'\nprobe\n", "x-'q'\"", true, false},
		"default value":        {"B=x\nA=${B:-y}\nprobe\n", "x", true, false},
		"export":               {"export A=1\nprobe\n", "1", true, true},
		"export later":         {"A=1\nexport A\nprobe\n", "1", true, true},
		"declare -x":           {"declare -x A=1\nprobe\n", "1", true, true},
		"command prefix only":  {"A=1 true\nprobe\n", "", false, false},
		"same branch":          {"if x; then\n  A=1\n  probe\nfi\n", "1", true, false},
		"other branch":         {"if x; then A=1; else probe; fi\n", "", false, false},
		"after a branch":       {"A=0\nif x; then A=1; fi\nprobe\n", "", false, false},
		"exported in a branch": {"if x; then export A=1; fi\nprobe\n", "", false, true},
		"after a loop":         {"for i in 1 2; do A=$i; done\nprobe\n", "", false, false},
		"loop variable":        {"A=1\nfor A in 1 2; do probe; done\n", "", false, false},
		"after && ":            {"x && A=1\nprobe\n", "", false, false},
		"left of &&":           {"A=1 && x\nprobe\n", "1", true, false},
		"subshell":             {"A=1\n(A=2)\necho $(A=3) | A=4\nA=5 &\nprobe\n", "1", true, false},
		"command output":       {"A=$(hostname)\nprobe\n", "", false, false},
		"unknown variable":     {"A=$B\nprobe\n", "", false, false},
		"read":                 {"A=1\nread -r A\nprobe\n", "", false, false},
		"unset":                {"A=1\nunset A\nprobe\n", "", true, false},
		"function body":        {"A=1\nf() { A=2; }\nprobe\n", "", false, false},
		"in a function":        {"A=1\nf() { probe; }\nA=2\nf\n", "", false, false},
		"local in function":    {"A=1\nf() { local A; probe; }\n", "", true, false},
		"array":                {"A=(1 2)\nprobe\n", "", false, false},
		"backslash":            {"A=a\\ b\nprobe\n", "", false, false},
	} {
		t.Run(name, func(t *testing.T) {
			v := probeEnv(t, c.script)["A"]
			if v.Known != c.known || (c.known && v.Value != c.value) || v.Exported != c.exported {
				t.Fatalf("A = %+v, want value %q known %v exported %v", v, c.value, c.known, c.exported)
			}
		})
	}
}

func TestResolveArgs(t *testing.T) {
	f, err := Parse("A='x y'\nB=\nprobe $A \"$A\" $B \"$C\" $C --o=$A{1,2}\n")
	if err != nil {
		t.Fatal(err)
	}
	cs := Calls(f)
	probe := cs[len(cs)-1]
	args := ResolveArgs(probe.Call.Args, CollectVars(f).EnvAt(probe.Call))
	var got []string
	for _, a := range args {
		switch {
		case a.Known:
			got = append(got, a.Value)
		case a.Spread:
			got = append(got, "<spread "+a.Prefix+">")
		default:
			got = append(got, "<unknown "+a.Prefix+">")
		}
	}
	// bash expands braces before parameters ($A{1,2} is $A1 $A2): unknown.
	want := []string{"probe", "x", "y", "x y", "<unknown >", "<spread >", "<unknown --o=>"}
	if len(got) != len(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
}
