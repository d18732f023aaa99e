package yamlstream

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/yaml"
)

func TestSplit(t *testing.T) {
	stream := "# Source: chart/a.yaml\nkind: A\n--- # next\nkind: B\n----\nx: 1\n---\n\n---\nkind: C\n"
	got := Split(stream)
	want := []Document{
		{Line: 1, Text: "# Source: chart/a.yaml\nkind: A\n"},
		{Line: 4, Text: "kind: B\n----\nx: 1\n"},
		{Line: 8, Text: "\n"},
		{Line: 10, Text: "kind: C\n"},
	}
	if len(got) != len(want) {
		t.Fatalf("Split: %d documents %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("document %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if !Blank(got[2].Text) || Blank(got[1].Text) || !Blank("# c\n...\n") {
		t.Error("Blank: a document of blanks, comments and ... is blank; one with content is not")
	}
}

func TestShiftLines(t *testing.T) {
	msg := "yaml: line 3: mapping values are not allowed; line 12 too"
	if got, want := ShiftLines(msg, 9), "yaml: line 12: mapping values are not allowed; line 21 too"; got != want {
		t.Errorf("ShiftLines: %q, want %q", got, want)
	}
	if n, ok := ErrorLine(msg); !ok || n != 3 {
		t.Errorf("ErrorLine: %d %v, want 3 true", n, ok)
	}
	if _, ok := ErrorLine("no line here"); ok {
		t.Error("ErrorLine found a line in a message without one")
	}
	if LineCount("a\nb") != 2 || LineCount("a\nb\n") != 2 || LineCount("") != 0 {
		t.Error("LineCount counts a last line without a break, and nothing for empty text")
	}
}

// FuzzSplit: Split finds as many documents with content as apimachinery's
// YAMLReader, and each starts on the line it says.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{"a: 1\n---\nb: 2\n", "---\n# c\n--- #x\nk: v", "--- a\n----\n", "\r\n---\r\nx: y\r\n", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		docs := Split(s)
		var joined strings.Builder
		for i, d := range docs {
			if i > 0 {
				joined.WriteString("---\n")
			}
			joined.WriteString(d.Text)
			lines := strings.SplitAfter(s, "\n")
			if d.Text != "" && (d.Line < 1 || d.Line > len(lines) || !strings.HasPrefix(strings.Join(lines[d.Line-1:], ""), d.Text)) {
				t.Fatalf("document %d says line %d, which does not start %q", i, d.Line, d.Text)
			}
		}
		var ours []string
		for _, d := range docs {
			if content(d.Text) {
				ours = append(ours, d.Text)
			}
		}
		r := yaml.NewYAMLReader(bufio.NewReader(strings.NewReader(s)))
		var theirs []string
		for {
			b, err := r.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				// apimachinery refuses a line that starts with "---" and
				// goes on with more than a comment; Split keeps it as content.
				return
			}
			if content(string(b)) {
				theirs = append(theirs, string(b))
			}
		}
		if len(ours) != len(theirs) {
			t.Fatalf("%q: %d documents with content, YAMLReader %d", s, len(ours), len(theirs))
		}
	})
}

// content: a line other than blanks, comments, "..." and separators (the
// YAMLReader leaves a stream's first separator in its first document).
func content(text string) bool {
	for _, l := range strings.Split(text, "\n") {
		if !IsSeparator(l) && !Blank(l) {
			return true
		}
	}
	return false
}
