package nodepool

import (
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/taints"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// checkCustom: Karpenter injects nothing into Custom userData, so the taints
// a node registers with are only those the class's userData names
// (ClassFacts.RegisteredTaints). karpenter.sh/unregistered:NoExecute must be
// among them (the same check as the class's
// unregistered-taint-missing, here with the pool's consequence); the pool's
// startup taints should be (they are racy when Karpenter adds them after
// registration).
func checkCustom(p Pool, kv versions.Karpenter) rules.Findings {
	if p.Class.Family.Model().KarpenterBootstraps() {
		return nil
	}
	reg := p.Class.RegisteredTaints
	var fs rules.Findings
	if !registers(reg, taints.Unregistered) {
		consequence := "With Karpenter " + kv.String() + " the node registers anyway, Karpenter emits the Warning event UnregisteredTaintMissing (\"Missing karpenter.sh/unregistered taint which prevents registration related race conditions on Karpenter-managed nodes\"), and this pool's pods can land before Karpenter has synced the pool's labels and taints onto the node."
		if !kv.AtLeast(3, 0) {
			consequence = "With Karpenter " + kv.String() + " registration of every node of this pool fails (\"missing required startup taint, karpenter.sh/unregistered\"), the NodeClaim never registers and is deleted after the 15-minute registration timeout, and Karpenter launches a replacement, in a loop."
		}
		fs = append(fs, rules.New(ruleUnregistered, pathNodeClass,
			"EC2NodeClass %q is Custom and its userData registers the node with %s, without karpenter.sh/unregistered:NoExecute. %s Add karpenter.sh/unregistered:NoExecute to the userData's --register-with-taints / registerWithTaints / node-taints (the class's bootstrap block does it for you).",
			p.spec().NodeClassRef.Name, taintList(reg), consequence))
	}
	if p.Unknown.Is(pathStartupTaints) {
		return fs
	}
	for i, t := range p.spec().StartupTaints {
		ip := pathStartupTaints.Index(i)
		if p.Unknown.Within(ip) {
			continue
		}
		st := taints.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect}
		if st.Key == taints.UnregisteredKey || registers(reg, st) {
			continue
		}
		fs = append(fs, rules.New(ruleStartupNotRegistered, ip,
			"startup taint %s is not registered by the Custom userData of EC2NodeClass %q (it registers %s): Karpenter adds it to the Node only when it syncs the Node after registration, by which time the agent that removes it may have run already; the taint then stays, the NodeClaim stays Initialized=Unknown (StartupTaintsExist) and pods that do not tolerate it never land. Register it in the userData too, e.g. --register-with-taints=karpenter.sh/unregistered:NoExecute,%s.",
			st, p.spec().NodeClassRef.Name, taintList(reg), st))
	}
	return fs
}

// registers reports whether a taint with t's key and effect is registered
// (Karpenter's MatchTaint).
func registers(reg []taints.Taint, t taints.Taint) bool {
	for _, r := range reg {
		if r.Matches(t) {
			return true
		}
	}
	return false
}

// The rules the checks of this file emit.
var (
	ruleStartupNotRegistered = rules.Register(rules.Rule{
		ID: "nodepool-startup-taints-not-registered", Severity: rules.Warning, Category: ClassCategory,
		Title:     "Custom userData does not register the pool's startup taints",
		Behaviour: "Karpenter injects nothing into Custom userData; it adds the pool's startup taints to the Node only when it syncs the Node after registration. By then the agent that should remove the taint may already have run, so the taint stays, the NodeClaim stays Initialized=Unknown (StartupTaintsExist) and pods that do not tolerate it never land.",
		Source:    "kubernetes-sigs/karpenter pkg/controllers/nodeclaim/lifecycle/registration.go syncNode, initialization.go StartupTaintsRemoved; aws/karpenter-provider-aws pkg/providers/amifamily/bootstrap/custom.go",
		Bad:       exampleOn("custom", taint("startup_taints", "example.com/agent-not-ready", "", "NoExecute")),
		Good:      exampleOn("custom_agent", taint("startup_taints", "example.com/agent-not-ready", "", "NoExecute")),
	})
)
