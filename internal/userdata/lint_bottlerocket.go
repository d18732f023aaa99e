package userdata

import (
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/taints"
)

func tomlFinding(err error) rules.Finding {
	return rules.New(ruleTOMLInvalid, rules.Path{},
		"The Bottlerocket userData is not valid settings TOML: %v. Karpenter fails with \"invalid UserData\" and launches no node. Fix the TOML (tables such as [settings.kubernetes], typed values: numbers unquoted, strings quoted).", err)
}

// lintBottlerocket checks settings TOML, for the Bottlerocket family (what
// Karpenter drops or overwrites) or as Custom userData (what it registers).
func (c *lintCtx) lintBottlerocket(ud string) {
	cfg, unknown, err := parseBottlerocket(ud)
	if err != nil {
		c.add(tomlFinding(err))
		return
	}
	k := cfg.Settings.Kubernetes
	if c.family == Bottlerocket {
		for _, key := range unknown {
			c.add(rules.New(ruleBRUnknown, rules.Path{},
				"settings.kubernetes.%s is not a setting Karpenter knows: it logs \"Unknown parameter in userData K8s settings\" and drops it when it re-serialises settings.kubernetes, so the node never gets it. Check the spelling against the Bottlerocket settings reference (e.g. node-labels, eviction-hard, allowed-unsafe-sysctls).",
				strings.Join(key, ".")))
		}
		if len(k.NodeTaints) > 0 {
			c.add(rules.New(ruleBRNodeTaints, rules.Path{},
				"settings.kubernetes.node-taints sets %s, but Karpenter replaces node-taints with the NodePool taints and karpenter.sh/unregistered, so these taints never reach the node. Put them on the NodePool (`taints` or `startup_taints`).",
				strings.Join(sortedKeys(k.NodeTaints), ", ")))
		}
		for _, o := range []struct {
			key string
			set bool
			by  string
		}{
			{"api-server", k.APIServer != nil, "the cluster endpoint"},
			{"cluster-certificate", k.ClusterCertificate != nil, "the cluster CA bundle"},
			{"cluster-name", k.ClusterName != nil, "the cluster name"},
			{"max-pods", k.MaxPods != nil, "spec.kubelet.maxPods or the instance type's pod capacity"},
		} {
			if o.set {
				c.add(rules.New(ruleBROverridden, rules.Path{},
					"settings.kubernetes.%s is set, but Karpenter always overwrites it with %s. Drop it from the userData; set max pods with the EC2NodeClass kubelet.max_pods.", o.key, o.by))
			}
		}
	} else {
		for _, key := range sortedKeys(k.NodeTaints) {
			for _, v := range k.NodeTaints[key] {
				value, effect, ok := cutLast(v, ":")
				if !ok {
					effect, value = "", v
				}
				t := taints.Taint{Key: key, Value: value, Effect: effect}
				for _, fe := range t.Validate() {
					c.add(rules.New(ruleTaintInvalid, rules.Path{},
						"settings.kubernetes.node-taints entry %q = %q: %s %q: %s. Bottlerocket's kubelet rejects it and the node never registers; write entries as key = [\"value:Effect\"] or key = [\":Effect\"]; %s",
						key, v, fe.Field, fe.Value, fe.Reason, taintFix(fe.Field)))
				}
				c.registered = append(c.registered, t)
			}
		}
	}
	if len(k.NodeLabels) > 0 {
		pairs := make([]string, 0, len(k.NodeLabels))
		for _, key := range sortedKeys(k.NodeLabels) {
			pairs = append(pairs, key+"="+k.NodeLabels[key])
		}
		c.checkLabelFlag(strings.Join(pairs, ","), "in settings.kubernetes.node-labels")
	}
}

func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}
