package userdata

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
	vars := map[string]psVar{}
	for _, st := range psStatements(script) {
		var words []string
		for _, w := range st.words {
			v, known, _ := resolvePS(w, vars)
			if !known {
				v = "?"
			}
			words = append(words, v)
		}
		if len(st.words) == 3 && isPSTarget(st.words[0]) {
			v, known, _ := resolvePS(st.words[2], vars)
			vars[st.words[0].parts[len(st.words[0].parts)-1].name] = psVar{v, known}
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
		if got := splitWindowsArgs(in); !slices.Equal(got, want) {
			t.Errorf("%s: got %q, want %q", in, got, want)
		}
	}
}
