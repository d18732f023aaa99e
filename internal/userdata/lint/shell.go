package lint

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata/shell"
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

// lintShell parses a shell script and checks its bootstrap.sh calls, with
// the variables the script assigns followed through the syntax tree.
func (c *lintCtx) lintShell(script, where string) {
	f, err := shell.Parse(script)
	if err != nil {
		c.add(rules.New(ruleShellSyntax, rules.Path{},
			"The shell script%s does not parse: %v. bash stops there when cloud-init runs it, so nothing after it (including the bootstrap) runs. Fix the syntax; `bash -n script.sh` shows the same error.", in(where), err))
		return
	}
	c.lintParsedShell(f, script, where)
}

func (c *lintCtx) lintParsedShell(f *syntax.File, script, where string) {
	if c.format == amifamily.FormatNodeadm {
		c.checkAL2Mechanisms(f, where)
	}
	vars := shell.CollectVars(f)
	for _, call := range shell.Calls(f) {
		c.checkContinuation(call, where)
		env := vars.EnvAt(call.Call)
		args := shell.ResolveArgs(call.Call.Args, env)
		idx := shell.BootstrapIndexIn(len(args), func(i int) (string, bool) { return args[i].Value, args[i].Known })
		if idx < 0 {
			continue
		}
		line := int(call.Call.Pos().Line())
		switch c.format {
		case amifamily.FormatNodeadm:
			fix := "Remove the call: Karpenter appends its own NodeConfig, and extra kubelet settings go into a NodeConfig document (spec.kubelet.config) in userData."
			if c.custom {
				fix = "Karpenter passes Custom userData through untouched, so nothing else bootstraps the node: replace the call with a nodeadm NodeConfig that registers karpenter.sh/unregistered:NoExecute, or select AL2 images."
			}
			c.add(rules.New(ruleAL2023BootstrapSh, rules.Path{},
				"Line %d%s calls %s. On AL2023 /etc/eks/bootstrap.sh only prints an error and exits 1; nodes are configured by nodeadm. %s",
				line, in(where), args[idx].Value, fix))
			continue
		case amifamily.FormatBootstrapSh:
			c.add(rules.New(ruleAL2BootstrapCall, rules.Path{},
				"Line %d%s calls %s itself. With amiFamily AL2 Karpenter appends its own bootstrap.sh call after the userData, so the node is bootstrapped twice and Karpenter's call rewrites the kubelet drop-ins. Remove the call (Karpenter passes spec.kubelet, labels and taints), or use amiFamily Custom and register karpenter.sh/unregistered:NoExecute yourself.",
				line, in(where), args[idx].Value))
		}
		c.checkBootstrapCall(script, call, args, idx, env, where)
	}
}

// checkContinuation reports a command named after a bootstrap.sh option:
// the line before it lacks its trailing backslash.
func (c *lintCtx) checkContinuation(call shell.Call, where string) {
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

// optionValue is one bootstrap.sh option with its value, as its case loop
// sees them.
type optionValue struct {
	name  string
	value shell.CallArg
	line  int
}

// checkBootstrapCall walks a bootstrap.sh argument list as bootstrap.sh's
// case loop does, and records what the call registers: bootstrap.sh keeps
// the last value of each option (`KUBELET_EXTRA_ARGS=$2`), and reads
// KUBELET_EXTRA_ARGS from its environment when no --kubelet-extra-args is
// given.
func (c *lintCtx) checkBootstrapCall(script string, call shell.Call, args []shell.CallArg, idx int, env shell.Env, where string) {
	line := int(call.Call.Pos().Line())
	var opts []optionValue
	var spread []shell.CallArg // unresolved unquoted expansions, which may carry options
	for j := idx + 1; j < len(args); j++ {
		a := args[j]
		text := a.Value
		if !a.Known {
			text = a.Prefix
		}
		if strings.HasPrefix(text, "--") && strings.Contains(text, "=") {
			opt, val, _ := strings.Cut(text, "=")
			c.add(optionEquals(line, where, opt, val, a.Known))
			continue
		}
		if !a.Known {
			if a.Spread {
				spread = append(spread, a)
			}
			continue
		}
		switch {
		case bootstrapOptions[text]:
			if j+1 < len(args) {
				j++
				opts = append(opts, optionValue{name: text, value: args[j], line: int(args[j].Word.Pos().Line())})
			}
		case strings.HasPrefix(text, "--"):
			c.add(rules.New(ruleOptionUnknown, rules.Path{},
				"Line %d%s passes %s to bootstrap.sh, which has no such option: it becomes a positional argument and has no effect. Kubelet flags belong inside --kubelet-extra-args '...'; bootstrap.sh options are %s.",
				line, in(where), text, "--apiserver-endpoint, --b64-cluster-ca, --dns-cluster-ip, --ip-family, --kubelet-extra-args, --local-disks, --use-max-pods, ..."))
		}
	}
	c.checkRepeatedOptions(script, opts, line, where)
	c.regs = append(c.regs, c.bootstrapRegistration(script, call, args[:idx], opts, spread, env, line, where))
	c.checkRedirects(call, args, idx, line, where)
}

// checkRepeatedOptions reports an option given twice to one call: each
// occurrence overwrites the variable the previous one set.
func (c *lintCtx) checkRepeatedOptions(script string, opts []optionValue, line int, where string) {
	seen := map[string][]optionValue{}
	var order []string
	for _, o := range opts {
		if seen[o.name] == nil {
			order = append(order, o.name)
		}
		seen[o.name] = append(seen[o.name], o)
	}
	for _, name := range order {
		occ := seen[name]
		if len(occ) < 2 {
			continue
		}
		vals := make([]string, len(occ))
		for i, o := range occ {
			vals[i] = argText(script, o.value)
		}
		fix := "Pass it once."
		if name == "--kubelet-extra-args" {
			fix = "Pass it once, with every kubelet flag in the one value, e.g. --kubelet-extra-args '--node-labels=... --register-with-taints=...'."
		}
		c.add(rules.New(ruleOptionRepeated, rules.Path{},
			"Line %d%s passes %s %d times to bootstrap.sh (%s). Its case loop assigns the option's variable each time (e.g. KUBELET_EXTRA_ARGS=$2), so only the last value, %s, takes effect and the others are discarded. %s",
			line, in(where), name, len(occ), quoteAll(vals), strconv.Quote(vals[len(vals)-1]), fix))
	}
}

// argText is an argument's value, or its source text when unknown.
func argText(script string, a shell.CallArg) string {
	if a.Known {
		return a.Value
	}
	return shell.Source(script, a.Word)
}

// bootstrapRegistration is what one bootstrap.sh call registers.
func (c *lintCtx) bootstrapRegistration(script string, call shell.Call, wrappers []shell.CallArg, opts []optionValue, spread []shell.CallArg, env shell.Env, line int, where string) registration {
	r := registration{where: "the bootstrap.sh call on line " + strconv.Itoa(line) + in(where)}
	var extra []optionValue
	for _, o := range opts {
		if o.name == "--kubelet-extra-args" {
			extra = append(extra, o)
		}
	}
	var last *optionValue
	if len(extra) > 0 {
		last = &extra[len(extra)-1]
	} else if v, ok := inheritedExtraArgs(call, wrappers, env); ok {
		last = &v
	}
	// An unresolved, unquoted expansion after the last --kubelet-extra-args
	// (or anywhere, without one) may itself expand to a
	// --kubelet-extra-args, which would then win.
	for _, s := range spread {
		if last == nil || s.Word.Pos().After(last.value.Word.Pos()) {
			r.unknown = fmt.Sprintf("its argument `%s` on line %d is unquoted and depends on %s, so it may expand to a --kubelet-extra-args of its own", shell.Source(script, s.Word), s.Word.Pos().Line(), shell.Unresolved(script, s.Word, env))
		}
	}
	for _, o := range extra[:max(len(extra)-1, 0)] {
		if !o.value.Known {
			continue
		}
		if fields, _, err := shell.SplitSystemd(o.value.Value); err == nil {
			if kt := lastTaintFlag(fields); kt.set {
				r.discarded = append(r.discarded, discardedTaints{taints: kt.taints,
					why: "it is in the --kubelet-extra-args on line " + strconv.Itoa(o.line) + ", and bootstrap.sh keeps only the last --kubelet-extra-args (KUBELET_EXTRA_ARGS=$2)"})
			}
		}
	}
	switch {
	case last == nil:
	case !last.value.Known:
		if r.unknown != "" {
			break
		}
		if last.name == "--kubelet-extra-args" {
			r.unknown = fmt.Sprintf("its --kubelet-extra-args value on line %d depends on %s", last.line, shell.Unresolved(script, last.value.Word, env))
		} else {
			r.unknown = "it takes its kubelet arguments from KUBELET_EXTRA_ARGS in its environment, which the script sets from something only known at boot"
		}
	default:
		kt, ok := c.checkExtraArgs(last.value.Value, last.line, where)
		if !ok {
			r.unknown = fmt.Sprintf("the kubelet arguments %q on line %d do not split into words the way systemd splits them", last.value.Value, last.line)
			break
		}
		r.taints, r.set, r.explained = kt.taints, kt.set, kt.exits
		r.discarded = append(r.discarded, kt.discarded...)
	}
	return r
}

// inheritedExtraArgs is KUBELET_EXTRA_ARGS handed to bootstrap.sh through
// its environment (`KUBELET_EXTRA_ARGS=... bootstrap.sh`, `export`, or
// `env`/`sudo KUBELET_EXTRA_ARGS=...`); bootstrap.sh starts from it when no
// --kubelet-extra-args is given. sudo without -E drops exported variables.
func inheritedExtraArgs(call shell.Call, wrappers []shell.CallArg, env shell.Env) (optionValue, bool) {
	const name = "KUBELET_EXTRA_ARGS"
	line := int(call.Call.Pos().Line())
	for i := len(wrappers) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(wrappers[i].Value, name+"="); ok && wrappers[i].Known {
			return optionValue{name: name, value: shell.CallArg{Word: wrappers[i].Word, Value: v, Known: true}, line: line}, true
		}
	}
	for i := len(call.Call.Assigns) - 1; i >= 0; i-- {
		if a := call.Call.Assigns[i]; a.Name != nil && a.Name.Value == name && a.Value != nil {
			v, ok := shell.ResolveLiteral(a.Value, env)
			return optionValue{name: name, value: shell.CallArg{Word: a.Value, Value: v, Known: ok}, line: line}, true
		}
	}
	sudo, keep := false, false
	for _, w := range wrappers {
		sudo = sudo || path.Base(w.Value) == "sudo"
		keep = keep || w.Value == "-E" || strings.HasPrefix(w.Value, "--preserve-env")
	}
	if v, ok := env[name]; ok && v.Exported && (!sudo || keep) {
		return optionValue{name: name, value: shell.CallArg{Word: call.Call.Args[0], Value: v.Value, Known: v.Known}, line: line}, true
	}
	return optionValue{}, false
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
// passes it to the kubelet through a systemd drop-in, and returns what it
// registers; false when it does not split into arguments.
func (c *lintCtx) checkExtraArgs(v string, line int, where string) (kubeletTaints, bool) {
	if strings.Contains(v, "'") {
		c.add(rules.New(ruleSingleQuote, rules.Path{},
			"Line %d%s: the --kubelet-extra-args value %q contains a single quote. bootstrap.sh writes it into /etc/systemd/system/kubelet.service.d/30-kubelet-extra-args.conf as Environment='KUBELET_EXTRA_ARGS=<value>', where the quote ends the quoting and the kubelet gets different arguments. Use double quotes inside the value, e.g. --kubelet-extra-args '--node-labels=\"team=a\"', or none.",
			line, in(where), v))
		return kubeletTaints{exits: true}, true
	}
	fields, ops, err := shell.SplitSystemd(v)
	for _, op := range ops {
		if op == "<" || op == ">" {
			c.add(redirectFinding(line, where, v))
			break
		}
	}
	if err != nil {
		return kubeletTaints{}, false
	}
	return c.checkKubeletFlags(fields, "in --kubelet-extra-args on line "+strconv.Itoa(line)+in(where)), true
}

func redirectFinding(line int, where, v string) rules.Finding {
	return rules.New(ruleRedirect, rules.Path{},
		"Line %d%s: %q has an unquoted `<` or `>`. A shell reads it as a redirection (`memory.available<500Mi` opens the file 500Mi), so the call fails or the value is cut wherever the arguments pass through a shell. Quote the value as Karpenter does, e.g. --eviction-hard=\"memory.available<500Mi\".",
		line, in(where), v)
}

// checkRedirects reports `<`/`>` redirections glued to a bootstrap.sh
// argument (`--eviction-hard=memory.available<500Mi` outside quotes).
func (c *lintCtx) checkRedirects(call shell.Call, args []shell.CallArg, idx, line int, where string) {
	for _, r := range call.Stmt.Redirs {
		switch r.Op {
		case syntax.RdrIn, syntax.RdrOut, syntax.AppOut:
		default:
			continue
		}
		for j, a := range args[idx+1:] {
			// A word that expanded to several arguments ends once.
			lastOfWord := idx+2+j >= len(args) || args[idx+2+j].Word != a.Word
			if lastOfWord && a.Word.End().Offset() == r.Pos().Offset() {
				word := ""
				if r.Word != nil {
					word = shell.Literal(r.Word)
				}
				c.add(redirectFinding(line, where, a.Value+r.Op.String()+word))
			}
		}
	}
}

// The rules the checks of this file emit.
var (
	ruleShellSyntax = rules.Register(rules.Rule{
		ID: "shell-syntax-error", Severity: rules.Error, Category: category,
		Title:     "userData shell script does not parse",
		Behaviour: "cloud-init runs the script with bash, which stops at the syntax error; the node never runs its bootstrap and never joins.",
		Source:    "bash grammar (checked with mvdan.cc/sh)",
		Bad:       nodeClass(onCustom, "#!/bin/bash\nif [ -f /etc/eks/bootstrap.sh ]; then\n  "+al2Call+"\n"),
		Good:      nodeClass(onCustom, "#!/bin/bash\nif [ -f /etc/eks/bootstrap.sh ]; then\n  "+al2Call+" --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\nfi\n"),
	})
	ruleOptionEquals = rules.Register(rules.Rule{
		ID: "bootstrap-option-equals", Severity: rules.Error, Category: category,
		Title:     "bootstrap.sh option written as --opt=value",
		Behaviour: "bootstrap.sh only matches space-separated options; `--opt=value` is one word no `case` branch matches, so it becomes a positional argument: silently ignored after the cluster name, taken as the cluster name when first. With --kubelet-extra-args= the kubelet starts without the labels and taints, including karpenter.sh/unregistered.",
		Source:    srcBootSh,
		Bad:       nodeClass(onCustom, "#!/bin/bash\n"+al2Call+" --kubelet-extra-args='--register-with-taints=\"karpenter.sh/unregistered:NoExecute\"'\n"),
		Good:      nodeClass(onCustom, "#!/bin/bash\n"+al2Call+" --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n"),
	})
	ruleContinuation = rules.Register(rules.Rule{
		ID: "bootstrap-continuation-missing", Severity: rules.Error, Category: category,
		Title:     "bootstrap.sh option on its own line (missing `\\`)",
		Behaviour: "Without a trailing backslash the previous line ends the bootstrap.sh call; the next line runs as a command named after the option, which fails with `command not found`, and bootstrap.sh ran without those options.",
		Source:    "bash line continuation; " + srcBootSh,
		Bad:       nodeClass(onCustom, "#!/bin/bash\n"+al2Call+"\n  --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n"),
		Good:      nodeClass(onCustom, "#!/bin/bash\n"+al2Call+" \\\n  --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n"),
	})
	ruleOptionUnknown = rules.Register(rules.Rule{
		ID: "bootstrap-option-unknown", Severity: rules.Warning, Category: category,
		Title:     "bootstrap.sh does not know this option",
		Behaviour: "bootstrap.sh puts unknown words into its positional arguments and uses only the first as the cluster name; the option has no effect.",
		Source:    srcBootSh,
		Bad:       nodeClass(onCustom, "#!/bin/bash\n"+al2Call+" --max-pods 110 --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n"),
		Good:      nodeClass(onCustom, "#!/bin/bash\n"+al2Call+" --use-max-pods false --kubelet-extra-args '--max-pods=110 --register-with-taints=karpenter.sh/unregistered:NoExecute'\n"),
	})
	ruleSingleQuote = rules.Register(rules.Rule{
		ID: "kubelet-args-single-quote", Severity: rules.Error, Category: category,
		Title:     "single quote inside --kubelet-extra-args",
		Behaviour: "bootstrap.sh writes the value into the systemd drop-in as Environment='KUBELET_EXTRA_ARGS=<value>'; a `'` in the value ends that quoting, so systemd mis-parses the line and the kubelet gets other arguments than written (or none).",
		Source:    srcBootSh + " (30-kubelet-extra-args.conf)",
		Bad:       nodeClass(onCustom, "#!/bin/bash\n"+al2Call+" --kubelet-extra-args \"--node-labels='team=a' --register-with-taints=karpenter.sh/unregistered:NoExecute\"\n"),
		Good:      nodeClass(onCustom, "#!/bin/bash\n"+al2Call+" --kubelet-extra-args '--node-labels=team=a --register-with-taints=karpenter.sh/unregistered:NoExecute'\n"),
	})
	ruleRedirect = rules.Register(rules.Rule{
		ID: "kubelet-args-unquoted-redirect", Severity: rules.Warning, Category: category,
		Title:     "unquoted < or > in kubelet arguments",
		Behaviour: "Outside quotes the shell reads `<`/`>` as a redirection (`memory.available<500Mi` opens the file 500Mi and fails); any tool that re-reads the arguments through a shell does the same. Karpenter always writes such values in double quotes.",
		Source:    "bash redirections; Karpenter bootstrap.go joinParameterArgs (%q)",
		Bad:       nodeClass(onCustom, "#!/bin/bash\n"+al2Call+" --kubelet-extra-args '--eviction-hard=memory.available<500Mi --register-with-taints=karpenter.sh/unregistered:NoExecute'\n"),
		Good:      nodeClass(onCustom, "#!/bin/bash\n"+al2Call+" --kubelet-extra-args '--eviction-hard=\"memory.available<500Mi\" --register-with-taints=karpenter.sh/unregistered:NoExecute'\n"),
	})
	ruleAL2023BootstrapSh = rules.Register(rules.Rule{
		ID: "al2023-bootstrap-sh", Severity: rules.Error, Category: category,
		Title:     "AL2023 userData calls bootstrap.sh",
		Behaviour: "On AL2023 /etc/eks/bootstrap.sh only prints an error and exits 1; nodes are configured by nodeadm from NodeConfig documents.",
		Source:    "amazon-eks-ami templates/al2023/runtime/rootfs/etc/eks/bootstrap.sh",
		Bad:       nodeClass(onAL2023, "#!/bin/bash\n"+al2Call+"\n"),
		Good:      nodeClass(onAL2023, "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      shutdownGracePeriod: 30s\n"),
	})
	ruleAL2BootstrapCall = rules.Register(rules.Rule{
		ID: "al2-bootstrap-sh-call", Severity: rules.Warning, Category: category,
		Title:     "AL2 userData calls bootstrap.sh itself",
		Behaviour: "With amiFamily AL2 Karpenter appends its own bootstrap.sh call after the user's parts; the node is bootstrapped twice and Karpenter's call rewrites the kubelet drop-ins.",
		Source:    "Karpenter docs (EC2NodeClass userData, AL2); eksbootstrap.go",
		Bad:       nodeClass(onAL2, "#!/bin/bash\n"+al2Call+" --kubelet-extra-args '--node-labels=team=a'\n"),
		Good:      nodeClass(onCustom, "#!/bin/bash\n"+al2Call+" --kubelet-extra-args '--node-labels=team=a --register-with-taints=karpenter.sh/unregistered:NoExecute'\n"),
	})
)
