// Command changelog writes the unreleased section of CHANGELOG.md from the
// entry files in .changelog/, one per change, so that changes are recorded
// with the commit that makes them and the changelog is never hand-edited.
// changie and hashicorp/go-changelog, the tools made for this, are not
// served by the Go module proxy these machines use; the entry format is
// go-changelog's, so either can take over:
//
//	```release-note:feature
//	resource/karpenter_nodepool: the `metadata` block sets the object's own labels and annotations.
//	```
//
// Kinds: breaking-change, feature, enhancement, bug, note. A file may hold
// several entries. Released sections (every "## " heading after the first)
// are kept as they are.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

var kinds = []struct{ kind, heading string }{
	{"breaking-change", "BREAKING CHANGES"},
	{"note", "NOTES"},
	{"feature", "FEATURES"},
	{"enhancement", "ENHANCEMENTS"},
	{"bug", "BUG FIXES"},
}

const fence = "```release-note:"

// entries splits a file into (kind, text) pairs. An entry runs from its
// fence to the last closing fence before the next entry, so its text may
// hold a fenced code block of its own.
func entries(b string) ([][2]string, bool) {
	var out [][2]string
	parts := strings.Split(b, fence)
	if strings.TrimSpace(parts[0]) != "" {
		return nil, false
	}
	for _, p := range parts[1:] {
		kind, body, ok := strings.Cut(p, "\n")
		body = strings.TrimRight(body, " \n")
		if !ok || !strings.HasSuffix(body, "```") {
			return nil, false
		}
		out = append(out, [2]string{strings.TrimSpace(kind), strings.TrimSpace(strings.TrimSuffix(body, "```"))})
	}
	return out, len(out) > 0
}

func main() {
	dir := flag.String("entries", ".changelog", "directory of entry files")
	out := flag.String("out", "CHANGELOG.md", "changelog to update")
	version := flag.String("version", "", "the unreleased version, e.g. 0.1.0")
	check := flag.Bool("check", false, "fail if the changelog is not what the entries make, instead of writing it")
	flag.Parse()
	if err := run(*dir, *out, *version, *check); err != nil {
		fmt.Fprintln(os.Stderr, "changelog:", err)
		os.Exit(1)
	}
}

func run(dir, out, version string, check bool) error {
	if version == "" {
		return fmt.Errorf("-version is required")
	}
	section, err := unreleased(dir, version)
	if err != nil {
		return err
	}
	old, err := os.ReadFile(out)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	next := section + released(string(old))
	if check {
		if string(old) != next {
			return fmt.Errorf("%s is not what %s makes: run make changelog", out, dir)
		}
		return nil
	}
	return os.WriteFile(out, []byte(next), 0o644)
}

// unreleased renders the entries of dir as the section of version.
func unreleased(dir, version string) (string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		return "", err
	}
	byKind := map[string][]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		es, ok := entries(string(b))
		if !ok {
			return "", fmt.Errorf("%s is not a list of ```release-note:KIND ... ``` entries", f)
		}
		for _, e := range es {
			kind := e[0]
			if !slices.ContainsFunc(kinds, func(k struct{ kind, heading string }) bool { return k.kind == kind }) {
				return "", fmt.Errorf("%s: unknown kind %q", f, kind)
			}
			byKind[kind] = append(byKind[kind], e[1])
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## %s (Unreleased)\n", version)
	for _, k := range kinds {
		es := byKind[k.kind]
		if len(es) == 0 {
			continue
		}
		slices.Sort(es)
		fmt.Fprintf(&b, "\n%s:\n\n", k.heading)
		for _, e := range es {
			b.WriteString("* " + indent(e) + "\n")
		}
	}
	return b.String(), nil
}

// released returns the released sections of a changelog: everything from
// the second "## " heading on.
func released(s string) string {
	first := strings.Index(s, "## ")
	if first < 0 {
		return ""
	}
	next := strings.Index(s[first+3:], "\n## ")
	if next < 0 {
		return ""
	}
	return "\n" + s[first+3+next+1:]
}

// indent continues an entry under its bullet; blank lines stay empty.
func indent(e string) string {
	lines := strings.Split(e, "\n")
	for i := 1; i < len(lines); i++ {
		if lines[i] != "" {
			lines[i] = "  " + lines[i]
		}
	}
	return strings.Join(lines, "\n")
}
