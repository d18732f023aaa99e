package shell

import (
	"strings"
	"unicode/utf8"
)

// A small PowerShell reader, enough to find Start-EKSBootstrap.ps1 calls
// in Windows Custom userData and the -KubeletExtraArgs they pass: comments,
// quoting (single, double, here-strings, typographic quotes), backtick
// escapes and continuations, variables and statement separators. It does
// not evaluate expressions; a value it cannot read stays unknown.

// PSPart is a piece of a PowerShell word: literal text, or a variable
// ($name, ${name}, $env:NAME) or subexpression $(...) to resolve.
type PSPart struct {
	Lit    string
	Name   string // variable name, lower case; "" for literal text
	Subexp bool   // $(...): only known at run time
}

// PSWord is one token of a statement.
type PSWord struct {
	Parts  []PSPart
	Quoted bool // a string literal: never a parameter name
	Op     bool // an operator token ("&", ".", "=")
	Line   int
}

// Text is the word with literal parts only, or false.
func (w PSWord) Text() (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		if p.Name != "" || p.Subexp {
			return "", false
		}
		b.WriteString(p.Lit)
	}
	return b.String(), true
}

// PSStatement is one statement: the words between separators.
type PSStatement struct {
	Words []PSWord
}

// Typographic quotes PowerShell accepts as quotes.
const (
	psSingleQuotes = "'\u2018\u2019\u201a\u201b"
	psDoubleQuotes = "\"\u201c\u201d\u201e"
)

type psLexer struct {
	src   string
	i     int
	line  int
	stmts []PSStatement
	cur   PSStatement
	word  *PSWord
}

// PSStatements splits a PowerShell script into statements of words.
func PSStatements(src string) []PSStatement {
	lx := &psLexer{src: src, line: 1}
	lx.run()
	lx.endStatement()
	return lx.stmts
}

func (lx *psLexer) peek(off int) rune {
	if lx.i+off >= len(lx.src) {
		return 0
	}
	r, _ := utf8.DecodeRuneInString(lx.src[lx.i+off:])
	return r
}

func (lx *psLexer) next() rune {
	r, n := utf8.DecodeRuneInString(lx.src[lx.i:])
	lx.i += n
	if r == '\n' {
		lx.line++
	}
	return r
}

func (lx *psLexer) ensureWord() *PSWord {
	if lx.word == nil {
		lx.word = &PSWord{Line: lx.line}
	}
	return lx.word
}

// startQuoted marks a word that starts with a string literal: such a word
// is never a parameter name (`-Name:'value'` is one, with the quoted value
// glued to it).
func (lx *psLexer) startQuoted() {
	if lx.word == nil {
		lx.ensureWord().Quoted = true
	}
}

func (lx *psLexer) addLit(s string) {
	w := lx.ensureWord()
	if n := len(w.Parts); n > 0 && w.Parts[n-1].Name == "" && !w.Parts[n-1].Subexp {
		w.Parts[n-1].Lit += s
		return
	}
	w.Parts = append(w.Parts, PSPart{Lit: s})
}

func (lx *psLexer) endWord() {
	if lx.word != nil {
		lx.cur.Words = append(lx.cur.Words, *lx.word)
		lx.word = nil
	}
}

func (lx *psLexer) endStatement() {
	lx.endWord()
	if len(lx.cur.Words) > 0 {
		lx.stmts = append(lx.stmts, lx.cur)
	}
	lx.cur = PSStatement{}
}

func (lx *psLexer) op(s string) {
	lx.endWord()
	lx.cur.Words = append(lx.cur.Words, PSWord{Parts: []PSPart{{Lit: s}}, Op: true, Line: lx.line})
}

func (lx *psLexer) run() {
	for lx.i < len(lx.src) {
		r := lx.peek(0)
		switch {
		case r == '\n':
			lx.next()
			lx.endStatement()
		case r == ' ' || r == '\t' || r == '\r':
			lx.next()
			lx.endWord()
		case r == '`':
			lx.next()
			if lx.peek(0) == '\r' {
				lx.next()
			}
			if lx.peek(0) == '\n' {
				lx.next() // line continuation
				lx.endWord()
				continue
			}
			if lx.i < len(lx.src) {
				lx.addLit(string(lx.next()))
			}
		case r == '#' && lx.word == nil:
			for lx.i < len(lx.src) && lx.peek(0) != '\n' {
				lx.next()
			}
		case r == '<' && lx.peek(1) == '#':
			lx.endWord()
			for lx.i < len(lx.src) && (lx.peek(0) != '#' || lx.peek(1) != '>') {
				lx.next()
			}
			lx.i = min(lx.i+2, len(lx.src))
		case strings.ContainsRune(";|{}()", r):
			lx.next()
			lx.endStatement()
		case r == '&' && lx.word == nil:
			lx.next()
			if lx.peek(0) == '&' {
				lx.next()
				lx.endStatement()
				continue
			}
			lx.op("&")
		case r == '=' && lx.word != nil && IsPSTarget(*lx.word) || r == '=' && lx.word == nil && len(lx.cur.Words) == 1:
			lx.next()
			lx.op("=")
		case r == '@' && strings.ContainsRune(psSingleQuotes+psDoubleQuotes, lx.peek(1)) && lx.hereStringStart():
			lx.hereString()
		case r == '@' && (lx.peek(1) == '(' || lx.peek(1) == '{'):
			lx.next()
			lx.next()
			lx.endStatement()
		case strings.ContainsRune(psSingleQuotes, r):
			lx.next()
			lx.startQuoted()
			lx.addLit(lx.singleQuoted())
		case strings.ContainsRune(psDoubleQuotes, r):
			lx.next()
			lx.startQuoted()
			lx.expandable(func() bool {
				return strings.ContainsRune(psDoubleQuotes, lx.peek(0)) && !strings.ContainsRune(psDoubleQuotes, lx.peek(1))
			}, true)
		case r == '$':
			lx.variable()
		default:
			lx.addLit(string(lx.next()))
		}
	}
}

// singleQuoted reads a verbatim string after its opening quote; a doubled
// quote is a literal quote.
func (lx *psLexer) singleQuoted() string {
	var b strings.Builder
	for lx.i < len(lx.src) {
		r := lx.next()
		if strings.ContainsRune(psSingleQuotes, r) {
			if strings.ContainsRune(psSingleQuotes, lx.peek(0)) {
				b.WriteRune(lx.next())
				continue
			}
			return b.String()
		}
		b.WriteRune(r)
	}
	return b.String()
}

// psEscapes are the backtick escapes of expandable strings.
var psEscapes = map[rune]string{'0': "\x00", 'a': "\a", 'b': "\b", 'e': "\x1b", 'f': "\f", 'n': "\n", 'r': "\r", 't': "\t", 'v': "\v"}

// expandable reads an expandable string after its opening quote, up to the
// position where end reports true (consumed when quote is true).
func (lx *psLexer) expandable(end func() bool, quote bool) {
	for lx.i < len(lx.src) {
		r := lx.peek(0)
		switch {
		case quote && strings.ContainsRune(psDoubleQuotes, r) && strings.ContainsRune(psDoubleQuotes, lx.peek(1)):
			lx.next()
			lx.addLit(string(lx.next()))
		case end():
			if quote {
				lx.next()
			}
			return
		case r == '`':
			lx.next()
			if lx.i >= len(lx.src) {
				return
			}
			e := lx.next()
			if s, ok := psEscapes[e]; ok {
				lx.addLit(s)
			} else {
				lx.addLit(string(e))
			}
		case r == '$':
			lx.variable()
		default:
			lx.addLit(string(lx.next()))
		}
	}
}

// hereStringStart reports whether @' or @" at the cursor opens a
// here-string (the quote ends its line).
func (lx *psLexer) hereStringStart() bool {
	rest := lx.src[lx.i+1:]
	_, n := utf8.DecodeRuneInString(rest)
	line, _, _ := strings.Cut(rest[n:], "\n")
	return strings.TrimSpace(line) == ""
}

// hereString reads @'...'@ or @"..."@: the lines between the opening line
// and a line starting with the closing quote and @.
func (lx *psLexer) hereString() {
	lx.next()
	q := lx.next()
	for lx.i < len(lx.src) && lx.peek(0) != '\n' {
		lx.next()
	}
	lx.next()
	lx.startQuoted()
	w := lx.ensureWord()
	closing := func() bool {
		return strings.ContainsRune(psSingleQuotes+psDoubleQuotes, lx.peek(0)) && lx.peek(1) == '@' &&
			(lx.i == 0 || lx.src[lx.i-1] == '\n')
	}
	if strings.ContainsRune(psSingleQuotes, q) {
		var b strings.Builder
		for lx.i < len(lx.src) && !closing() {
			b.WriteRune(lx.next())
		}
		lx.addLit(strings.TrimSuffix(strings.TrimSuffix(b.String(), "\n"), "\r"))
	} else {
		lx.expandable(closing, false)
		if n := len(w.Parts); n > 0 && w.Parts[n-1].Name == "" {
			w.Parts[n-1].Lit = strings.TrimSuffix(strings.TrimSuffix(w.Parts[n-1].Lit, "\n"), "\r")
		}
	}
	if closing() {
		lx.next()
		lx.next()
	}
}

// variable reads $name, ${name}, $scope:name or $(...) at the cursor.
func (lx *psLexer) variable() {
	lx.next()
	w := lx.ensureWord()
	switch r := lx.peek(0); {
	case r == '(':
		depth := 0
		for lx.i < len(lx.src) {
			c := lx.next()
			if c == '(' {
				depth++
			} else if c == ')' {
				if depth--; depth == 0 {
					break
				}
			}
		}
		w.Parts = append(w.Parts, PSPart{Subexp: true})
	case r == '{':
		lx.next()
		start := lx.i
		for lx.i < len(lx.src) && lx.peek(0) != '}' {
			lx.next()
		}
		name := lx.src[start:lx.i]
		lx.next()
		w.Parts = append(w.Parts, PSPart{Name: strings.ToLower(name)})
	case isPSNameRune(r) || r == '?' || r == '^':
		start := lx.i
		if r == '?' || r == '^' {
			lx.next()
		} else {
			for lx.i < len(lx.src) && (isPSNameRune(lx.peek(0)) || lx.peek(0) == ':' && isPSNameRune(lx.peek(1)) && !strings.Contains(lx.src[start:lx.i], ":")) {
				lx.next()
			}
		}
		w.Parts = append(w.Parts, PSPart{Name: strings.ToLower(lx.src[start:lx.i])})
	default:
		lx.addLit("$")
	}
}

func isPSNameRune(r rune) bool {
	return r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}

// IsPSTarget reports whether w is an assignment target: $name, optionally
// after type constraints such as [string].
func IsPSTarget(w PSWord) bool {
	n := len(w.Parts)
	if n == 0 || w.Parts[n-1].Name == "" || w.Quoted {
		return false
	}
	for _, p := range w.Parts[:n-1] {
		if p.Name != "" || p.Subexp || !strings.HasPrefix(p.Lit, "[") || !strings.HasSuffix(p.Lit, "]") {
			return false
		}
	}
	return true
}

// PSVar is what a script assigned to a PowerShell variable.
type PSVar struct {
	Value string
	Known bool
}

// ResolvePS expands a word with the variables assigned so far. shape has
// "\x00" for each part that is unknown (enough to see a path's file name).
func ResolvePS(w PSWord, vars map[string]PSVar) (value string, known bool, shape string) {
	var b, s strings.Builder
	known = true
	for _, p := range w.Parts {
		switch {
		case p.Subexp:
			known = false
			s.WriteString("\x00")
		case p.Name != "":
			v, ok := vars[p.Name]
			if !ok || !v.Known {
				known = false
				s.WriteString("\x00")
				continue
			}
			b.WriteString(v.Value)
			s.WriteString(v.Value)
		default:
			b.WriteString(p.Lit)
			s.WriteString(p.Lit)
		}
	}
	return b.String(), known, s.String()
}

// SplitWindowsArgs splits a command line as Windows programs (the kubelet
// service started by Start-EKSBootstrap.ps1) split theirs: at unquoted
// spaces and tabs; double quotes group and are removed, `\"` is a literal
// quote, backslashes are literal elsewhere; single quotes are ordinary
// characters.
func SplitWindowsArgs(s string) []string {
	var out []string
	var b strings.Builder
	inArg, quoted := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case (c == ' ' || c == '\t') && !quoted:
			if inArg {
				out = append(out, b.String())
				b.Reset()
				inArg = false
			}
		case c == '\\':
			n := 0
			for i < len(s) && s[i] == '\\' {
				n++
				i++
			}
			if i < len(s) && s[i] == '"' {
				b.WriteString(strings.Repeat("\\", n/2))
				if n%2 == 1 {
					b.WriteByte('"')
				} else {
					quoted = !quoted
				}
			} else {
				b.WriteString(strings.Repeat("\\", n))
				i--
			}
			inArg = true
		case c == '"':
			if quoted && i+1 < len(s) && s[i+1] == '"' {
				b.WriteByte('"')
				i++
			} else {
				quoted = !quoted
			}
			inArg = true
		default:
			b.WriteByte(c)
			inArg = true
		}
	}
	if inArg {
		out = append(out, b.String())
	}
	return out
}
