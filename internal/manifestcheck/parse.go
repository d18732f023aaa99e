package manifestcheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/yamlstream"
)

// document is one document of the input stream.
type document struct {
	// index counts the non-empty documents, from 0.
	index int
	// line is the 1-based line of the input the document starts on.
	line int
	text string
	// source is the file a `# Source: <path>` comment names (what helm
	// template writes above every document), "" without one; sourceLine
	// is the line of that file the document's first line stands for, so
	// that the input's line l is line l-line+sourceLine of source.
	source     string
	sourceLine int
}

// split cuts a stream into its documents (yamlstream.Split) and reads their
// `# Source:` comments. Documents holding nothing but blanks and comments
// are dropped (Helm output starts with "---"; a trailing separator leaves
// an empty document).
func split(input string) []document {
	var docs []document
	prevSource, prevEnd := "", 0
	for _, r := range yamlstream.Split(input) {
		d := document{line: r.Line, text: r.Text}
		c, s, ok := sourceComment(d.text)
		switch {
		case ok:
			// helm template writes every document under a comment of its
			// own: lines count from the one after it. (A template that
			// loops or branches renders other lines than it holds, so the
			// line within the rendered document is what can be told.)
			d.source, d.sourceLine = s, -c
		case prevSource != "":
			// No comment of its own: the rest of the previous file, after
			// one separator line.
			d.source, d.sourceLine = prevSource, prevEnd+2
		}
		prevSource, prevEnd = d.source, d.sourceLine+yamlstream.LineCount(d.text)-1
		if !yamlstream.Blank(d.text) {
			d.index = len(docs)
			docs = append(docs, d)
		}
	}
	return docs
}

// Sources maps the lines of a stream to the files its `# Source:`
// comments name (helm template output), as findings are located.
type Sources []document

// SourcesOf reads the `# Source:` comments of a stream.
func SourcesOf(text string) Sources { return Sources(split(text)) }

// Lookup returns the file and line that line (1-based) of the stream
// stands for; ok is false when its document is under no `# Source:`
// comment.
func (s Sources) Lookup(line int) (file string, fileLine int, ok bool) {
	for _, d := range s {
		if line >= d.line && line < d.line+max(yamlstream.LineCount(d.text), 1) {
			if d.source == "" {
				return "", 0, false
			}
			return d.source, max(line-d.line+d.sourceLine, 1), true
		}
	}
	return "", 0, false
}

var sourceRE = regexp.MustCompile(`^#\s*Source:\s*(\S.*?)\s*$`)

// sourceComment finds a `# Source: <path>` comment among the comments that
// open a document, and the 0-based line of the document it is on.
func sourceComment(text string) (line int, source string, ok bool) {
	for i, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if m := sourceRE.FindStringSubmatch(l); m != nil {
			return i, m[1], true
		}
		if l != "" && !strings.HasPrefix(l, "#") {
			break
		}
	}
	return 0, "", false
}

// shownLine is the line a reader opens for the document's n-th line (from
// 1): in its `# Source:` file when it has one (where the comment itself is
// line 0), else in the input.
func (d document) shownLine(n int) int {
	if d.source != "" {
		return d.sourceLine + n - 1
	}
	return d.line + n - 1
}

// malformed is a document that could not be decoded: the problem, with line
// numbers counted in the whole input, and the first line the parser named.
type malformed struct {
	msg  string
	line int
}

func (m *malformed) Error() string { return m.msg }

// decode parses one document into a JSON object. A problem is reported as
// a *malformed error.
func decode(d document) (obj map[string]any, raw []byte, err error) {
	j, err := yaml.YAMLToJSONStrict([]byte(d.text))
	if err != nil {
		m := &malformed{line: d.line}
		if n, ok := yamlstream.ErrorLine(err.Error()); ok && n >= 1 && n <= yamlstream.LineCount(d.text) {
			m.line = d.line + n - 1
		}
		msg := strings.Join(strings.Fields(yamlstream.ShiftLines(err.Error(), d.shownLine(1)-1)), " ")
		if strings.Contains(d.text, "{{") {
			msg = "the document holds template delimiters {{ }}: an unrendered Helm template cannot be validated, render it first (helm template); the parser says: " + msg
		}
		m.msg = msg
		return nil, nil, m
	}
	j = bytes.TrimSpace(j)
	if len(j) == 0 || j[0] != '{' {
		var v any
		_ = json.Unmarshal(j, &v)
		return nil, nil, &malformed{line: d.line, msg: fmt.Sprintf("the document starting on line %d is %s, not an object (a Kubernetes object is a mapping with apiVersion, kind, metadata and spec)", max(d.shownLine(1), 1), jsonKind(v))}
	}
	if err := json.Unmarshal(j, &obj); err != nil {
		return nil, nil, &malformed{line: d.line, msg: fmt.Sprintf("the document starting on line %d: %v", max(d.shownLine(1), 1), err)}
	}
	return obj, j, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "a list"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return "not a mapping"
}

// typeMeta splits apiVersion into group and version and reads kind; values
// that are not strings read as "".
func typeMeta(obj map[string]any) (group, version, kind string) {
	av, _ := obj["apiVersion"].(string)
	kind, _ = obj["kind"].(string)
	if i := strings.LastIndexByte(av, '/'); i >= 0 {
		return av[:i], av[i+1:], kind
	}
	return "", av, kind
}
