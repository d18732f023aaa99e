package nodepool

import (
	"fmt"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/taints"
)

// disruptedKey is the taint Karpenter puts on nodes it disrupts
// (sigs.k8s.io/karpenter pkg/apis/v1/taints.go DisruptedTaintKey).
const disruptedKey = "karpenter.sh/disrupted"

// taintEntry is one taint with where it was written and what is known.
type taintEntry struct {
	t                      taints.Taint
	path                   rules.Path
	startup                bool
	keyKnown, effectKnown  bool
	valueKnown, valueEmpty bool
}

// taintEntries lists taints then startup_taints, the order Karpenter's
// validateTaints walks them.
func taintEntries(p Pool) []taintEntry {
	var out []taintEntry
	add := func(list []manifest.Taint, root rules.Path, startup bool) {
		if p.Unknown.Is(root) {
			return
		}
		for i, t := range list {
			ip := root.Index(i)
			out = append(out, taintEntry{
				t: taints.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect}, path: ip, startup: startup,
				keyKnown:    !p.Unknown.Is(ip.Attr("key")),
				effectKnown: !p.Unknown.Is(ip.Attr("effect")),
				valueKnown:  !p.Unknown.Is(ip.Attr("value")),
				valueEmpty:  p.Empty.Has(ip.Attr("value")),
			})
		}
	}
	add(p.spec().Taints, pathTaints, false)
	add(p.spec().StartupTaints, pathStartupTaints, true)
	return out
}

// problems lists what Kubernetes rejects in the known parts of the taint
// (the rules a registering node is held to), plus the CRD's empty value.
func (e taintEntry) problems() []taints.FieldError {
	var out []taints.FieldError
	for _, fe := range e.t.Validate() {
		switch fe.Field {
		case "key":
			if !e.keyKnown {
				continue
			}
			if e.t.Key == "" {
				fe.Reason = "a key is required (the CRD: minLength 1, required)"
			}
		case "value":
			if !e.valueKnown {
				continue
			}
		case "effect":
			if !e.effectKnown {
				continue
			}
		}
		out = append(out, fe)
	}
	if e.valueKnown && e.valueEmpty {
		out = append(out, taints.FieldError{Field: "value", Value: "",
			Reason: "an explicitly empty value is rejected by the CRD pattern (it needs at least one character); omit value (null) for a taint without one"})
	}
	return out
}

// checkTaints: syntax with Kubernetes' own rules (stricter than the CRD
// pattern, which allows "/" in values), duplicates across taints and
// startup_taints as validateTaintsField, and Karpenter-owned keys.
func checkTaints(p Pool) rules.Findings {
	var fs rules.Findings
	type keyEffect struct{ key, effect string }
	seen := map[keyEffect]rules.Path{}
	for _, e := range taintEntries(p) {
		for _, fe := range e.problems() {
			fs = append(fs, rules.New(ruleTaintInvalid, e.path.Attr(fe.Field),
				"taint %q has %s %q: %s. %s",
				e.t.String(), fe.Field, fe.Value, fe.Reason, taintConsequence(fe.Field)))
		}
		if e.keyKnown && e.effectKnown {
			ke := keyEffect{e.t.Key, e.t.Effect}
			if first, dup := seen[ke]; dup {
				fs = append(fs, rules.New(ruleTaintDuplicate, e.path,
					"%s:%s is already listed at %s; Karpenter's runtime validation rejects the NodePool (\"duplicate taint Key/Effect pair %s=%s\"), it gets ValidationSucceeded=False and launches nothing. Taints and startup taints share one key/effect space: keep one, or change the key or effect of the other.",
					e.t.Key, e.t.Effect, first, e.t.Key, e.t.Effect))
			} else {
				seen[ke] = e.path
			}
		}
		if e.keyKnown {
			if f, ok := karpenterOwned(e); ok {
				fs = append(fs, f)
			}
		}
	}
	return fs
}

func taintConsequence(field string) string {
	switch field {
	case "value":
		return "The value becomes part of --register-with-taints / registerWithTaints; the kubelet or the API server rejects it and the node never registers (the CRD alone would let a \"/\" through). Use at most 63 of [A-Za-z0-9_.-], starting and ending alphanumeric, or leave value null."
	case "effect":
		return "The CRD requires one of NoSchedule, PreferNoSchedule, NoExecute (case-sensitive)."
	}
	return "The CRD and Karpenter's runtime validation reject it. Write a qualified name: an optional DNS prefix and \"/\", then at most 63 of [A-Za-z0-9_.-], e.g. \"example.com/dedicated\"."
}

func karpenterOwned(e taintEntry) (rules.Finding, bool) {
	list := "taints"
	if e.startup {
		list = "startupTaints"
	}
	switch {
	case e.t.Key == taints.UnregisteredKey && e.startup:
		return rules.New(ruleTaintKarpenterOwned, e.path.Attr("key"),
			"%s is the registration taint Karpenter adds to every node and removes itself once it has synced the node; as a startup taint it is redundant (Karpenter ignores it when judging initialization). Remove it from startupTaints; for a Custom class register it in the userData instead.", e.t.Key), true
	case e.t.Key == taints.UnregisteredKey:
		return rules.New(ruleTaintKarpenterOwned, e.path.Attr("key"),
			"%s is the registration taint Karpenter adds and removes itself; as a NodePool taint it makes Karpenter believe only pods tolerating it fit this pool (scheduling simulates the pool's taints), while the node loses it at registration. Remove it from taints; for a Custom class register it in the userData instead.", e.t.Key), true
	case e.t.Key == disruptedKey:
		return rules.New(ruleTaintKarpenterOwned, e.path.Attr("key"),
			"%s is the taint Karpenter's disruption flow owns: it adds it to nodes it is about to disrupt and removes it when a disruption is abandoned, so in %s it can vanish from nodes at any time, and pods that tolerate it also tolerate every disruption cordon. Use a key of your own, e.g. \"example.com/maintenance\".", e.t.Key, list), true
	}
	return rules.Finding{}, false
}

// taintList renders taints for messages.
func taintList(ts []taints.Taint) string {
	if len(ts) == 0 {
		return "none"
	}
	return fmt.Sprintf("%q", taints.Join(ts))
}

// The rules the checks of this file emit.
var (
	ruleTaintInvalid = rules.Register(rules.Rule{
		ID: "nodepool-taint-invalid", Severity: rules.Error, Category: Category,
		Title:     "taint the API server, Karpenter or the kubelet rejects",
		Behaviour: "The CRD requires key and effect (NoSchedule, PreferNoSchedule, NoExecute) and rejects an empty value string; its pattern for values allows \"prefix/name\", but Kubernetes requires a label value (no \"/\"): the kubelet refuses --register-with-taints (\"invalid taint spec\") or the API server rejects the Node, and the node never registers.",
		Source:    srcCRD + " taints/startupTaints; " + srcTaintsRule + "; k8s.io/kubernetes pkg/util/taints parseTaint",
		Bad:       example(taint("taints", "example.com/dedicated", "team/a", "NoSchedule")),
		Good:      example(taint("taints", "example.com/dedicated", "team-a", "NoSchedule")),
	})
	ruleTaintDuplicate = rules.Register(rules.Rule{
		ID: "nodepool-taint-duplicate", Severity: rules.Error, Category: Category,
		Title:     "the same taint key and effect twice",
		Behaviour: "Karpenter's runtime validation rejects a repeated (key, effect) pair across taints and startup_taints (\"duplicate taint Key/Effect pair %s=%s\"): the NodePool gets ValidationSucceeded=False and launches nothing. The API server would also reject such a Node (\"taints must be unique by key and effect pair\").",
		Source:    srcTaintsRule,
		Bad:       example(taint("taints", "example.com/gpu", "", "NoSchedule"), taint("startup_taints", "example.com/gpu", "initializing", "NoSchedule")),
		Good:      example(taint("taints", "example.com/gpu", "", "NoSchedule"), taint("startup_taints", "example.com/gpu-initializing", "", "NoSchedule")),
	})
	ruleTaintKarpenterOwned = rules.Register(rules.Rule{
		ID: "nodepool-taint-karpenter-owned", Severity: rules.Warning, Category: Category,
		Title:     "taint Karpenter manages itself",
		Behaviour: "karpenter.sh/unregistered:NoExecute is added to every node by Karpenter and removed at registration; karpenter.sh/disrupted:NoSchedule marks nodes Karpenter is disrupting. Listing either in taints or startup_taints is legal but at best redundant: a startup taint of the same key is removed by Karpenter, and a disrupted taint makes nodes look as if they were being disrupted.",
		Source:    "kubernetes-sigs/karpenter pkg/apis/v1/taints.go (UnregisteredNoExecuteTaint, DisruptedNoScheduleTaint)",
		Bad:       example(taint("startup_taints", "karpenter.sh/unregistered", "", "NoExecute")),
		Good:      example(taint("startup_taints", "example.com/agent-not-ready", "", "NoExecute")),
	})
)
