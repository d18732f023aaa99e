package manifestcheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"
)

// document is one document of the input stream.
type document struct {
	// index counts the non-empty documents, from 0; it prefixes paths when
	// the input has several.
	index int
	// line is the 1-based line of the input the document starts on.
	line int
	text string
}

// split cuts a stream at its document separators: a line that starts with
// "---" followed by nothing but blanks or a comment, as
// k8s.io/apimachinery's YAMLReader does. Documents holding nothing but
// blanks and comments are dropped (Helm output starts with "---"; a
// trailing separator leaves an empty document).
func split(input string) []document {
	var docs []document
	var cur strings.Builder
	start := 1
	flush := func() {
		if !blank(cur.String()) {
			docs = append(docs, document{index: len(docs), line: start, text: cur.String()})
		}
		cur.Reset()
	}
	for i, l := range strings.SplitAfter(input, "\n") {
		if isSeparator(l) {
			flush()
			start = i + 2
			continue
		}
		cur.WriteString(l)
	}
	flush()
	return docs
}

func isSeparator(line string) bool {
	rest, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "---")
	if !ok {
		return false
	}
	rest = strings.TrimSpace(rest)
	return rest == "" || strings.HasPrefix(rest, "#")
}

// blank reports whether a document has no content but blanks, comments
// and a document end marker.
func blank(s string) bool {
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "#") && l != "..." {
			return false
		}
	}
	return true
}

var lineRE = regexp.MustCompile(`line (\d+)`)

// decode parses one document into a JSON object. A problem is reported as
// the error, with line numbers counted in the whole input.
func decode(d document) (obj map[string]any, raw []byte, err error) {
	j, err := yaml.YAMLToJSONStrict([]byte(d.text))
	if err != nil {
		msg := strings.Join(strings.Fields(absoluteLines(err.Error(), d.line-1)), " ")
		if strings.Contains(d.text, "{{") {
			msg = "the document holds template delimiters {{ }}: an unrendered Helm template cannot be validated, render it first (helm template); the parser says: " + msg
		}
		return nil, nil, fmt.Errorf("%s", msg)
	}
	j = bytes.TrimSpace(j)
	if len(j) == 0 || j[0] != '{' {
		var v any
		_ = json.Unmarshal(j, &v)
		return nil, nil, fmt.Errorf("the document starting on line %d is %s, not an object (a Kubernetes object is a mapping with apiVersion, kind, metadata and spec)", d.line, jsonKind(v))
	}
	if err := json.Unmarshal(j, &obj); err != nil {
		return nil, nil, fmt.Errorf("the document starting on line %d: %v", d.line, err)
	}
	return obj, j, nil
}

// absoluteLines rewrites the parser's "line N" (counted in the document)
// to the line of the whole input.
func absoluteLines(msg string, offset int) string {
	return lineRE.ReplaceAllStringFunc(msg, func(m string) string {
		n, err := strconv.Atoi(strings.TrimPrefix(m, "line "))
		if err != nil {
			return m
		}
		return "line " + strconv.Itoa(n+offset)
	})
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
