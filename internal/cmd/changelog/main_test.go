package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestChangelogFromEntries(t *testing.T) {
	dir := t.TempDir()
	entries := filepath.Join(dir, "entries")
	if err := os.Mkdir(entries, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(entries, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.txt", "```release-note:feature\nresource/b: second\nline two\n```\n\n```release-note:breaking-change\nresource/a: blocks\n```\n")
	write("b.txt", "```release-note:feature\nresource/a: first\n\n```hcl\nx {}\n```\n```\n")
	out := filepath.Join(dir, "CHANGELOG.md")
	if err := os.WriteFile(out, []byte("## 0.2.0 (Unreleased)\n\nold text\n\n## 0.1.0 (January 1, 2026)\n\n* kept\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(entries, out, "0.2.0", false); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(out)
	want := "## 0.2.0 (Unreleased)\n\nBREAKING CHANGES:\n\n* resource/a: blocks\n\nFEATURES:\n\n* resource/a: first\n\n  ```hcl\n  x {}\n  ```\n* resource/b: second\n  line two\n\n## 0.1.0 (January 1, 2026)\n\n* kept\n"
	if string(got) != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if err := run(entries, out, "0.2.0", true); err != nil {
		t.Fatalf("check after write: %v", err)
	}
	write("c.txt", "```release-note:bug\nx\n```\n")
	if err := run(entries, out, "0.2.0", true); err == nil || !strings.Contains(err.Error(), "make changelog") {
		t.Fatalf("check with a new entry: %v", err)
	}
	write("d.txt", "```release-note:fix\nx\n```\n")
	if err := run(entries, out, "0.2.0", false); err == nil || !strings.Contains(err.Error(), `unknown kind "fix"`) {
		t.Fatalf("unknown kind: %v", err)
	}
}
