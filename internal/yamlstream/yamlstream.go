// Package yamlstream cuts a multi-document YAML stream (kubectl's input,
// helm template's output) into its documents and keeps the line each one
// starts on, which k8s.io/apimachinery's YAMLReader does not tell: the
// linter and the scheduling decision report findings at a line.
package yamlstream

import (
	"regexp"
	"strconv"
	"strings"
)

// Document is one document of a stream.
type Document struct {
	// Line is the 1-based line of the stream the document starts on (the
	// line after its separator).
	Line int
	Text string
}

// Split cuts a stream at its separators: a line that starts with "---"
// followed by nothing but blanks or a comment, as apimachinery's
// YAMLReader (pkg/util/yaml) splits. Every document is returned, blank
// ones included (a stream that starts with "---" has an empty first one):
// callers that track lines across documents need them; Blank tells them.
func Split(stream string) []Document {
	var docs []Document
	var cur strings.Builder
	start := 1
	for i, l := range strings.SplitAfter(stream, "\n") {
		if IsSeparator(l) {
			docs = append(docs, Document{Line: start, Text: cur.String()})
			cur.Reset()
			start = i + 2
			continue
		}
		cur.WriteString(l)
	}
	return append(docs, Document{Line: start, Text: cur.String()})
}

// IsSeparator reports whether a line (its line break included or not)
// separates two documents.
func IsSeparator(line string) bool {
	rest, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "---")
	if !ok {
		return false
	}
	rest = strings.TrimSpace(rest)
	return rest == "" || strings.HasPrefix(rest, "#")
}

// Blank reports whether a document holds nothing but blanks, comments and
// a document end marker ("...").
func Blank(text string) bool {
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "#") && l != "..." {
			return false
		}
	}
	return true
}

// LineCount is the number of lines of text, a last line without a line
// break included.
func LineCount(text string) int {
	n := strings.Count(text, "\n")
	if text != "" && !strings.HasSuffix(text, "\n") {
		n++
	}
	return n
}

var lineRE = regexp.MustCompile(`line (\d+)`)

// ErrorLine is the first "line N" a YAML parser's message names, counted
// in the document it parsed; ok is false when it names none.
func ErrorLine(msg string) (n int, ok bool) {
	m := lineRE.FindStringSubmatch(msg)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}

// ShiftLines adds offset to every "line N" of a parser's message, so that
// lines counted in a document read as lines of the stream (offset: the
// document's Line - 1).
func ShiftLines(msg string, offset int) string {
	return lineRE.ReplaceAllStringFunc(msg, func(m string) string {
		n, err := strconv.Atoi(strings.TrimPrefix(m, "line "))
		if err != nil {
			return m
		}
		return "line " + strconv.Itoa(n+offset)
	})
}
