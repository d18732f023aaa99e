package shell

import (
	"fmt"
	"path"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Parse parses a bash script with mvdan.cc/sh.
func Parse(script string) (*syntax.File, error) {
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(script), "")
}

// shellWord is a word of a command after the invoking shell's quote
// removal. Static words have no expansion; for others Prefix is the
// expansion of the leading static parts (enough to see `--opt=`).
type shellWord struct {
	Node   *syntax.Word
	Value  string
	Static bool
	Prefix string
}

func EvalWord(w *syntax.Word) shellWord {
	n := 0
	for n < len(w.Parts) && staticPart(w.Parts[n]) {
		n++
	}
	prefix := Literal(&syntax.Word{Parts: w.Parts[:n]})
	sw := shellWord{Node: w, Prefix: prefix, Static: n == len(w.Parts)}
	if sw.Static {
		sw.Value = prefix
	}
	return sw
}

func staticPart(p syntax.WordPart) bool {
	switch p := p.(type) {
	case *syntax.Lit, *syntax.SglQuoted:
		return true
	case *syntax.DblQuoted:
		for _, q := range p.Parts {
			if _, ok := q.(*syntax.Lit); !ok {
				return false
			}
		}
		return true
	}
	return false
}

// Literal expands a word of static parts as bash does for a command
// argument (quote removal, backslash escapes); a fresh Config each time, as
// expand mutates it. Brace expansion may make several fields; they are
// joined with spaces.
func Literal(w *syntax.Word) string {
	if len(w.Parts) == 0 {
		return ""
	}
	fields, err := expand.Fields(&expand.Config{}, w)
	if err != nil {
		return ""
	}
	return strings.Join(fields, " ")
}

// Call is one simple command of a script.
type Call struct {
	Stmt *syntax.Stmt
	Call *syntax.CallExpr
	Args []shellWord
}

// Calls lists the simple commands of a parsed script, in source order,
// including those nested in functions, conditionals and subshells.
func Calls(f *syntax.File) []Call {
	var out []Call
	syntax.Walk(f, func(n syntax.Node) bool {
		st, ok := n.(*syntax.Stmt)
		if !ok {
			return true
		}
		if ce, ok := st.Cmd.(*syntax.CallExpr); ok && len(ce.Args) > 0 {
			c := Call{Stmt: st, Call: ce}
			for _, w := range ce.Args {
				c.Args = append(c.Args, EvalWord(w))
			}
			out = append(out, c)
		}
		return true
	})
	return out
}

// commandWrappers may precede the script in a command line ("sudo bash
// /etc/eks/bootstrap.sh ...").
var commandWrappers = map[string]bool{"sudo": true, "bash": true, "sh": true, "exec": true, "env": true, "nohup": true, "time": true, "command": true}

// BootstrapIndex returns the index of the bootstrap.sh word in a call, or -1.
func (c Call) BootstrapIndex() int {
	return BootstrapIndexIn(len(c.Args), func(i int) (string, bool) { return c.Args[i].Value, c.Args[i].Static })
}

// BootstrapIndexIn finds bootstrap.sh in a command line of n arguments,
// past wrappers, their options and env's NAME=value arguments; arg returns
// an argument and whether it is known.
func BootstrapIndexIn(n int, arg func(int) (string, bool)) int {
	wrapped := false
	for i := 0; i < n; i++ {
		v, known := arg(i)
		if !known {
			return -1
		}
		base := path.Base(v)
		switch {
		case base == "bootstrap.sh":
			return i
		case commandWrappers[base]:
			wrapped = true
		case strings.HasPrefix(v, "-"):
		case wrapped && isEnvAssignment(v):
		default:
			return -1
		}
	}
	return -1
}

// isEnvAssignment reports whether an argument of env or sudo sets a
// variable (NAME=value).
func isEnvAssignment(v string) bool {
	name, _, ok := strings.Cut(v, "=")
	return ok && isShellName(name)
}

// SplitSystemd splits a --kubelet-extra-args value the way systemd expands
// an unbraced $VAR in ExecStart (systemd.service(5), "Command lines"): at
// whitespace, respecting single and double quotes and then removing them,
// a backslash escaping the next character (inside double quotes only before
// `"`, `\`, `$` and a backtick, as in a shell). Nothing else is special to
// systemd here: no comments, braces, globs or expansions. operators lists
// the unquoted shell operator characters (`<`, `>`, `|`, ...), which a
// shell re-reading the arguments would not take literally; err is an
// unterminated quote.
func SplitSystemd(s string) (fields []string, operators []string, err error) {
	var b strings.Builder
	inWord := false
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			switch {
			case c == quote:
				quote = 0
			case c == '\\' && quote == '"' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0:
				i++
				b.WriteByte(s[i])
			default:
				b.WriteByte(c)
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inWord {
				fields = append(fields, b.String())
				b.Reset()
				inWord = false
			}
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
			inWord = true
		default:
			if strings.IndexByte("<>|&;()", c) >= 0 {
				operators = append(operators, string(c))
			}
			b.WriteByte(c)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, operators, fmt.Errorf("unterminated %c quote", quote)
	}
	if inWord {
		fields = append(fields, b.String())
	}
	return fields, operators, nil
}
