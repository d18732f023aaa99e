package lint

import (
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/taints"
)

// flagValue returns the value of --name in fields at i ("--name=v" or
// "--name v"), how many fields it used, and whether fields[i] is that flag.
func flagValue(fields []string, i int, name string) (string, int, bool) {
	f := fields[i]
	if strings.HasPrefix(f, name+"=") {
		return f[len(name)+1:], 1, true
	}
	if f == name {
		if i+1 < len(fields) {
			return fields[i+1], 2, true
		}
		return "", 1, true
	}
	return "", 0, false
}

// checkKubeletFlags checks kubelet command-line arguments as the kubelet
// receives them (after the shell's and systemd's quote removal) and returns
// the taints they register: every --register-with-taints is parsed and
// checked, the last one wins.
func (c *lintCtx) checkKubeletFlags(fields []string, where string) kubeletTaints {
	var kt kubeletTaints
	var values []string
	for i := 0; i < len(fields); {
		if v, n, ok := flagValue(fields, i, "--register-with-taints"); ok {
			var next string
			if i+n < len(fields) {
				next = fields[i+n]
			}
			ts, ok := c.checkTaintFlag(v, next, where)
			kt.replace(ts)
			kt.exits = kt.exits || !ok
			values = append(values, v)
			i += n
			continue
		}
		if v, n, ok := flagValue(fields, i, "--node-labels"); ok {
			c.checkLabelFlag(v, where)
			i += n
			continue
		}
		i++
	}
	if len(values) > 1 {
		c.add(rules.New(ruleOptionRepeated, rules.Path{},
			"--register-with-taints is given %d times %s (%s). The kubelet keeps only the last one: each occurrence replaces the whole list, so the node registers with %s and the taints of the earlier ones are dropped. Pass a single --register-with-taints with every taint joined by \",\", e.g. --register-with-taints=%s.",
			len(values), where, quoteAll(values), quoteList(kt.taints), mergedTaints(kt)))
	}
	return kt
}

// quoteAll quotes each value, for findings that list them.
func quoteAll(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = strconv.Quote(v)
	}
	return strings.Join(q, ", ")
}

// mergedTaints joins every taint of every occurrence (first occurrence of a
// key and effect kept), to suggest one flag instead of several.
func mergedTaints(kt kubeletTaints) string {
	var all []taints.Taint
	for _, d := range kt.discarded {
		all = append(all, d.taints...)
	}
	all = append(all, kt.taints...)
	var out []taints.Taint
	for _, t := range all {
		if !slices.ContainsFunc(out, t.Matches) {
			out = append(out, t)
		}
	}
	return taints.Join(out)
}

// checkTaintFlag checks one --register-with-taints value with the kubelet's
// rules and returns the taints it parses to, or false when the kubelet
// cannot parse it and exits; next is the field after it, to recognise a
// list split at a space.
func (c *lintCtx) checkTaintFlag(v, next, where string) ([]taints.Taint, bool) {
	items := strings.Split(v, ",")
	spaced := false
	for _, it := range items {
		if strings.TrimSpace(it) != it {
			spaced = true
		}
	}
	if strings.HasSuffix(v, ",") && next != "" && !strings.HasPrefix(next, "-") {
		spaced = true
	}
	if !strings.HasSuffix(v, ",") && next != "" && !strings.HasPrefix(next, "-") && strings.Contains(next, ":") {
		spaced = true
	}
	if spaced {
		c.add(rules.New(ruleTaintsSpace, rules.Path{},
			"--register-with-taints %q %s has a space inside the taint list (next word %q). systemd splits the arguments at whitespace, so the kubelet sees an empty or space-prefixed item (`invalid taint spec`) or a stray argument (`unknown command`) and exits. Join the taints with \",\" and no spaces, e.g. --register-with-taints=karpenter.sh/unregistered:NoExecute,team=a:NoSchedule.",
			v, where, next))
		return nil, false
	}
	ts, err := taints.Parse(v)
	if err != nil {
		why := ""
		if strings.ContainsAny(v, `"'`) {
			why = " Literal quote characters reach the kubelet here: the shell and systemd have already removed one level of quoting, so these quotes are part of the value."
		}
		c.add(rules.New(RuleTaintInvalid, rules.Path{},
			"--register-with-taints %q %s is rejected by the kubelet: %q.%s The kubelet exits and the node never registers. Write items as key=value:Effect or key:Effect joined by \",\", e.g. --register-with-taints=karpenter.sh/unregistered:NoExecute.",
			v, where, err.Error(), why))
		return nil, false
	}
	for _, t := range ts {
		for _, fe := range t.Validate() {
			c.add(rules.New(RuleTaintInvalid, rules.Path{},
				"--register-with-taints item %q %s: %s %q: %s. %s", t.String(), where, fe.Field, fe.Value, fe.Reason, taintFix(fe.Field)))
		}
	}
	return ts, true
}

// lastTaintFlag is what a kubelet command line registers, without checking
// it: for values the kubelet never sees (an earlier --kubelet-extra-args),
// to explain what was discarded.
func lastTaintFlag(fields []string) kubeletTaints {
	var kt kubeletTaints
	for i := 0; i < len(fields); {
		v, n, ok := flagValue(fields, i, "--register-with-taints")
		if !ok {
			i++
			continue
		}
		ts, _ := taints.Parse(v)
		kt.replace(ts)
		i += n
	}
	return kt
}

// checkLabelFlag checks a --node-labels value with the kubelet's rules.
func (c *lintCtx) checkLabelFlag(v, where string) {
	if v == "" {
		return
	}
	var refused []string
	for _, pair := range strings.Split(v, ",") {
		kv := strings.SplitN(pair, "=", 2)
		if len(kv) != 2 {
			c.add(rules.New(ruleLabelInvalid, rules.Path{},
				"--node-labels item %q %s is not key=value: the kubelet exits with \"malformed pair, expect string=string\". Write --node-labels=key1=value1,key2=value2.", pair, where))
			continue
		}
		k, val := kv[0], kv[1]
		if KubeletRefusesLabel(k) {
			refused = append(refused, k)
		}
		if errs := append(validation.IsQualifiedName(k), validation.IsValidLabelValue(val)...); len(errs) > 0 {
			c.add(rules.New(ruleLabelInvalid, rules.Path{},
				"--node-labels item %q %s is invalid (%s): the kubelet exits with \"invalid node labels\". Use a qualified-name key and a label value of at most 63 letters, digits, `-`, `_` or `.`.", pair, where, strings.Join(errs, "; ")))
		}
	}
	if len(refused) > 0 {
		c.add(rules.New(RuleLabelRestricted, rules.Path{},
			"--node-labels %s sets %s. The kubelet refuses to start: \"unknown 'kubernetes.io' or 'k8s.io' labels specified with --node-labels: [%s]\" (allowed: the kubelet.kubernetes.io/ and node.kubernetes.io/ prefixes and the well-known topology, os, arch, instance-type and hostname labels). Put such labels on the NodePool (`labels`); Karpenter applies them to the Node after registration.",
			where, strings.Join(refused, ", "), strings.Join(refused, " ")))
	}
}

// The rules the checks of this file emit.
var (
	RuleTaintInvalid = rules.Register(rules.Rule{
		ID: "kubelet-taint-invalid", Severity: rules.Error, Category: category,
		Title:     "taint the kubelet or API server rejects",
		Behaviour: "The kubelet parses --register-with-taints (split on `,`, then `:`, then `=`; key a qualified name, value a label value, effect NoSchedule/PreferNoSchedule/NoExecute) and exits on an invalid item, e.g. `invalid taint effect: NoExecute\", unsupported taint effect` when literal quotes reach it; a taint without effect makes the API server reject the Node. The node never registers.",
		Source:    srcKubelet + "; k8s.io/apimachinery validation IsQualifiedName/IsValidLabelValue",
		Bad:       nodeClass(onCustom, "#!/bin/bash\n"+al2Call+" --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute,team=a/b:NoSchedule'\n"),
		Good:      nodeClass(onCustom, "#!/bin/bash\n"+al2Call+" --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute,team=a-b:NoSchedule'\n"),
	})
	ruleTaintsSpace = rules.Register(rules.Rule{
		ID: "kubelet-taints-space", Severity: rules.Error, Category: category,
		Title:     "space inside the --register-with-taints list",
		Behaviour: "systemd splits the extra arguments at whitespace: the list ends at the space, the kubelet sees an empty or space-prefixed item (`invalid taint spec`) or a stray positional argument (`unknown command`), and exits.",
		Source:    "systemd.service(5) \"Command lines\"; " + srcKubelet,
		Bad:       nodeClass(onCustom, "#!/bin/bash\n"+al2Call+" --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute, team=a:NoSchedule'\n"),
		Good:      nodeClass(onCustom, "#!/bin/bash\n"+al2Call+" --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute,team=a:NoSchedule'\n"),
	})
	ruleOptionRepeated = rules.Register(rules.Rule{
		ID: "option-repeated", Severity: rules.Warning, Category: category,
		Title:     "option given more than once: only the last one takes effect",
		Behaviour: "bootstrap.sh's case loop assigns an option's variable each time it meets the option (`KUBELET_EXTRA_ARGS=$2`), and each --register-with-taints replaces the kubelet's whole taint list (pflag calls the flag's Set for every occurrence): only the last value reaches the kubelet, and the taints and labels of the earlier ones are dropped without a message.",
		Source:    srcBootSh + "; " + srcKubelet + " (taintsVar.Set)",
		Bad:       nodeClass(onCustom, "#!/bin/bash\n"+al2Call+" --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute' \\\n  --kubelet-extra-args '--node-labels=team=a'\n"),
		Good:      nodeClass(onCustom, "#!/bin/bash\n"+al2Call+" \\\n  --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute --node-labels=team=a'\n"),
	})
	RuleLabelRestricted = rules.Register(rules.Rule{
		ID: "kubelet-label-restricted", Severity: rules.Error, Category: category,
		Title:     "kubernetes.io/k8s.io label passed to the kubelet",
		Behaviour: "The kubelet refuses to start: `unknown 'kubernetes.io' or 'k8s.io' labels specified with --node-labels: [...]` / `--node-labels in the 'kubernetes.io' namespace must begin with an allowed prefix (kubelet.kubernetes.io, node.kubernetes.io) or be in the specifically allowed set (...)`.",
		Source:    "k8s.io/kubernetes cmd/kubelet/app/options ValidateKubeletFlags (--node-labels)",
		Bad:       nodeClass(onCustom, "#!/bin/bash\n"+al2Call+" --kubelet-extra-args '--node-labels=node-role.kubernetes.io/worker=true --register-with-taints=karpenter.sh/unregistered:NoExecute'\n"),
		Good:      "# Put the label on the NodePool instead; Karpenter applies kubernetes.io labels to the Node after registration.\n" + poolWith(`labels = { "node-role.kubernetes.io/worker" = "true" }`),
	})
	ruleLabelInvalid = rules.Register(rules.Rule{
		ID: "kubelet-label-invalid", Severity: rules.Error, Category: category,
		Title:     "node label the kubelet rejects",
		Behaviour: "The kubelet validates --node-labels (key a qualified name, value a label value) and exits with `invalid node labels: ...`; in a rendered script an unvalidated value could also break the quoting.",
		Source:    "k8s.io/kubernetes cmd/kubelet/app/options ValidateKubeletFlags",
		Bad:       bootstrapClass(`format = "bootstrap.sh"`, `cluster_name = "my-cluster"`, `node_labels = { team = "a b" }`),
		Good:      bootstrapClass(`format = "bootstrap.sh"`, `cluster_name = "my-cluster"`, `node_labels = { team = "a-b" }`),
	})
)
