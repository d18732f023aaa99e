package userdata

import (
	"errors"
	"path"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// parseShell parses a bash script with mvdan.cc/sh.
func parseShell(script string) (*syntax.File, error) {
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

func evalWord(w *syntax.Word) shellWord {
	n := 0
	for n < len(w.Parts) && staticPart(w.Parts[n]) {
		n++
	}
	prefix := literal(&syntax.Word{Parts: w.Parts[:n]})
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

// literal expands a word of static parts as bash does for a command
// argument (quote removal, backslash escapes); a fresh Config each time, as
// expand mutates it. Brace expansion may make several fields; they are
// joined with spaces.
func literal(w *syntax.Word) string {
	if len(w.Parts) == 0 {
		return ""
	}
	fields, err := expand.Fields(&expand.Config{}, w)
	if err != nil {
		return ""
	}
	return strings.Join(fields, " ")
}

// shellCall is one simple command of a script.
type shellCall struct {
	Stmt *syntax.Stmt
	Call *syntax.CallExpr
	Args []shellWord
}

// calls lists the simple commands of a parsed script, in source order,
// including those nested in functions, conditionals and subshells.
func calls(f *syntax.File) []shellCall {
	var out []shellCall
	syntax.Walk(f, func(n syntax.Node) bool {
		st, ok := n.(*syntax.Stmt)
		if !ok {
			return true
		}
		if ce, ok := st.Cmd.(*syntax.CallExpr); ok && len(ce.Args) > 0 {
			c := shellCall{Stmt: st, Call: ce}
			for _, w := range ce.Args {
				c.Args = append(c.Args, evalWord(w))
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

// bootstrapIndex returns the index of the bootstrap.sh word in a call, or -1.
func (c shellCall) bootstrapIndex() int {
	for i, a := range c.Args {
		if !a.Static {
			return -1
		}
		if path.Base(a.Value) == "bootstrap.sh" {
			return i
		}
		base := path.Base(a.Value)
		if !commandWrappers[base] && !strings.HasPrefix(a.Value, "-") {
			return -1
		}
	}
	return -1
}

// splitSystemd splits a --kubelet-extra-args value the way systemd expands
// an unbraced $VAR in ExecStart: at whitespace, respecting and then removing
// quotes. It reuses the shell parser's word mode; where an unquoted shell
// operator (`<`, `>`, `|`, ...) stops it, that character is escaped and
// reported, since systemd itself treats it as an ordinary character.
func splitSystemd(s string) (fields []string, operators []string, err error) {
	for attempt := 0; attempt < 64; attempt++ {
		var words []*syntax.Word
		var perr error
		for w, e := range syntax.NewParser(syntax.Variant(syntax.LangBash)).WordsSeq(strings.NewReader(s)) {
			if e != nil {
				perr = e
				break
			}
			words = append(words, w)
		}
		var pe syntax.ParseError
		if perr == nil {
			for _, w := range words {
				sw := evalWord(w)
				if !sw.Static {
					// Expansions are passed on literally by systemd's
					// splitting of an environment value; keep the text.
					sw.Value = s[w.Pos().Offset():w.End().Offset()]
				}
				fields = append(fields, sw.Value)
			}
			return fields, operators, nil
		}
		if !errors.As(perr, &pe) {
			return nil, operators, perr
		}
		off := int(pe.Pos.Offset())
		if off >= len(s) || !strings.ContainsRune("<>|&;()", rune(s[off])) {
			return nil, operators, perr
		}
		operators = append(operators, s[off:off+1])
		s = s[:off] + "\\" + s[off:]
	}
	return nil, operators, errors.New("too many shell operators")
}
