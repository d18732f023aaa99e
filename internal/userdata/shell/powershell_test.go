package shell

import (
	"slices"
	"testing"
)

func TestPowerShellStatements(t *testing.T) {
	script := "# comment 'not a string\n" +
		"<# block\n& 'x' -KubeletExtraArgs 'hidden' #>\n" +
		"[string]$F = \"$env:ProgramFiles\\Amazon\\EKS\\Start-EKSBootstrap.ps1\"\n" +
		"$A = 'it''s'; $B = \"a`\"b\"\"c $A\"\n" +
		"& $F -EKSClusterName c `\n  -KubeletExtraArgs:\"--node-labels=$A\" 3>&1 | Out-Null\n" +
		"$H = @'\nline 'one'\n'@\n" +
		"if ($x) { Write-Host “typographic” }\n"
	var got [][]string
	vars := map[string]PSVar{}
	for _, st := range PSStatements(script) {
		var words []string
		for _, w := range st.Words {
			v, known, _ := ResolvePS(w, vars)
			if !known {
				v = "?"
			}
			words = append(words, v)
		}
		if len(st.Words) == 3 && IsPSTarget(st.Words[0]) {
			v, known, _ := ResolvePS(st.Words[2], vars)
			vars[st.Words[0].Parts[len(st.Words[0].Parts)-1].Name] = PSVar{v, known}
		}
		got = append(got, words)
	}
	want := [][]string{
		{"?", "=", "?"},
		{"?", "=", "it's"},
		{"?", "=", `a"b"c it's`},
		{"&", "?", "-EKSClusterName", "c", "-KubeletExtraArgs:--node-labels=it's", "3>&1"},
		{"Out-Null"},
		{"?", "=", "line 'one'"},
		{"if"}, {"?"}, {"Write-Host", "typographic"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %q", got)
	}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("statement %d: got %q, want %q", i, got[i], want[i])
		}
	}
}

func TestSplitWindowsArgs(t *testing.T) {
	for in, want := range map[string][]string{
		`--node-labels="a=b" --register-with-taints="k:NoExecute"`: {"--node-labels=a=b", "--register-with-taints=k:NoExecute"},
		`'--a=b'  --c`:          {"'--a=b'", "--c"},
		`"a b" c\d \"e\" \\"f"`: {"a b", `c\d`, `"e"`, `\f`},
		`"x""y"`:                {`x"y`},
		"":                      nil,
	} {
		if got := SplitWindowsArgs(in); !slices.Equal(got, want) {
			t.Errorf("%s: got %q, want %q", in, got, want)
		}
	}
}
