package lint

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata/shell"
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
	vars := map[string]shell.PSVar{}
	for _, st := range shell.PSStatements(powerShellBody(ud)) {
		if c.psAssignment(st, vars) {
			continue
		}
		words := st.Words
		if len(words) > 0 && words[0].Op {
			words = words[1:] // & or . call operator
		}
		if len(words) == 0 {
			continue
		}
		_, _, cmd := shell.ResolvePS(words[0], vars)
		direct := strings.HasSuffix(strings.ToLower(cmd), psBootstrapScript)
		line := words[0].Line
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
func (c *lintCtx) psAssignment(st shell.PSStatement, vars map[string]shell.PSVar) bool {
	w := st.Words
	if len(w) < 2 || !shell.IsPSTarget(w[0]) {
		return false
	}
	name := w[0].Parts[len(w[0].Parts)-1].Name
	if w[1].Op && w[1].Parts[0].Lit == "=" && len(w) == 3 {
		v, known, _ := shell.ResolvePS(w[2], vars)
		vars[name] = shell.PSVar{Value: v, Known: known}
		return true
	}
	if t, ok := w[1].Text(); (ok && strings.HasSuffix(t, "=")) || w[1].Op {
		vars[name] = shell.PSVar{}
		return true
	}
	return false
}

// psParam reports whether word w names a parameter that is an abbreviation
// of full (PowerShell accepts any unambiguous prefix, in any case), and the
// value glued to it with ':'.
func psParam(w shell.PSWord, full string) (inline string, hasInline, ok bool) {
	if w.Quoted || w.Op || len(w.Parts) == 0 || w.Parts[0].Name != "" || w.Parts[0].Subexp {
		return "", false, false
	}
	lit := w.Parts[0].Lit
	if !strings.HasPrefix(lit, "-") || len(lit) < 2 {
		return "", false, false
	}
	name, rest, colon := strings.Cut(lit[1:], ":")
	if name == "" || !strings.HasPrefix(strings.ToLower(full), strings.ToLower(name)) || len(w.Parts) > 1 && !colon {
		return "", false, false
	}
	return rest, colon, true
}

func psPassesKubeletArgs(words []shell.PSWord) bool {
	for _, w := range words {
		if _, _, ok := psParam(w, "KubeletExtraArgs"); ok && len(w.Parts[0].Lit) > 2 {
			return true
		}
	}
	return false
}

func mentionsBootstrapScript(words []shell.PSWord, vars map[string]shell.PSVar) bool {
	for _, w := range words {
		if _, _, shape := shell.ResolvePS(w, vars); strings.Contains(strings.ToLower(shape), psBootstrapScript) {
			return true
		}
	}
	return false
}

// psBootstrapCall is what one Start-EKSBootstrap.ps1 call registers.
func (c *lintCtx) psBootstrapCall(args []shell.PSWord, vars map[string]shell.PSVar, line int) registration {
	r := registration{powershell: true, where: "the Start-EKSBootstrap.ps1 call on line " + strconv.Itoa(line)}
	var values []shell.PSWord
	for i := 0; i < len(args); i++ {
		w := args[i]
		if t, ok := w.Text(); ok && strings.HasPrefix(t, "@") && !w.Quoted {
			r.unknown = fmt.Sprintf("it splats %s, whose -KubeletExtraArgs the linter cannot see", t)
			continue
		}
		inline, hasInline, ok := psParam(w, "KubeletExtraArgs")
		if !ok || len(w.Parts[0].Lit) <= 2 {
			continue
		}
		switch {
		case hasInline:
			v := w
			v.Parts = append([]shell.PSPart{{Lit: inline}}, w.Parts[1:]...)
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
		v, known, _ := shell.ResolvePS(values[0], vars)
		if !known {
			r.unknown = fmt.Sprintf("its -KubeletExtraArgs on line %d uses a variable or subexpression the linter cannot resolve", values[0].Line)
			break
		}
		kt := c.checkKubeletFlags(shell.SplitWindowsArgs(v), "in -KubeletExtraArgs on line "+strconv.Itoa(values[0].Line))
		r.taints, r.set, r.explained = kt.taints, kt.set, kt.exits
		r.discarded = kt.discarded
		r.unknown = ""
	}
	return r
}
