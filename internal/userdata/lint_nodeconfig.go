package userdata

import (
	"encoding/json"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/taints"
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
	for _, fl := range nc.Spec.Kubelet.Flags {
		if (fl == "--register-with-taints" || strings.HasPrefix(fl, "--register-with-taints=")) && c.family == AL2023 {
			c.add(rules.New(ruleNodeConfigTaintFlag, rules.Path{},
				"spec.kubelet.flags%s contains %q. nodeadm appends flags to the kubelet command line and flags override the config file, so this replaces Karpenter's registerWithTaints: karpenter.sh/unregistered and the NodePool taints are dropped (non-Custom nodes get taints only from userData). Remove the flag and put the taints on the NodePool (`taints`/`startup_taints`).",
				in(where), fl))
		}
	}
	c.checkKubeletFlags(splitFlagList(nc.Spec.Kubelet.Flags), "in NodeConfig spec.kubelet.flags"+in(where))
	if raw, ok := nc.Spec.Kubelet.Config["registerWithTaints"]; ok {
		var ts []taints.Taint
		if err := json.Unmarshal(raw, &ts); err != nil {
			c.add(rules.New(ruleNodeConfigInvalid, rules.Path{},
				"spec.kubelet.config.registerWithTaints%s is not a list of {key, value, effect}: %v. nodeadm cannot decode the kubelet configuration.", in(where), err))
		} else if c.family != AL2023 {
			for _, t := range ts {
				for _, fe := range t.Validate() {
					c.add(rules.New(ruleTaintInvalid, rules.Path{},
						"registerWithTaints%s item %s: %s %q: %s. The kubelet or API server rejects it and the node never registers; %s", in(where), quoteTaint(t), fe.Field, fe.Value, fe.Reason, taintFix(fe.Field)))
				}
			}
			c.registered = append(c.registered, ts...)
		}
	}
	if c.family != AL2023 {
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
			"%s is set in the NodeConfig%s, but Karpenter appends its own NodeConfig last and nodeadm lets later documents win (lists are replaced), so this value is discarded. Set it through the EC2NodeClass instead (kubelet.max_pods, NodePool taints) or drop it; cluster details come from the provider's cluster settings.",
			name, in(where)))
	}
}

// splitFlagList turns NodeConfig flags into kubelet argv: nodeadm writes
// them into NODEADM_KUBELET_ARGS and systemd splits and unquotes that.
func splitFlagList(flags []string) []string {
	var out []string
	for _, f := range flags {
		fields, _, err := splitSystemd(f)
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
