package userdata

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// bootstrapOptions are the options AL2 bootstrap.sh's case loop knows; each
// takes the next word as its value.
var bootstrapOptions = map[string]bool{
	"--use-max-pods": true, "--b64-cluster-ca": true, "--apiserver-endpoint": true, "--kubelet-extra-args": true,
	"--enable-docker-bridge": true, "--aws-api-retry-attempts": true, "--docker-config-json": true,
	"--containerd-config-file": true, "--pause-container-account": true, "--pause-container-version": true,
	"--dns-cluster-ip": true, "--container-runtime": true, "--ip-family": true, "--service-ipv6-cidr": true,
	"--enable-local-outpost": true, "--cluster-id": true, "--mount-bpf-fs": true, "--local-disks": true,
}

func in(where string) string {
	if where == "" {
		return ""
	}
	return " (" + where + ")"
}

// lintShell parses a shell script and checks its bootstrap.sh calls.
func (c *lintCtx) lintShell(script, where string) {
	f, err := parseShell(script)
	if err != nil {
		c.add(rules.New(ruleShellSyntax, rules.Path{},
			"The shell script%s does not parse: %v. bash stops there when cloud-init runs it, so nothing after it (including the bootstrap) runs. Fix the syntax; `bash -n script.sh` shows the same error.", in(where), err))
		return
	}
	for _, call := range calls(f) {
		c.checkContinuation(call, where)
		idx := call.bootstrapIndex()
		if idx < 0 {
			continue
		}
		line := int(call.Call.Pos().Line())
		switch c.family {
		case AL2023:
			c.add(rules.New(ruleAL2023BootstrapSh, rules.Path{},
				"Line %d%s calls %s. On AL2023 /etc/eks/bootstrap.sh only prints an error and exits 1; nodes are configured by nodeadm. Remove the call: Karpenter appends its own NodeConfig, and extra kubelet settings go into a NodeConfig document (spec.kubelet.config) in userData.",
				line, in(where), call.Args[idx].Value))
			continue
		case AL2:
			c.add(rules.New(ruleAL2BootstrapCall, rules.Path{},
				"Line %d%s calls %s itself. With amiFamily AL2 Karpenter appends its own bootstrap.sh call after the userData, so the node is bootstrapped twice and Karpenter's call rewrites the kubelet drop-ins. Remove the call (Karpenter passes spec.kubelet, labels and taints), or use amiFamily Custom and register karpenter.sh/unregistered:NoExecute yourself.",
				line, in(where), call.Args[idx].Value))
		}
		c.checkBootstrapCall(script, call, idx, where)
	}
}

// checkContinuation reports a command named after a bootstrap.sh option:
// the line before it lacks its trailing backslash.
func (c *lintCtx) checkContinuation(call shellCall, where string) {
	first := call.Args[0]
	text := first.Value
	if !first.Static {
		text = first.Prefix
	}
	opt, _, _ := strings.Cut(text, "=")
	if !bootstrapOptions[opt] {
		return
	}
	c.add(rules.New(ruleContinuation, rules.Path{},
		"Line %d%s starts with %s, so the shell runs it as a command (`%s: command not found`) and bootstrap.sh on the line before ran without it. End the previous line with a backslash (` \\`) so the option continues the bootstrap.sh call.",
		call.Call.Pos().Line(), in(where), opt, opt))
}

// checkBootstrapCall walks a bootstrap.sh argument list as bootstrap.sh's
// case loop does.
func (c *lintCtx) checkBootstrapCall(script string, call shellCall, idx int, where string) {
	args := call.Args[idx+1:]
	line := int(call.Call.Pos().Line())
	for j := 0; j < len(args); j++ {
		a := args[j]
		text := a.Value
		if !a.Static {
			text = a.Prefix
		}
		if strings.HasPrefix(text, "--") && strings.Contains(text, "=") {
			opt, val, _ := strings.Cut(text, "=")
			c.add(optionEquals(line, where, opt, val, a.Static))
			c.ignored = append(c.ignored, script[a.Node.Pos().Offset():a.Node.End().Offset()])
			continue
		}
		if !a.Static {
			continue
		}
		switch {
		case bootstrapOptions[text]:
			if j+1 < len(args) {
				j++
				if text == "--kubelet-extra-args" && args[j].Static {
					c.checkExtraArgs(args[j].Value, line, where)
				}
			}
		case strings.HasPrefix(text, "--"):
			c.add(rules.New(ruleOptionUnknown, rules.Path{},
				"Line %d%s passes %s to bootstrap.sh, which has no such option: it becomes a positional argument and has no effect. Kubelet flags belong inside --kubelet-extra-args '...'; bootstrap.sh options are %s.",
				line, in(where), text, "--apiserver-endpoint, --b64-cluster-ca, --dns-cluster-ip, --ip-family, --kubelet-extra-args, --local-disks, --use-max-pods, ..."))
		}
	}
	c.checkRedirects(call, idx, line, where)
}

func optionEquals(line int, where, opt, val string, static bool) rules.Finding {
	shown := opt + "=" + val
	if !static {
		shown = opt + "=..."
	}
	what := "bootstrap.sh ignores the option"
	if opt == "--kubelet-extra-args" {
		what = "KUBELET_EXTRA_ARGS stays empty, the 30-kubelet-extra-args.conf drop-in is never written, and the kubelet starts without these labels and taints (including karpenter.sh/unregistered)"
	}
	return rules.New(ruleOptionEquals, rules.Path{},
		"Line %d%s passes `%s` to bootstrap.sh. bootstrap.sh only matches space-separated options, so the word never matches its `case` and becomes a positional argument: silently ignored after the cluster name, taken as the cluster name when first. %s. Write `%s '<value>'` with a space instead of `=`.",
		line, in(where), shown, upperFirst(what), opt)
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// checkExtraArgs checks the value of --kubelet-extra-args as bootstrap.sh
// passes it to the kubelet through a systemd drop-in.
func (c *lintCtx) checkExtraArgs(v string, line int, where string) {
	if strings.Contains(v, "'") {
		c.add(rules.New(ruleSingleQuote, rules.Path{},
			"Line %d%s: the --kubelet-extra-args value %q contains a single quote. bootstrap.sh writes it into /etc/systemd/system/kubelet.service.d/30-kubelet-extra-args.conf as Environment='KUBELET_EXTRA_ARGS=<value>', where the quote ends the quoting and the kubelet gets different arguments. Use double quotes inside the value, e.g. --kubelet-extra-args '--node-labels=\"team=a\"', or none.",
			line, in(where), v))
		return
	}
	fields, ops, err := splitSystemd(v)
	for _, op := range ops {
		if op == "<" || op == ">" {
			c.add(redirectFinding(line, where, v))
			break
		}
	}
	if err != nil {
		return
	}
	c.checkKubeletFlags(fields, "in --kubelet-extra-args on line "+strconv.Itoa(line)+in(where))
}

func redirectFinding(line int, where, v string) rules.Finding {
	return rules.New(ruleRedirect, rules.Path{},
		"Line %d%s: %q has an unquoted `<` or `>`. A shell reads it as a redirection (`memory.available<500Mi` opens the file 500Mi), so the call fails or the value is cut wherever the arguments pass through a shell. Quote the value as Karpenter does, e.g. --eviction-hard=\"memory.available<500Mi\".",
		line, in(where), v)
}

// checkRedirects reports `<`/`>` redirections glued to a bootstrap.sh
// argument (`--eviction-hard=memory.available<500Mi` outside quotes).
func (c *lintCtx) checkRedirects(call shellCall, idx, line int, where string) {
	for _, r := range call.Stmt.Redirs {
		switch r.Op {
		case syntax.RdrIn, syntax.RdrOut, syntax.AppOut:
		default:
			continue
		}
		for _, a := range call.Args[idx+1:] {
			if a.Node.End().Offset() == r.Pos().Offset() {
				word := ""
				if r.Word != nil {
					word = literal(r.Word)
				}
				c.add(redirectFinding(line, where, a.Value+r.Op.String()+word))
			}
		}
	}
}
