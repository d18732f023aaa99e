package shell

import (
	"fmt"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Variables a script sets, followed through the parsed script without
// running it, so that an argument passed through a variable
// (T=karpenter.sh/unregistered:NoExecute; --kubelet-extra-args "...=$T") is
// read from the syntax tree and never from the raw text. What only the node
// can know (a command substitution, a variable never assigned, a value set
// in a branch that may not run) stays unknown, and the checks say so
// instead of guessing.

// shellVar is what a script has assigned to a variable at some point.
type shellVar struct {
	Value string
	// Known is false when the value comes from something only the node
	// knows, or from a branch, loop or function that may not have run.
	Known bool
	// Exported variables reach the commands the script runs (bootstrap.sh
	// reads KUBELET_EXTRA_ARGS from its environment).
	Exported bool
}

// Env maps variable names to what the script assigned.
type Env map[string]shellVar

// scopeKey is a part of the script that runs conditionally (a branch, a
// loop body, a function body, the right side of && or ||) or in a subshell
// ((...), $(...), a pipeline element, a background job).
type scopeKey struct {
	node     syntax.Node
	part     int
	subshell bool
	repeats  bool // a loop or function body: it may run again after a later assignment
}

// varEvent is one assignment (or other change) of one variable.
type varEvent struct {
	offset uint
	scopes []scopeKey
	name   string
	// set computes the new variable from the environment at that point.
	set func(env Env, old shellVar) shellVar
	// exports is true when the change exports the variable: even where it
	// may not have run, the variable may then reach commands.
	exports bool
}

// maybe is what a change that may or may not have run leaves: an unknown
// value, exported if either way it could be.
func (e varEvent) maybe(old shellVar) shellVar {
	return shellVar{Exported: old.Exported || e.exports}
}

// Vars are the variable changes of a parsed script and the scopes
// each command runs in.
type Vars struct {
	events []varEvent
	scopes map[*syntax.CallExpr][]scopeKey
}

// CollectVars walks f once, recording every variable change and the scope
// of every simple command.
func CollectVars(f *syntax.File) *Vars {
	sv := &Vars{scopes: map[*syntax.CallExpr][]scopeKey{}}
	var nodes []syntax.Node
	var scopes []scopeKey
	var pushed []bool
	syntax.Walk(f, func(n syntax.Node) bool {
		if n == nil {
			if pushed[len(pushed)-1] {
				scopes = scopes[:len(scopes)-1]
			}
			nodes, pushed = nodes[:len(nodes)-1], pushed[:len(pushed)-1]
			return true
		}
		push := false
		if st, ok := n.(*syntax.Stmt); ok && len(nodes) > 0 {
			if k, ok := stmtScope(nodes[len(nodes)-1], st); ok {
				scopes = append(scopes, k)
				push = true
			}
		}
		nodes, pushed = append(nodes, n), append(pushed, push)
		at := slices.Clone(scopes)
		switch n := n.(type) {
		case *syntax.CallExpr:
			sv.scopes[n] = at
			sv.callEvents(n, at)
		case *syntax.DeclClause:
			sv.declEvents(n, at)
		case *syntax.ForClause:
			if wi, ok := n.Loop.(*syntax.WordIter); ok && wi.Name != nil {
				sv.events = append(sv.events, varEvent{offset: wi.Name.Pos().Offset(), scopes: at, name: wi.Name.Value, set: unknownVar})
			}
		}
		return true
	})
	return sv
}

// stmtScope says whether st, a child of parent, runs conditionally or in a
// subshell relative to its parent.
func stmtScope(parent syntax.Node, st *syntax.Stmt) (scopeKey, bool) {
	if st.Background || st.Coprocess {
		return scopeKey{node: st, subshell: true}, true
	}
	switch p := parent.(type) {
	case *syntax.IfClause:
		part := 1
		if slices.Contains(p.Cond, st) {
			part = 0
		}
		return scopeKey{node: p, part: part}, true
	case *syntax.WhileClause, *syntax.ForClause:
		return scopeKey{node: p, repeats: true}, true
	case *syntax.FuncDecl:
		return scopeKey{node: p, repeats: true}, true
	case *syntax.CaseItem:
		return scopeKey{node: p}, true
	case *syntax.BinaryCmd:
		switch p.Op {
		case syntax.Pipe, syntax.PipeAll:
			part := 0
			if st == p.Y {
				part = 1
			}
			return scopeKey{node: p, part: part, subshell: true}, true
		case syntax.AndStmt, syntax.OrStmt:
			if st == p.Y {
				return scopeKey{node: p, part: 1}, true
			}
		}
	case *syntax.Subshell, *syntax.CmdSubst, *syntax.ProcSubst, *syntax.CoprocClause:
		return scopeKey{node: p, subshell: true}, true
	}
	return scopeKey{}, false
}

func unknownVar(_ Env, old shellVar) shellVar {
	return shellVar{Exported: old.Exported}
}

// callEvents records `X=v` statements and the commands that set variables
// from what only the node knows (read, mapfile, printf -v) or unset them.
func (sv *Vars) callEvents(ce *syntax.CallExpr, at []scopeKey) {
	if len(ce.Args) == 0 {
		for _, a := range ce.Assigns {
			sv.assign(a, at, false)
		}
		return
	}
	cmd := EvalWord(ce.Args[0])
	if !cmd.Static {
		return
	}
	names := func(from int, unset bool) {
		for _, w := range ce.Args[from:] {
			if a := EvalWord(w); a.Static && isShellName(a.Value) {
				set := unknownVar
				if unset {
					set = func(Env, shellVar) shellVar { return shellVar{Known: true} }
				}
				sv.events = append(sv.events, varEvent{offset: w.Pos().Offset(), scopes: at, name: a.Value, set: set})
			}
		}
	}
	switch cmd.Value {
	case "read", "mapfile", "readarray":
		names(1, false)
	case "unset":
		names(1, true)
	case "printf":
		for i := 1; i+1 < len(ce.Args); i++ {
			if a := EvalWord(ce.Args[i]); a.Static && a.Value == "-v" {
				names(i+1, false)
				break
			}
		}
	}
}

// declEvents records export/declare/local/readonly/typeset.
func (sv *Vars) declEvents(d *syntax.DeclClause, at []scopeKey) {
	variant := d.Variant.Value
	export := variant == "export"
	for _, a := range d.Args {
		if a.Name == nil && a.Value != nil {
			if f := EvalWord(a.Value); f.Static && len(f.Value) > 1 && f.Value[0] == '-' && slices.Contains([]byte(f.Value[1:]), 'x') {
				export = true
			}
		}
	}
	for _, a := range d.Args {
		if a.Name == nil {
			continue
		}
		if a.Naked {
			exp, local := export, variant == "local"
			sv.events = append(sv.events, varEvent{offset: a.Pos().Offset(), scopes: at, name: a.Name.Value, exports: exp,
				set: func(_ Env, old shellVar) shellVar {
					if local {
						old = shellVar{Known: true}
					}
					old.Exported = old.Exported || exp
					return old
				}})
			continue
		}
		sv.assign(a, at, export)
	}
}

// assign records X=v, X+=v or X=(...).
func (sv *Vars) assign(a *syntax.Assign, at []scopeKey, export bool) {
	if a.Name == nil {
		return
	}
	set := func(env Env, old shellVar) shellVar {
		v := shellVar{Exported: old.Exported || export}
		if a.Array != nil || a.Index != nil {
			return v
		}
		val, ok := ResolveLiteral(a.Value, env)
		if !ok || (a.Append && !old.Known) {
			return v
		}
		if a.Append {
			val = old.Value + val
		}
		v.Value, v.Known = val, true
		return v
	}
	sv.events = append(sv.events, varEvent{offset: a.Pos().Offset(), scopes: at, name: a.Name.Value, set: set, exports: export})
}

// EnvAt is the environment a command sees: every change before it that
// surely ran when it runs is applied; a change in a branch, loop or function
// it is not part of makes the variable unknown; a change in a subshell it is
// not part of is ignored. For a command in a function or loop body, a
// later change outside that function (or inside that loop) also makes the
// variable unknown, since the body may run after it.
func (sv *Vars) EnvAt(ce *syntax.CallExpr) Env {
	env := Env{}
	at := sv.scopes[ce]
	pos := ce.Pos().Offset()
	for _, e := range sv.events {
		extra := notIn(e.scopes, at)
		if e.offset >= pos {
			if laterChangeMatters(e, at) {
				env[e.name] = e.maybe(env[e.name])
			}
			continue
		}
		switch {
		case len(extra) == 0:
			env[e.name] = e.set(env, env[e.name])
		case slices.ContainsFunc(extra, func(k scopeKey) bool { return k.subshell }):
		default:
			env[e.name] = e.maybe(env[e.name])
		}
	}
	return env
}

func laterChangeMatters(e varEvent, at []scopeKey) bool {
	for _, k := range at {
		if !k.repeats {
			continue
		}
		_, isFunc := k.node.(*syntax.FuncDecl)
		inside := slices.Contains(e.scopes, k)
		if (isFunc && !inside) || (!isFunc && inside) {
			return !slices.ContainsFunc(notIn(e.scopes, at), func(k scopeKey) bool { return k.subshell })
		}
	}
	return false
}

func notIn(scopes, of []scopeKey) []scopeKey {
	var out []scopeKey
	for _, k := range scopes {
		if !slices.Contains(of, k) {
			out = append(out, k)
		}
	}
	return out
}

// isShellName reports whether s is a variable name (not a special
// parameter such as $1 or $@).
func isShellName(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for _, c := range []byte(s) {
		if c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// resolvable reports whether w can be expanded with env alone: no command
// or process substitution, no arithmetic, and every parameter a variable
// the script assigned a known value.
func resolvable(w *syntax.Word, env Env) bool {
	ok := true
	syntax.Walk(w, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ArithmExp, *syntax.ExtGlob:
			ok = false
		case *syntax.ParamExp:
			if n.Excl || n.Index != nil || n.NestedParam != nil || n.Param == nil || n.Width || n.IsSet ||
				!isShellName(n.Param.Value) || !env[n.Param.Value].Known {
				ok = false
			}
		}
		return ok
	})
	return ok
}

func (env Env) config() *expand.Config {
	return &expand.Config{Env: expand.FuncEnviron(func(name string) string {
		if v := env[name]; v.Known {
			return v.Value
		}
		return ""
	})}
}

// resolveFields expands w as a command argument (field splitting, brace
// expansion, quote removal; no globbing), or reports false.
func resolveFields(w *syntax.Word, env Env) (fields []string, ok bool) {
	if !resolvable(w, env) || bracesNextToParam(w) {
		return nil, false
	}
	defer noPanic(&ok)
	fields, err := expand.Fields(env.config(), w)
	return fields, err == nil
}

// bracesNextToParam reports a word that mixes an unquoted `{` or `}` with
// a parameter: bash expands braces first, on the text (`$A{1,2}` becomes
// `$A1 $A2`), which the expander, working on the parsed parts, does not.
func bracesNextToParam(w *syntax.Word) bool {
	braces, param := false, false
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			braces = braces || strings.ContainsAny(p.Value, "{}")
		case *syntax.ParamExp:
			param = true
		}
	}
	return braces && param
}

// ResolveLiteral expands w as the value of an assignment (no field
// splitting), or reports false.
func ResolveLiteral(w *syntax.Word, env Env) (_ string, ok bool) {
	if w == nil {
		return "", true
	}
	if !resolvable(w, env) {
		return "", false
	}
	for _, p := range w.Parts {
		// The expander keeps unquoted backslashes of an assignment, which
		// bash removes: leave such values unknown rather than wrong.
		if lit, ok := p.(*syntax.Lit); ok && strings.Contains(lit.Value, "\\") {
			return "", false
		}
	}
	defer noPanic(&ok)
	s, err := expand.Literal(env.config(), w)
	return s, err == nil
}

// noPanic turns a panic of the expander on an odd word into "unknown":
// Lint must not panic on any input.
func noPanic(ok *bool) {
	if recover() != nil {
		*ok = false
	}
}

// CallArg is one argument a command receives, as far as the script tells.
type CallArg struct {
	Word *syntax.Word // the source word it comes from
	// Value is the argument after expansion and quote removal, when Known.
	Value string
	Known bool
	// Literal is true when the value is written out, with no variable.
	Literal bool
	// Prefix is the leading static text of an unknown word (enough to see
	// `--opt=`).
	Prefix string
	// Spread is true for an unknown word that starts with an unquoted
	// expansion: it may become any number of arguments, options included.
	Spread bool
}

// ResolveArgs expands a command's words with env. A word that expands to
// several fields (an unquoted $ARGS) becomes several arguments, and one
// that expands to nothing disappears, as in bash.
func ResolveArgs(words []*syntax.Word, env Env) []CallArg {
	var out []CallArg
	for _, w := range words {
		sw := EvalWord(w)
		if sw.Static {
			out = append(out, CallArg{Word: w, Value: sw.Value, Known: true, Literal: true})
			continue
		}
		if fields, ok := resolveFields(w, env); ok {
			for _, f := range fields {
				out = append(out, CallArg{Word: w, Value: f, Known: true})
			}
			continue
		}
		spread := false
		if len(w.Parts) > 0 {
			switch w.Parts[0].(type) {
			case *syntax.ParamExp, *syntax.CmdSubst:
				spread = true
			}
		}
		out = append(out, CallArg{Word: w, Prefix: sw.Prefix, Spread: spread})
	}
	return out
}

// Unresolved names the first part of w that only the node knows, for a
// finding.
func Unresolved(script string, w *syntax.Word, env Env) string {
	why := ""
	syntax.Walk(w, func(n syntax.Node) bool {
		if why != "" {
			return false
		}
		switch n := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			why = fmt.Sprintf("the command substitution `%s`", Source(script, n))
		case *syntax.ArithmExp:
			why = fmt.Sprintf("the arithmetic expansion `%s`", Source(script, n))
		case *syntax.ParamExp:
			name := ""
			if n.Param != nil {
				name = n.Param.Value
			}
			switch v, assigned := env[name]; {
			case !isShellName(name) || n.Excl || n.Index != nil:
				why = fmt.Sprintf("`%s`, which only the running script knows", Source(script, n))
			case assigned && !v.Known:
				why = fmt.Sprintf("`%s`, which the script sets from a command's output or only in a branch, loop or function", Source(script, n))
			case !assigned:
				why = fmt.Sprintf("`%s`, which the script never assigns (it would come from cloud-init's environment)", Source(script, n))
			}
		}
		return why == ""
	})
	if why == "" {
		why = fmt.Sprintf("`%s`", Source(script, w))
	}
	return why
}

// Source is the text of a node as written.
func Source(script string, w syntax.Node) string {
	start, end := int(w.Pos().Offset()), int(w.End().Offset())
	if start < 0 || end > len(script) || start > end {
		return ""
	}
	return script[start:end]
}
