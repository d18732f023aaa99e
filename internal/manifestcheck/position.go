package manifestcheck

import (
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/yamlstream"
)

// nodes is the YAML node tree of one document, for the line and column of
// a manifest path. sigs.k8s.io/yaml (what kubectl decodes with) keeps no
// positions, so the document is parsed a second time with YAML v3, which
// does; JSON is YAML, so JSON documents get positions too.
type nodes struct {
	root *yaml.Node
	// offset is the line of the input before the document's first line,
	// last the document's last line.
	offset, last int
}

// parseNodes parses a document's text; a document YAML v3 cannot read
// gives a tree whose every path is the document's first line.
func parseNodes(d document) nodes {
	n := nodes{offset: d.line - 1, last: d.line + max(yamlstream.LineCount(d.text), 1) - 1}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(d.text), &doc); err == nil && doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		n.root = doc.Content[0]
	}
	return n
}

// position is a 1-based line and column in the input.
type position struct{ line, column int }

// locate returns the position of the node a manifest path names: the key
// of a mapping entry, the element of a list. A path that leaves the
// document (a required field that is missing, an index past the end)
// stops at the nearest ancestor that exists; the empty path is the
// document's first node.
func (n nodes) locate(path string) position {
	if n.root == nil {
		return position{line: n.offset + 1, column: 1}
	}
	at := n.root
	cur := n.root
	steps := splitPath(path)
	for i := 0; i < len(steps); i++ {
		cur = resolveAlias(cur)
		s := steps[i]
		if s.index >= 0 {
			if cur.Kind != yaml.SequenceNode || s.index >= len(cur.Content) {
				break
			}
			cur = cur.Content[s.index]
			at = cur
			continue
		}
		if cur.Kind != yaml.MappingNode {
			break
		}
		key, value, used := lookupKey(cur, steps[i:])
		if key == nil {
			break
		}
		i += used - 1
		at, cur = key, value
	}
	// YAML also breaks lines at a lone carriage return, which no editor
	// counts as a line: never past the document.
	return position{line: min(max(at.Line+n.offset, n.offset+1), n.last), column: max(at.Column, 1)}
}

func resolveAlias(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 100; i++ {
		n = n.Alias
	}
	return n
}

// lookupKey finds the entry of mapping m the first step names. The API
// server prints map keys in two ways, "spec.tags[karpenter.sh/discovery]"
// and, in OpenAPI errors, "spec.limits.cpu", so a dotted key may span
// several name steps: the longest join that is a key wins. used is the
// number of steps consumed.
func lookupKey(m *yaml.Node, steps []pathStep) (key, value *yaml.Node, used int) {
	name := ""
	for j, s := range steps {
		if s.index >= 0 || (j > 0 && s.bracket) {
			break
		}
		if j == 0 {
			name = s.name
		} else {
			name += "." + s.name
		}
		for k := 0; k+1 < len(m.Content); k += 2 {
			if m.Content[k].Value == name {
				key, value, used = m.Content[k], m.Content[k+1], j+1
			}
		}
	}
	return key, value, used
}

// pathStep is one step of a manifest path: a field or map key (index -1),
// or a list index.
type pathStep struct {
	name  string
	index int
	// bracket is set for a map key written in brackets ("[team]").
	bracket bool
}

// splitPath cuts "spec.tags[team].x[0]" into spec, tags, team, x, 0.
// Bracketed text is taken whole (keys hold dots and slashes); a bracket
// holding only digits is a list index.
func splitPath(p string) []pathStep {
	var out []pathStep
	for i := 0; i < len(p); {
		switch p[i] {
		case '.':
			i++
		case '[':
			end := strings.IndexByte(p[i:], ']')
			if end < 0 {
				end = len(p) - i
			}
			inner := p[i+1 : i+end]
			if n, err := strconv.Atoi(inner); err == nil && n >= 0 && inner != "" && inner[0] != '+' {
				out = append(out, pathStep{index: n})
			} else {
				out = append(out, pathStep{name: inner, index: -1, bracket: true})
			}
			i += end + 1
		default:
			end := strings.IndexAny(p[i:], ".[")
			if end < 0 {
				end = len(p) - i
			}
			out = append(out, pathStep{name: p[i : i+end], index: -1})
			i += end
		}
	}
	return out
}
