package lint

import (
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/suggest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/taints"
)

// checkUnregistered requires Custom userData to register
// karpenter.sh/unregistered:NoExecute with every way it bootstraps the node.
// Only what the parsed userData hands to the kubelet counts (the last
// --kubelet-extra-args of a bootstrap.sh call, the last
// --register-with-taints): the taint written in a comment, an echo or a
// here-document does not. Where the taints come from something only the
// node knows (a command substitution, a variable set at boot), the finding
// is a warning that says the check could not be made.
func (c *lintCtx) checkUnregistered(ud string) {
	ps := isPowerShell(ud)
	regs := c.registrations()
	if len(regs) == 0 {
		if len(c.fs.ByRule(ruleShellSyntax.ID)) > 0 {
			// An error already says the script runs nothing; its bootstrap
			// call, unread, may well register the taint.
			return
		}
		c.add(rules.New(ruleUnregisteredMissing, rules.Path{}, "%s %s %s", noRegistration(ps), c.consequence(), c.suggestion(registration{}, ps)))
		return
	}
	for _, r := range regs {
		switch {
		case r.explained:
			// An error already says this bootstrap fails as written.
		case r.unknown != "":
			c.add(rules.New(ruleUnregisteredMissing, rules.Path{},
				"The linter cannot verify that %s registers the node with karpenter.sh/unregistered:NoExecute: %s. This is a warning because the value is only decided at boot. Karpenter injects nothing into Custom userData, so if the taint is missing then, %s Make sure the value includes it, or write the taint out in the userData, %s",
				r.where, r.unknown, lowerFirst(c.consequence()), fixFor(ps || r.powershell)).AsWarning())
		case !hasUnregistered(r.taints):
			c.add(rules.New(ruleUnregisteredMissing, rules.Path{}, "%s %s %s", r.missingWhat(), c.consequence(), c.suggestion(r, ps || r.powershell)))
		}
	}
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

func noRegistration(powershell bool) string {
	how := "no bootstrap.sh call with --register-with-taints in its --kubelet-extra-args, no NodeConfig registerWithTaints and no [settings.kubernetes.node-taints]"
	if powershell {
		how = "no Start-EKSBootstrap.ps1 call with --register-with-taints in its -KubeletExtraArgs"
	}
	return "The userData does not register the node with karpenter.sh/unregistered:NoExecute: it has " + how + " (the taint written anywhere else, e.g. in a comment, an echo or a here-document, never reaches the kubelet); Karpenter injects nothing into Custom userData."
}

// missingWhat says what r registers instead, and why an earlier mention of
// the taint does not count.
func (r registration) missingWhat() string {
	var b strings.Builder
	switch {
	case r.fails != "":
		b.WriteString(upperFirst(r.where) + " never registers the node: " + r.fails + ". Karpenter injects nothing into Custom userData, so nothing else registers karpenter.sh/unregistered:NoExecute.")
	case r.set:
		b.WriteString(upperFirst(r.where) + " registers the node with " + quoteList(r.taints) + " but not with karpenter.sh/unregistered:NoExecute; Karpenter injects nothing into Custom userData.")
	default:
		b.WriteString(upperFirst(r.where) + " passes no --register-with-taints to the kubelet, so the node registers without karpenter.sh/unregistered:NoExecute; Karpenter injects nothing into Custom userData.")
	}
	for _, d := range r.discarded {
		if hasUnregistered(d.taints) {
			b.WriteString(" karpenter.sh/unregistered:NoExecute is listed earlier, but " + d.why + ", so that list never reaches the kubelet.")
			break
		}
	}
	return b.String()
}

func (c *lintCtx) consequence() string {
	if !c.karpenter.AtLeast(3, 0) {
		return "With Karpenter " + c.karpenter.String() + " registration fails with \"missing required startup taint, karpenter.sh/unregistered\" and the NodeClaim is deleted after the 15-minute registration timeout, over and over."
	}
	return "With Karpenter " + c.karpenter.String() + " the node registers anyway, Karpenter emits the Warning event UnregisteredTaintMissing, and pods can schedule before Karpenter has synced labels and taints (registration races)."
}

// fixFor is how to register the taint, in the userData's language.
func fixFor(powershell bool) string {
	if powershell {
		return "pass it to Start-EKSBootstrap.ps1 in -KubeletExtraArgs, e.g. & $EKSBootstrapScriptFile -EKSClusterName 'my-cluster' -KubeletExtraArgs '--register-with-taints=karpenter.sh/unregistered:NoExecute' (other taints joined with \",\" in the same flag)."
	}
	return "e.g. --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute' for bootstrap.sh, registerWithTaints: [{key: karpenter.sh/unregistered, effect: NoExecute}] in a NodeConfig, or 'karpenter.sh/unregistered' = [':NoExecute'] in [settings.kubernetes.node-taints]."
}

// suggestion turns near misses among the taints r names (registered or
// discarded) into a "did you mean", then says how to register the taint.
func (c *lintCtx) suggestion(r registration, powershell bool) string {
	fix := "Add it to the kubelet's taints, " + fixFor(powershell)
	for _, d := range r.discarded {
		if !hasUnregistered(d.taints) {
			continue
		}
		switch {
		case powershell:
			return "Give every taint in one list: one -KubeletExtraArgs with one --register-with-taints=karpenter.sh/unregistered:NoExecute,<other taints>."
		case r.where == "the NodeConfig":
			return "Give every taint in one list: registerWithTaints without any --register-with-taints flag, or a single --register-with-taints=karpenter.sh/unregistered:NoExecute,<other taints> in spec.kubelet.flags."
		}
		return "Give every taint in one list: one --kubelet-extra-args with one --register-with-taints=karpenter.sh/unregistered:NoExecute,<other taints>."
	}
	named := append([]taints.Taint(nil), r.taints...)
	for _, d := range r.discarded {
		named = append(named, d.taints...)
	}
	for _, t := range named {
		if t.Key == taints.UnregisteredKey {
			return "Did you mean karpenter.sh/unregistered:NoExecute? " + QuoteTaint(t) + " has the right key but effect " + t.Effect + "; the effect must be NoExecute. " + fix
		}
	}
	for _, t := range named {
		if k := t.Key; strings.HasPrefix(k, "karpenter.sh/") || suggest.Distance(k, taints.UnregisteredKey) <= 4 {
			return "Did you mean karpenter.sh/unregistered:NoExecute instead of " + k + "? " + fix
		}
	}
	return fix
}

func quoteList(ts []taints.Taint) string {
	if len(ts) == 0 {
		return "no taints"
	}
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.String()
	}
	return strings.Join(parts, ",")
}

// The rules the checks of this file emit.
var (
	ruleUnregisteredMissing = rules.Register(rules.Rule{
		ID: "unregistered-taint-missing", Severity: rules.Error, Category: category,
		Title:     "Custom userData does not register karpenter.sh/unregistered:NoExecute",
		Behaviour: "Karpenter injects nothing into Custom userData. Before 1.3 a node without the taint fails registration (`missing required startup taint, karpenter.sh/unregistered`) and the NodeClaim is deleted after the 15-minute registration timeout, in a loop; from 1.3 Karpenter emits the event UnregisteredTaintMissing and pods can land before labels and taints are synced. Only what reaches the kubelet counts: the last --kubelet-extra-args of a bootstrap.sh call, the last --register-with-taints, a NodeConfig flag over registerWithTaints, the -KubeletExtraArgs of Start-EKSBootstrap.ps1; the taint written in a comment, an echo or a here-document does not. Variables the script assigns are followed; a value only known at boot (a command substitution, an environment variable) gets a warning that the check could not be made.",
		Source:    "sigs.k8s.io/karpenter pkg/controllers/nodeclaim/lifecycle/registration.go; PR #1991; aws/karpenter-provider-aws pkg/providers/amifamily/bootstrap/custom.go",
		Bad:       nodeClass(onCustom, "#!/bin/bash\n"+al2Call+" --kubelet-extra-args '--register-with-taints=karpenter.sh/uninitialized:NoExecute'\n"),
		Good:      nodeClass(onCustom, "#!/bin/bash\n"+al2Call+" --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n"),
	})
)
