package lint

import (
	"regexp"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata/shell"
)

// The AL2 kubelet mechanisms AL2023 does not have. AL2's kubelet unit runs
// `kubelet $KUBELET_ARGS $KUBELET_EXTRA_ARGS` and reads
// /etc/kubernetes/kubelet/kubelet-config.json; AL2023's runs `kubelet
// $NODEADM_KUBELET_ARGS` with the configuration nodeadm writes to
// /etc/kubernetes/kubelet/config.json (and config.json.d), so neither the
// file nor the variables exist for it.
const al2KubeletConfig = "/etc/kubernetes/kubelet/kubelet-config.json"

var al2KubeletVars = regexp.MustCompile(`\bKUBELET_(EXTRA_)?ARGS\b`)

// checkAL2Mechanisms reports, in a script on an AL2023 node, the edits of
// AL2's kubelet configuration file and the kubelet.service.d drop-ins that
// set AL2's kubelet variables: the kubelet never reads either.
func (c *lintCtx) checkAL2Mechanisms(f *syntax.File, where string) {
	seen := map[string]bool{}
	report := func(line uint, format string, a ...any) {
		key := format[:20] + strconv.Itoa(int(line))
		if seen[key] {
			return
		}
		seen[key] = true
		c.add(rules.New(ruleAL2MechanismOnAL2023, rules.Path{}, format, a...))
	}
	// Per command: the words of its arguments and redirections, and the
	// heredoc a drop-in's content usually comes in.
	syntax.Walk(f, func(n syntax.Node) bool {
		st, ok := n.(*syntax.Stmt)
		if !ok {
			return true
		}
		var words []*syntax.Word
		var body strings.Builder
		if call, ok := st.Cmd.(*syntax.CallExpr); ok {
			words = append(words, call.Args...)
		}
		for _, r := range st.Redirs {
			if r.Word != nil {
				words = append(words, r.Word)
			}
			if r.Hdoc != nil {
				body.WriteString(wordText(r.Hdoc) + "\n")
			}
		}
		for _, w := range words {
			body.WriteString(wordText(w) + "\n")
		}
		for _, w := range words {
			text, line := wordText(w), w.Pos().Line()
			switch {
			case strings.Contains(text, al2KubeletConfig):
				report(line, "Line %d%s uses %s, AL2's kubelet configuration file. AL2023 nodes have no such file: nodeadm writes the kubelet's configuration to /etc/kubernetes/kubelet/config.json from NodeConfig documents, so the edit fails or configures nothing. Put the settings in a NodeConfig document (spec.kubelet.config) of the userData, or the class's kubelet block.",
					line, in(where), al2KubeletConfig)
			case strings.Contains(text, "kubelet.service.d/"):
				if m := al2KubeletVars.FindString(body.String()); m != "" {
					report(line, "Line %d%s writes a kubelet.service.d drop-in that sets %s, a variable of AL2's kubelet unit. AL2023's kubelet unit runs `kubelet $NODEADM_KUBELET_ARGS` only, so the drop-in changes nothing. Put the flags in a NodeConfig document (spec.kubelet.flags) or the settings in spec.kubelet.config.",
						line, in(where), m)
				}
			}
		}
		return true
	})
}

// wordText is a word's text: expanded when static, else its literal
// parts (a heredoc's lines, a path around a variable).
func wordText(w *syntax.Word) string {
	if t := shell.Literal(w); t != "" {
		return t
	}
	var b strings.Builder
	syntax.Walk(w, func(n syntax.Node) bool {
		if l, ok := n.(*syntax.Lit); ok {
			b.WriteString(l.Value)
		}
		return true
	})
	return b.String()
}

// The rules the checks of this file emit.
var (
	ruleAL2MechanismOnAL2023 = rules.Register(rules.Rule{
		ID: "al2023-al2-kubelet-config", Severity: rules.Error, Category: category,
		Title:     "AL2023 userData configures the kubelet the AL2 way",
		Behaviour: "AL2 nodes read the kubelet's configuration from /etc/kubernetes/kubelet/kubelet-config.json and its flags from KUBELET_ARGS/KUBELET_EXTRA_ARGS, which kubelet.service.d drop-ins set. AL2023 nodes have neither: nodeadm writes /etc/kubernetes/kubelet/config.json from NodeConfig documents and the kubelet unit runs `kubelet $NODEADM_KUBELET_ARGS`. A script that edits kubelet-config.json fails (the file does not exist) and a drop-in setting KUBELET_EXTRA_ARGS changes nothing: the setting never reaches the kubelet. Reported for the AL2023 family and for Custom userData on AL2023 images.",
		Source:    "awslabs/amazon-eks-ami templates/al2023/runtime/rootfs/etc/systemd/system/kubelet.service and nodeadm/internal/kubelet (config.json, NODEADM_KUBELET_ARGS); templates/al2/runtime/bootstrap.sh (kubelet-config.json, KUBELET_EXTRA_ARGS)",
		Bad:       nodeClass(onAL2023, "#!/bin/bash\ncat <<'EOF' > /etc/systemd/system/kubelet.service.d/90-extra.conf\n[Service]\nEnvironment='KUBELET_EXTRA_ARGS=--image-gc-high-threshold=70'\nEOF\n"),
		Good:      nodeClass(onAL2023, "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      imageGCHighThresholdPercent: 70\n"),
	})
)
