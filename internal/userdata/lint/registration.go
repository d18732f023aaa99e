package lint

import (
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/taints"
)

// registration is one way Custom userData registers the node's taints: a
// bootstrap.sh or Start-EKSBootstrap.ps1 call, the NodeConfig documents
// (merged as nodeadm merges them) or Bottlerocket's node-taints. Only what
// reaches the kubelet counts: where an option or flag is given more than
// once the last one wins, and the lists it replaced are kept in discarded
// to explain a missing taint.
type registration struct {
	// where names it in findings, e.g. "the bootstrap.sh call on line 3".
	where string
	// taints are what the kubelet registers the node with.
	taints []taints.Taint
	// set is true when a taint list reaches the kubelet at all.
	set bool
	// unknown, when not empty, says why the taints cannot be read without
	// running the userData (a variable set at boot, a command substitution).
	unknown string
	// explained is true when an error finding already says this way of
	// bootstrapping fails before the taints matter.
	explained bool
	// discarded are taint lists given and then replaced.
	discarded []discardedTaints
	// fails, when not empty, says why this bootstrap never runs at all.
	fails string
	// powershell is true for a Start-EKSBootstrap.ps1 call.
	powershell bool
}

// discardedTaints is a taint list that never reaches the kubelet because a
// later option or flag replaced it.
type discardedTaints struct {
	taints []taints.Taint
	// why says what replaced it.
	why string
}

// kubeletTaints is what one kubelet command line registers. pflag calls the
// --register-with-taints value's Set for every occurrence, and each call
// replaces the list (an empty value clears it): the last occurrence wins,
// but every occurrence is parsed, so any invalid one stops the kubelet.
type kubeletTaints struct {
	taints    []taints.Taint
	set       bool
	discarded []discardedTaints
	// exits is true when an error finding already says the kubelet exits or
	// gets mangled arguments, so what it would register does not matter yet.
	exits bool
}

const whyLastTaintFlag = "the kubelet keeps only the last --register-with-taints (each occurrence replaces the list)"

// replace records a later --register-with-taints occurrence.
func (k *kubeletTaints) replace(ts []taints.Taint) {
	if k.set {
		k.discarded = append(k.discarded, discardedTaints{taints: k.taints, why: whyLastTaintFlag})
	}
	k.taints, k.set = ts, true
}

// nodeConfigTaints accumulates NodeConfig documents in the order nodeadm
// merges them: kubelet.flags are appended (so the last
// --register-with-taints of all documents wins), a later
// kubelet.config.registerWithTaints replaces an earlier one, and a flag
// overrides the config file.
type nodeConfigTaints struct {
	flags      kubeletTaints
	config     []taints.Taint
	configSet  bool
	configDocs []discardedTaints
	explained  bool
}

func (n *nodeConfigTaints) addFlags(k kubeletTaints) {
	if !k.set {
		return
	}
	if n.flags.set {
		n.flags.discarded = append(n.flags.discarded, discardedTaints{taints: n.flags.taints, why: whyLastTaintFlag + "; nodeadm appends the flags of every NodeConfig"})
	}
	n.flags.discarded = append(n.flags.discarded, k.discarded...)
	n.flags.taints, n.flags.set = k.taints, true
	n.explained = n.explained || k.exits
}

func (n *nodeConfigTaints) addConfig(ts []taints.Taint) {
	if n.configSet {
		n.configDocs = append(n.configDocs, discardedTaints{taints: n.config, why: "a later NodeConfig's registerWithTaints replaces it (nodeadm replaces lists when it merges documents)"})
	}
	n.config, n.configSet = ts, true
}

func (n *nodeConfigTaints) registration() registration {
	r := registration{where: "the NodeConfig", explained: n.explained}
	switch {
	case n.flags.set:
		r.taints, r.set = n.flags.taints, true
		r.discarded = append(r.discarded, n.flags.discarded...)
		if n.configSet {
			r.discarded = append(r.discarded, discardedTaints{taints: n.config, why: "the --register-with-taints flag in spec.kubelet.flags overrides spec.kubelet.config.registerWithTaints (kubelet flags beat the config file)"})
		}
	case n.configSet:
		r.taints, r.set = n.config, true
	}
	r.discarded = append(r.discarded, n.configDocs...)
	return r
}

// registrations lists every way the linted userData registers taints.
func (c *lintCtx) registrations() []registration {
	out := append([]registration(nil), c.regs...)
	if c.nodeConfig != nil {
		out = append(out, c.nodeConfig.registration())
	}
	return out
}

// registeredTaints is every taint some registration passes to the kubelet.
func (c *lintCtx) registeredTaints() []taints.Taint {
	var out []taints.Taint
	for _, r := range c.registrations() {
		out = append(out, r.taints...)
	}
	return out
}

func hasUnregistered(ts []taints.Taint) bool {
	for _, t := range ts {
		if t.Matches(taints.Unregistered) {
			return true
		}
	}
	return false
}
