package main

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// JUnit XML as GitLab, Jenkins and most CI systems read it: a testsuite per
// file, a testcase per document (its object) and one per finding at or
// above the fail level (its failure); findings below it go to the
// document's system-out, documents of kinds not checked are skipped
// testcases.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string         `xml:"name,attr"`
	Classname string         `xml:"classname,attr"`
	Failures  []junitFailure `xml:"failure"`
	Skipped   *junitSkipped  `xml:"skipped"`
	SystemOut string         `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

func writeJUnit(w io.Writer, r report) error {
	// A testcase per document, then the findings on their document's
	// testcase (file and object), or on one of their own when no document
	// has that object (a malformed document).
	type fileCase struct {
		file string
		c    *junitCase
	}
	var all []fileCase
	cases := map[[2]string]*junitCase{}
	add := func(file, name, object string) *junitCase {
		c := &junitCase{Name: name, Classname: file}
		all = append(all, fileCase{file, c})
		if object != "" {
			cases[[2]string{file, object}] = c
		}
		return c
	}
	for _, d := range r.Documents {
		if d.malformed {
			continue // its finding makes its testcase
		}
		name := d.Object
		if name == "" {
			name = fmt.Sprintf("document at line %d", d.Line)
		}
		if _, dup := cases[[2]string{d.File, d.Object}]; dup && d.Object != "" {
			continue // the same object twice in a file: one testcase
		}
		c := add(d.File, name, d.Object)
		if !d.checked && !d.refused {
			c.Skipped = &junitSkipped{Message: "karpenter-lint checks EC2NodeClass and NodePool objects only"}
		}
	}
	// A failing finding is a testcase of its own, named by its object,
	// rule and path, so that the failures count the findings at or above
	// the fail level (one <failure> per testcase, as JUnit readers expect);
	// the object's own testcase then passes with what fell below the fail
	// level in its output, or is dropped when nothing did.
	failed := map[*junitCase]bool{}
	for _, f := range r.Findings {
		c := cases[[2]string{f.File, f.Object}]
		if c == nil || f.Object == "" {
			name := f.Object
			if name == "" {
				name = fmt.Sprintf("document at line %d", f.Line)
			}
			c = add(f.File, name, f.Object)
		}
		text := fmt.Sprintf("%s: %s %s", f.where(), f.Severity, f.text())
		if !r.failing(f) {
			c.SystemOut += text + "\n"
			continue
		}
		failed[c] = true
		name := strings.TrimSpace(strings.Join([]string{c.Name, f.Rule, f.Path}, " "))
		fc := &junitCase{Name: name, Classname: f.File,
			Failures: []junitFailure{{Message: fmt.Sprintf("%s %s: %s", f.where(), f.Rule, f.rule.Title), Type: f.Rule, Text: text}}}
		all = append(all, fileCase{f.File, fc})
	}
	kept := all[:0]
	for _, fc := range all {
		if !failed[fc.c] || fc.c.SystemOut != "" {
			kept = append(kept, fc)
		}
	}
	all = kept
	out := junitSuites{Name: "karpenter-lint"}
	index := map[string]int{}
	for _, fc := range all {
		i, ok := index[fc.file]
		if !ok {
			i = len(out.Suites)
			index[fc.file] = i
			out.Suites = append(out.Suites, junitSuite{Name: fc.file})
		}
		s := &out.Suites[i]
		s.Cases = append(s.Cases, *fc.c)
		s.Tests++
		out.Tests++
		if len(fc.c.Failures) > 0 {
			s.Failures++
			out.Failures++
		}
		if fc.c.Skipped != nil {
			s.Skipped++
			out.Skipped++
		}
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
