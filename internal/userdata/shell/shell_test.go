package shell

import (
	"slices"
	"testing"
)

// systemd splits an environment value at whitespace and removes quotes;
// unlike bash it has no comments, braces, globs or extended globs.
func TestSplitSystemd(t *testing.T) {
	for in, want := range map[string][]string{
		`--a=x+(y --b={c,d} #e ~f --g=*`:          {"--a=x+(y", "--b={c,d}", "#e", "~f", "--g=*"},
		`--node-labels="a=b" '--x=y z' --w=\"v\"`: {"--node-labels=a=b", "--x=y z", `--w="v"`},
		`--e="m<1" --f=$HOME`:                     {"--e=m<1", "--f=$HOME"},
	} {
		got, _, err := SplitSystemd(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%s: got %q (%v), want %q", in, got, err, want)
		}
	}
	if _, ops, _ := SplitSystemd(`--a=m<1 --b="m<2"`); !slices.Equal(ops, []string{"<"}) {
		t.Errorf("unquoted operators %q", ops)
	}
	if _, _, err := SplitSystemd(`--a="x`); err == nil {
		t.Error("an unterminated quote splits")
	}
}
