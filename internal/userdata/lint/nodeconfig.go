package lint

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/taints"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata/shell"
)

// userNodeConfig is the part of nodeadm's NodeConfig (node.eks.aws/v1alpha1)
// the checks need.
type userNodeConfig struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Spec       struct {
		Cluster struct {
			Name                 *string `json:"name"`
			APIServerEndpoint    *string `json:"apiServerEndpoint"`
			CertificateAuthority *string `json:"certificateAuthority"`
			CIDR                 *string `json:"cidr"`
		} `json:"cluster"`
		Kubelet struct {
			Config map[string]json.RawMessage `json:"config"`
			Flags  []string                   `json:"flags"`
		} `json:"kubelet"`
	} `json:"spec"`
}

// lintNodeConfig checks a NodeConfig document (a part, or the whole
// userData Karpenter classifies as one).
func (c *lintCtx) lintNodeConfig(doc, where string) {
	var nc userNodeConfig
	if err := yaml.Unmarshal([]byte(doc), &nc); err != nil {
		c.add(rules.New(ruleNodeConfigInvalid, rules.Path{},
			"The NodeConfig document%s does not decode: %v. nodeadm fails `nodeadm init` and the kubelet never starts. Write a node.eks.aws/v1alpha1 NodeConfig (spec.kubelet.config is a map, spec.kubelet.flags a list of strings).", in(where), err))
		return
	}
	if nc.Kind != "NodeConfig" || !strings.HasPrefix(nc.APIVersion, "node.eks.aws/") {
		f := rules.New(ruleNodeConfigInvalid, rules.Path{},
			"The document%s parses as YAML/JSON but is not a NodeConfig (apiVersion %q, kind %q). Karpenter sends any YAML or JSON map in AL2023 userData as an application/node.eks.aws part, and nodeadm cannot decode it. Add `apiVersion: node.eks.aws/v1alpha1` and `kind: NodeConfig`, or, for a shell script or #cloud-config, wrap it in a MIME part with its own Content-Type.",
			in(where), nc.APIVersion, nc.Kind)
		if strings.TrimSpace(stripYAMLComments(doc)) == "" {
			f = f.AsWarning()
		}
		c.add(f)
		return
	}
	if c.format == amifamily.FormatNodeadm {
		c.checkTaintFlagOverride(nc.Spec.Kubelet.Flags, where)
	}
	kt := c.checkKubeletFlags(splitFlagList(nc.Spec.Kubelet.Flags), "in NodeConfig spec.kubelet.flags"+in(where))
	if c.format != amifamily.FormatNodeadm {
		// Custom: the NodeConfig documents are what registers the node.
		if c.nodeConfig == nil {
			c.nodeConfig = &nodeConfigTaints{}
		}
		c.nodeConfig.addFlags(kt)
		if raw, ok := nc.Spec.Kubelet.Config["registerWithTaints"]; ok {
			c.checkRegisterWithTaints(raw, where)
		}
		return
	}
	var overridden []string
	cl := nc.Spec.Cluster
	for name, set := range map[string]bool{"spec.cluster.name": cl.Name != nil, "spec.cluster.apiServerEndpoint": cl.APIServerEndpoint != nil,
		"spec.cluster.certificateAuthority": cl.CertificateAuthority != nil, "spec.cluster.cidr": cl.CIDR != nil} {
		if set {
			overridden = append(overridden, name)
		}
	}
	for _, k := range []string{"registerWithTaints", "maxPods"} {
		if _, ok := nc.Spec.Kubelet.Config[k]; ok {
			overridden = append(overridden, "spec.kubelet.config."+k)
		}
	}
	sort.Strings(overridden)
	for _, name := range overridden {
		c.add(rules.New(ruleNodeConfigOverridden, rules.Path{},
			"%s is set in the NodeConfig%s, but Karpenter appends its own NodeConfig last and nodeadm lets later documents win (lists are replaced), so this value is discarded. Set it through the EC2NodeClass instead (kubelet.maxPods, NodePool taints) or drop it; Karpenter writes the cluster's details itself.",
			name, in(where)))
	}
}

// splitFlagList turns NodeConfig flags into kubelet argv: nodeadm writes
// them into NODEADM_KUBELET_ARGS and systemd splits and unquotes that.
func splitFlagList(flags []string) []string {
	var out []string
	for _, f := range flags {
		fields, _, err := shell.SplitSystemd(f)
		if err != nil {
			out = append(out, f)
			continue
		}
		out = append(out, fields...)
	}
	return out
}

func stripYAMLComments(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// checkTaintFlagOverride reports a --register-with-taints among the AL2023
// NodeConfig flags. nodeadm writes the flags into NODEADM_KUBELET_ARGS and
// systemd splits that at whitespace, so a flag hidden inside a longer entry
// ("--node-labels=a=b --register-with-taints=...") reaches the kubelet too.
func (c *lintCtx) checkTaintFlagOverride(flags []string, where string) {
	for _, entry := range flags {
		fields, _, err := shell.SplitSystemd(entry)
		if err != nil {
			fields = []string{entry}
		}
		for _, f := range fields {
			if f != "--register-with-taints" && !strings.HasPrefix(f, "--register-with-taints=") {
				continue
			}
			inside := ""
			if f != entry {
				inside = fmt.Sprintf(" (the entry %q reaches the kubelet as separate arguments, because nodeadm writes the flags into NODEADM_KUBELET_ARGS and systemd splits it at whitespace)", entry)
			}
			c.add(rules.New(ruleNodeConfigTaintFlag, rules.Path{},
				"spec.kubelet.flags%s passes %q%s. nodeadm appends flags to the kubelet command line and flags override the config file, so this replaces Karpenter's registerWithTaints: karpenter.sh/unregistered and the NodePool taints are dropped (non-Custom nodes get taints only from userData). Remove the flag and put the taints on the NodePool (`taints`/`startupTaints`).",
				in(where), f, inside))
			break
		}
	}
}

// checkRegisterWithTaints reads spec.kubelet.config.registerWithTaints of
// a Custom NodeConfig. nodeadm hands spec.kubelet.config to the kubelet as
// its configuration, so a value that is not a list of taints stops the
// kubelet. (On AL2023 Karpenter's own list replaces it whatever it is, which
// nodeconfig-field-overridden reports.)
func (c *lintCtx) checkRegisterWithTaints(raw json.RawMessage, where string) {
	var ts []taints.Taint
	if err := json.Unmarshal(raw, &ts); err != nil {
		c.nodeConfig.explained = true
		c.add(rules.New(ruleNodeConfigInvalid, rules.Path{},
			"spec.kubelet.config.registerWithTaints%s is %s, which is not a list of taints (%v). nodeadm passes spec.kubelet.config to the kubelet as its configuration file, the kubelet cannot decode it and exits, and the node never registers. Write a list of {key, value, effect} objects, e.g. registerWithTaints: [{key: karpenter.sh/unregistered, effect: NoExecute}].",
			in(where), shorten(string(raw), 200), err))
		return
	}
	for _, t := range ts {
		for _, fe := range t.Validate() {
			c.add(rules.New(RuleTaintInvalid, rules.Path{},
				"registerWithTaints%s item %s: %s %q: %s. The kubelet or API server rejects it and the node never registers; %s", in(where), QuoteTaint(t), fe.Field, fe.Value, fe.Reason, taintFix(fe.Field)))
		}
	}
	c.nodeConfig.addConfig(ts)
}

// shorten cuts s for a finding, marking the cut.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// The rules the checks of this file emit.
var (
	ruleNodeConfigTaintFlag = rules.Register(rules.Rule{
		ID: "nodeconfig-register-with-taints-flag", Severity: rules.Error, Category: category,
		Title:     "NodeConfig kubelet.flags sets --register-with-taints",
		Behaviour: "nodeadm appends kubelet.flags to the kubelet command line, and command-line flags override the config file: the flag replaces Karpenter's registerWithTaints, dropping karpenter.sh/unregistered and the NodePool taints (non-Custom nodes get taints only from userData). A flag inside a longer entry (`--node-labels=a=b --register-with-taints=...`) counts too: nodeadm writes the flags into NODEADM_KUBELET_ARGS, which systemd splits at whitespace.",
		Source:    "awslabs/amazon-eks-ami nodeadm/internal/kubelet/environment.go (flags), nodeadm/internal/api/merge.go; aws/karpenter-provider-aws pkg/providers/amifamily/bootstrap/nodeadm.go",
		Bad:       nodeClass(onAL2023, "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    flags:\n      - --register-with-taints=team=a:NoSchedule\n"),
		Good:      "# Put the taint on the NodePool; Karpenter renders it into registerWithTaints.\n" + poolWith(rules.Block("taints", teamTaint...)),
	})
	ruleNodeConfigOverridden = rules.Register(rules.Rule{
		ID: "nodeconfig-field-overridden", Severity: rules.Warning, Category: category,
		Title:     "NodeConfig field that Karpenter's NodeConfig overrides",
		Behaviour: "Karpenter appends its own NodeConfig last; nodeadm merges later documents over earlier ones and replaces lists, so the user's cluster details, maxPods and registerWithTaints are discarded.",
		Source:    "amazon-eks-ami nodeadm internal/api/merge.go; Karpenter nodeadm.go getNodeConfigYAML",
		Bad:       nodeClass(onAL2023, "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      maxPods: 42\n"),
		Good:      classWith(`ami_family = "AL2023"`, `kubelet { max_pods = 42 }`),
	})
	ruleNodeConfigInvalid = rules.Register(rules.Rule{
		ID: "nodeconfig-invalid", Severity: rules.Error, Category: category,
		Title:     "NodeConfig part does not parse",
		Behaviour: "nodeadm cannot decode the application/node.eks.aws part and fails `nodeadm init`; the kubelet never starts.",
		Source:    "amazon-eks-ami nodeadm api v1alpha1 NodeConfig",
		Bad:       nodeClass(onAL2023, "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"B\"\n\n--B\nContent-Type: application/node.eks.aws\n\nspec: [unclosed\n--B--\n"),
		Good:      nodeClass(onAL2023, "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"B\"\n\n--B\nContent-Type: application/node.eks.aws\n\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      shutdownGracePeriod: 30s\n--B--\n"),
	})
)
