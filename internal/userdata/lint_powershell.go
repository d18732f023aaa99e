package userdata

import (
	"fmt"
	"strconv"
	"strings"
)

const psBootstrapScript = "start-eksbootstrap.ps1"

// isPowerShell reports whether userData is EC2Launch PowerShell (Windows
// custom AMIs), which EC2Launch runs between <powershell> tags.
func isPowerShell(ud string) bool {
	return strings.Contains(strings.ToLower(ud), "<powershell>")
}

// powerShellBody is the script EC2Launch runs: the text between the first
// <powershell> and the next </powershell>.
func powerShellBody(ud string) string {
	l := strings.ToLower(ud)
	i := strings.Index(l, "<powershell>")
	if i < 0 {
		return ""
	}
	body := ud[i+len("<powershell>"):]
	if j := strings.Index(strings.ToLower(body), "</powershell>"); j >= 0 {
		body = body[:j]
	}
	return body
}

// lintPowerShell reads the Start-EKSBootstrap.ps1 calls of Windows Custom
// userData and records what each registers: the kubelet gets
// -KubeletExtraArgs appended to its service command line, split as
// Windows splits command lines.
func (c *lintCtx) lintPowerShell(ud string) {
	vars := map[string]psVar{}
	for _, st := range psStatements(powerShellBody(ud)) {
		if c.psAssignment(st, vars) {
			continue
		}
		words := st.words
		if len(words) > 0 && words[0].op {
			words = words[1:] // & or . call operator
		}
		if len(words) == 0 {
			continue
		}
		_, _, cmd := resolvePS(words[0], vars)
		direct := strings.HasSuffix(strings.ToLower(cmd), psBootstrapScript)
		line := words[0].line
		if !direct && !psPassesKubeletArgs(words[1:]) {
			if mentionsBootstrapScript(words[1:], vars) {
				// Invoke-Expression, Start-Process, powershell -File ...:
				// a call the reader cannot follow.
				c.regs = append(c.regs, registration{powershell: true, where: "the Start-EKSBootstrap.ps1 call on line " + strconv.Itoa(line),
					unknown: "it goes through a command the linter does not follow"})
			}
			continue
		}
		c.regs = append(c.regs, c.psBootstrapCall(words[1:], vars, line))
	}
}

// psAssignment records `$x = <one value>` (optionally typed); any other
// assignment makes the variable unknown.
func (c *lintCtx) psAssignment(st psStatement, vars map[string]psVar) bool {
	w := st.words
	if len(w) < 2 || !isPSTarget(w[0]) {
		return false
	}
	name := w[0].parts[len(w[0].parts)-1].name
	if w[1].op && w[1].parts[0].lit == "=" && len(w) == 3 {
		v, known, _ := resolvePS(w[2], vars)
		vars[name] = psVar{value: v, known: known}
		return true
	}
	if t, ok := w[1].text(); (ok && strings.HasSuffix(t, "=")) || w[1].op {
		vars[name] = psVar{}
		return true
	}
	return false
}

// psParam reports whether word w names a parameter that is an abbreviation
// of full (PowerShell accepts any unambiguous prefix, in any case), and the
// value glued to it with ':'.
func psParam(w psWord, full string) (inline string, hasInline, ok bool) {
	if w.quoted || w.op || len(w.parts) == 0 || w.parts[0].name != "" || w.parts[0].subexp {
		return "", false, false
	}
	lit := w.parts[0].lit
	if !strings.HasPrefix(lit, "-") || len(lit) < 2 {
		return "", false, false
	}
	name, rest, colon := strings.Cut(lit[1:], ":")
	if name == "" || !strings.HasPrefix(strings.ToLower(full), strings.ToLower(name)) || len(w.parts) > 1 && !colon {
		return "", false, false
	}
	return rest, colon, true
}

func psPassesKubeletArgs(words []psWord) bool {
	for _, w := range words {
		if _, _, ok := psParam(w, "KubeletExtraArgs"); ok && len(w.parts[0].lit) > 2 {
			return true
		}
	}
	return false
}

func mentionsBootstrapScript(words []psWord, vars map[string]psVar) bool {
	for _, w := range words {
		if _, _, shape := resolvePS(w, vars); strings.Contains(strings.ToLower(shape), psBootstrapScript) {
			return true
		}
	}
	return false
}

// psBootstrapCall is what one Start-EKSBootstrap.ps1 call registers.
func (c *lintCtx) psBootstrapCall(args []psWord, vars map[string]psVar, line int) registration {
	r := registration{powershell: true, where: "the Start-EKSBootstrap.ps1 call on line " + strconv.Itoa(line)}
	var values []psWord
	for i := 0; i < len(args); i++ {
		w := args[i]
		if t, ok := w.text(); ok && strings.HasPrefix(t, "@") && !w.quoted {
			r.unknown = fmt.Sprintf("it splats %s, whose -KubeletExtraArgs the linter cannot see", t)
			continue
		}
		inline, hasInline, ok := psParam(w, "KubeletExtraArgs")
		if !ok || len(w.parts[0].lit) <= 2 {
			continue
		}
		switch {
		case hasInline:
			v := w
			v.parts = append([]psPart{{lit: inline}}, w.parts[1:]...)
			values = append(values, v)
		case i+1 < len(args):
			i++
			values = append(values, args[i])
		}
	}
	switch {
	case len(values) > 1:
		r.fails = "PowerShell refuses a parameter given twice (\"Cannot bind parameter because parameter 'KubeletExtraArgs' is specified more than once\"), so Start-EKSBootstrap.ps1 does not run and the node never joins"
	case len(values) == 1:
		v, known, _ := resolvePS(values[0], vars)
		if !known {
			r.unknown = fmt.Sprintf("its -KubeletExtraArgs on line %d uses a variable or subexpression the linter cannot resolve", values[0].line)
			break
		}
		kt := c.checkKubeletFlags(splitWindowsArgs(v), "in -KubeletExtraArgs on line "+strconv.Itoa(values[0].line))
		r.taints, r.set, r.explained = kt.taints, kt.set, kt.exits
		r.discarded = kt.discarded
		r.unknown = ""
	}
	return r
}
