package lint

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/taints"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata/format"
)

func TOMLFinding(err error) rules.Finding {
	return rules.New(ruleTOMLInvalid, rules.Path{},
		"The Bottlerocket userData is not valid settings TOML: %v. Karpenter fails with \"invalid UserData\" and launches no node. Fix the TOML (tables such as [settings.kubernetes], typed values: numbers unquoted, strings quoted).", err)
}

// lintBottlerocket checks settings TOML, for the Bottlerocket family (what
// Karpenter drops or overwrites) or as Custom userData (what it registers).
func (c *lintCtx) lintBottlerocket(ud string) {
	cfg, unknown, err := format.ParseBottlerocket(ud)
	if err != nil {
		c.add(TOMLFinding(err))
		return
	}
	k := cfg.Settings.Kubernetes
	if c.format == amifamily.FormatBottlerocket {
		for _, key := range unknown {
			c.add(rules.New(ruleBRUnknown, rules.Path{},
				"settings.kubernetes.%s is not a setting Karpenter knows: it logs \"Unknown parameter in userData K8s settings\" and drops it when it re-serialises settings.kubernetes, so the node never gets it. Check the spelling against the Bottlerocket settings reference (e.g. node-labels, eviction-hard, allowed-unsafe-sysctls).",
				strings.Join(key, ".")))
		}
		if len(k.NodeTaints) > 0 {
			c.add(rules.New(ruleBRNodeTaints, rules.Path{},
				"settings.kubernetes.node-taints sets %s, but Karpenter replaces node-taints with the NodePool taints and karpenter.sh/unregistered, so these taints never reach the node. Put them on the NodePool (`taints` or `startupTaints`).",
				strings.Join(slices.Sorted(maps.Keys(k.NodeTaints)), ", ")))
		}
		c.checkBROverridden(k)
	} else {
		reg := registration{where: "settings.kubernetes.node-taints", set: len(k.NodeTaints) > 0}
		for _, key := range slices.Sorted(maps.Keys(k.NodeTaints)) {
			for _, v := range k.NodeTaints[key] {
				value, effect, ok := cutLast(v, ":")
				if !ok {
					effect, value = "", v
				}
				t := taints.Taint{Key: key, Value: value, Effect: effect}
				for _, fe := range t.Validate() {
					c.add(rules.New(RuleTaintInvalid, rules.Path{},
						"settings.kubernetes.node-taints entry %q = %q: %s %q: %s. Bottlerocket's kubelet rejects it and the node never registers; write entries as key = [\"value:Effect\"] or key = [\":Effect\"]; %s",
						key, v, fe.Field, fe.Value, fe.Reason, taintFix(fe.Field)))
				}
				reg.taints = append(reg.taints, t)
			}
		}
		c.regs = append(c.regs, reg)
	}
	if len(k.NodeLabels) > 0 {
		pairs := make([]string, 0, len(k.NodeLabels))
		for _, key := range slices.Sorted(maps.Keys(k.NodeLabels)) {
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

// checkBROverridden reports the settings Karpenter always overwrites, each
// with the user's value and where the value really comes from.
func (c *lintCtx) checkBROverridden(k format.BottlerocketKubernetes) {
	str := func(p *string) (string, bool) {
		if p == nil {
			return "", false
		}
		return strconv.Quote(*p), true
	}
	for _, o := range []struct {
		key string
		get func() (string, bool)
		by  string
		fix string
	}{
		{"api-server", func() (string, bool) { return str(k.APIServer) }, "the cluster's API server endpoint",
			"Karpenter writes the endpoint of the cluster it runs in"},
		{"cluster-certificate", func() (string, bool) { return str(k.ClusterCertificate) }, "the cluster CA bundle (or removes it when there is none)",
			"Karpenter writes the CA bundle of the cluster it runs in"},
		{"cluster-name", func() (string, bool) { return str(k.ClusterName) }, "the cluster name",
			"Karpenter writes the name of the cluster it runs in"},
		{"max-pods", func() (string, bool) {
			if k.MaxPods == nil {
				return "", false
			}
			return strconv.Itoa(*k.MaxPods), true
		}, "spec.kubelet.maxPods or, without it, the instance type's pod capacity",
			"set max pods with the EC2NodeClass kubelet.maxPods"},
	} {
		if v, ok := o.get(); ok {
			c.add(rules.New(ruleBROverridden, rules.Path{},
				"settings.kubernetes.%s = %s is set, but Karpenter always overwrites it with %s, so the node never gets this value. Drop it from the userData: %s.", o.key, v, o.by, o.fix))
		}
	}
}

// The rules the checks of this file emit.
var (
	ruleTOMLInvalid = rules.Register(rules.Rule{
		ID: "bottlerocket-toml-invalid", Severity: rules.Error, Category: category,
		Title:     "Bottlerocket userData is not valid settings TOML",
		Behaviour: "Karpenter fails launch-template generation with `invalid UserData ...` and launches no node.",
		Source:    "Karpenter bootstrap/bottlerocket.go Script, bottlerocketsettings.go UnmarshalTOML",
		Bad:       nodeClass(onBottlerocket, "[settings.kubernetes]\nmax-pods = \"110\"\n"),
		Good:      nodeClass(onBottlerocket, "[settings.kubernetes]\nallowed-unsafe-sysctls = [\"net.core.somaxconn\"]\n"),
	})
	ruleBRNodeTaints = rules.Register(rules.Rule{
		ID: "bottlerocket-node-taints-dropped", Severity: rules.Warning, Category: category,
		Title:     "settings.kubernetes.node-taints is replaced by Karpenter",
		Behaviour: "Karpenter replaces node-taints wholesale with the NodePool taints and karpenter.sh/unregistered; the user's taints never reach the node.",
		Source:    "Karpenter bootstrap/bottlerocket.go (NodeTaints reset)",
		Bad:       nodeClass(onBottlerocket, "[settings.kubernetes.node-taints]\nteam = [\"a:NoSchedule\"]\n"),
		Good:      poolWith(rules.Block("taints", teamTaint...)),
	})
	ruleBROverridden = rules.Register(rules.Rule{
		ID: "bottlerocket-setting-overridden", Severity: rules.Warning, Category: category,
		Title:     "Bottlerocket setting that Karpenter always overwrites",
		Behaviour: "Karpenter sets cluster-name, api-server, cluster-certificate and max-pods from the cluster and spec.kubelet, whatever the userData says.",
		Source:    "Karpenter bootstrap/bottlerocket.go Script",
		Bad:       nodeClass(onBottlerocket, "[settings.kubernetes]\nmax-pods = 42\n"),
		Good:      classWith(`ami_family = "Bottlerocket"`, `kubelet { max_pods = 42 }`),
	})
	ruleBRUnknown = rules.Register(rules.Rule{
		ID: "bottlerocket-unknown-setting", Severity: rules.Warning, Category: category,
		Title:     "settings.kubernetes key Karpenter does not know",
		Behaviour: "Karpenter re-serialises settings.kubernetes from its typed struct: unknown keys are logged (`Unknown parameter in userData K8s settings`) and dropped from the node's userData.",
		Source:    "Karpenter bootstrap/bottlerocketsettings.go BottlerocketKubernetes, UnmarshalTOML",
		Bad:       nodeClass(onBottlerocket, "[settings.kubernetes]\nnode-label = { team = \"a\" }\n"),
		Good:      nodeClass(onBottlerocket, "[settings.kubernetes.node-labels]\nteam = \"a\"\n"),
	})
)
