package nodepool

import (
	"regexp"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/suggest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// quantityRE is the CRD's pattern on limits values.
var quantityRE = regexp.MustCompile(`^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`)

// standardResources are the resource names without a domain that a node can
// report (core/v1 standard resources), plus Karpenter's "nodes" count.
var standardResources = []string{"cpu", "memory", "ephemeral-storage", "pods", "nodes", "storage"}

func itoa(i int) string { return strconv.Itoa(i) }

// checkSizing: weight, limits, and the static-NodePool rules.
func checkSizing(p Pool, kv versions.Karpenter) rules.Findings {
	var fs rules.Findings
	s := p.Manifest.Spec
	if w := s.Weight; w != nil && !p.Unknown.Is(pathWeight) && (*w < 1 || *w > 100) {
		fs = append(fs, rules.New(ruleWeight, pathWeight,
			"weight = %d is outside 1..100; the API server rejects the NodePool (\"should be greater than or equal to 1\" / \"less than or equal to 100\"). Higher weights are tried first; leave weight null for the lowest priority (Karpenter treats it as 0).", *w))
	}
	fs = append(fs, checkLimits(p)...)
	fs = append(fs, checkStatic(p, kv)...)
	return fs
}

func checkLimits(p Pool) rules.Findings {
	if p.Unknown.Is(pathLimits) {
		return nil
	}
	var fs rules.Findings
	limits := p.Manifest.Spec.Limits
	for _, k := range sortedKeys(limits) {
		lp := pathLimits.Key(k)
		if !strings.Contains(k, "/") && !isStandardResource(k) {
			fs = append(fs, unknownLimit(k, lp))
		}
		if p.Unknown.Is(lp) {
			continue
		}
		v := limits[k]
		q, err := resource.ParseQuantity(v)
		if err != nil || !quantityRE.MatchString(v) {
			why := "it does not match the CRD's quantity pattern"
			if err != nil {
				why = err.Error()
			}
			fs = append(fs, rules.New(ruleLimitInvalid, lp,
				"limits[%q] = %q is not a Kubernetes quantity (%s); the API server rejects the NodePool. Write a number with an optional suffix and no spaces: \"1000\", \"500m\", \"1000Gi\".",
				k, v, why))
			continue
		}
		if q.Sign() < 0 {
			fs = append(fs, rules.New(ruleLimitNegative, lp,
				"limits[%q] = %q is negative: any usage exceeds it, so Karpenter never launches a node for this pool. Use a positive limit, \"0\" to pause the pool on purpose, or remove it.", k, v))
		}
	}
	return fs
}

// extendedShortNames are what people write for extended resources without
// their domain; near-miss suggestions never turn them into a standard
// resource ("gpu" is one letter from "cpu").
var extendedShortNames = map[string]string{
	"gpu": "nvidia.com/gpu", "gpus": "nvidia.com/gpu", "nvidia-gpu": "nvidia.com/gpu", "amd-gpu": "amd.com/gpu",
	"neuron": "aws.amazon.com/neuron", "neuroncore": "aws.amazon.com/neuroncore", "neurondevice": "aws.amazon.com/neurondevice",
	"efa": "vpc.amazonaws.com/efa",
}

// unknownLimit reports a limit on an unprefixed resource no node has: an
// error when the name is one typo from a Kubernetes resource (the cap the
// user meant silently does not exist), a warning otherwise.
func unknownLimit(k string, lp rules.Path) rules.Finding {
	const names = "resource names without a domain are Kubernetes' own: cpu, memory, ephemeral-storage, pods, hugepages-<size>; nodes counts nodes"
	if ext, ok := extendedShortNames[strings.ToLower(k)]; ok {
		return rules.New(ruleLimitResource, lp,
			"limits[%q]: no node has a resource of that name (%s), so this limit never stops the pool from growing. Extended resources need their domain: did you mean %q?", k, names, ext)
	}
	if near := suggest.Closest(k, standardResources); near != "" {
		return rules.New(ruleLimitMisspelled, lp,
			"limits[%q]: no node has a resource of that name (%s), so the pool gets no %s cap at all and grows until the EC2 quota stops it. Did you mean %q?",
			k, names, near, near).WithFix(rules.Fix{Field: pathLimits.Key(near), Acknowledge: true})
	}
	return rules.New(ruleLimitResource, lp,
		"limits[%q]: no node has a resource of that name (%s), so this limit never stops the pool from growing. Extended resources need their domain, e.g. \"nvidia.com/gpu\".", k, names)
}

func isStandardResource(k string) bool {
	if strings.HasPrefix(k, "hugepages-") {
		return true
	}
	for _, r := range standardResources {
		if k == r {
			return true
		}
	}
	return false
}

// checkStatic: CRD rules 2-3 on static pools, replicas ≥ 0, the release
// that introduced them, and the disruption settings they ignore. Nothing is
// decided while replicas is unknown (the pool's mode is not).
func checkStatic(p Pool, kv versions.Karpenter) rules.Findings {
	s := p.Manifest.Spec
	if s.Replicas == nil || p.Unknown.Is(pathReplicas) {
		return nil
	}
	var fs rules.Findings
	if !kv.AtLeast(8, 0) {
		fs = append(fs, rules.New(ruleStaticVersion, pathReplicas,
			"replicas (static NodePools) arrived in Karpenter 1.8.0 (kubernetes-sigs/karpenter#2521); the CRD of Karpenter %s does not know the field, the API server prunes it and the pool silently becomes dynamic (it scales with pending pods). Upgrade Karpenter, or remove replicas and bound the pool with limits instead.", kv).
			WithFix(rules.KarpenterVersion(`"1.8"`)))
	}
	if *s.Replicas < 0 {
		fs = append(fs, rules.New(ruleReplicasNegative, pathReplicas,
			"replicas = %d; the CRD requires at least 0 and the API server rejects the NodePool. Use 0 to keep a static pool empty.", *s.Replicas))
	}
	if !p.Unknown.Is(pathLimits) {
		var other []string
		for _, k := range sortedKeys(s.Limits) {
			if k != "nodes" {
				other = append(other, k)
			}
		}
		if len(other) > 0 {
			fs = append(fs, rules.New(ruleStaticLimits, pathLimits,
				"the pool is static (replicas %d) and sets limits on %s; the API server rejects it (\"only 'limits.nodes' is supported on static NodePools\"). Remove those limits; a limit on nodes caps a static pool.",
				*s.Replicas, strings.Join(other, ", ")).WithFix(rules.Removal(keysOf(pathLimits, other)...)))
		}
	}
	if s.Weight != nil && !p.Unknown.Is(pathWeight) {
		fs = append(fs, rules.New(ruleStaticWeight, pathWeight,
			"the pool is static (replicas = %d) and sets weight = %d; the API server rejects it (\"'weight' is not supported on static NodePools\"): a static pool is not chosen among others for pending pods. Remove weight.",
			*s.Replicas, *s.Weight))
	}
	if d := s.Disruption; d != nil && !p.Unknown.Is(pathDisruption) {
		policySet := d.ConsolidationPolicy != "" && !p.Unknown.Is(pathConsolidationPolicy)
		// consolidate_after is required inside disruption, so it is noise only
		// when nothing else in the block matters.
		onlyConsolidation := d.ConsolidateAfter != nil && len(d.Budgets) == 0 && !p.Unknown.Is(pathBudgets)
		if policySet || onlyConsolidation {
			at := pathConsolidateAfter
			if policySet {
				at = pathConsolidationPolicy
			}
			fs = append(fs, rules.New(ruleStaticDisruption, at,
				"the pool is static (replicas %d): Karpenter keeps exactly that many nodes and ignores consolidationPolicy and consolidateAfter. Remove them; keep disruption only for budgets (which still gate drift and expiration), with consolidateAfter 0s as the required placeholder.",
				*s.Replicas).WithFix(staticDisruptionFix(policySet)))
		}
	}
	return fs
}

// keysOf are the paths of keys in the map at p.
func keysOf(p rules.Path, keys []string) []rules.Path {
	out := make([]rules.Path, len(keys))
	for i, k := range keys {
		out[i] = p.Key(k)
	}
	return out
}

// staticDisruptionFix is what a static pool's disruption keeps: the
// required consolidateAfter placeholder for its budgets, or nothing.
func staticDisruptionFix(policySet bool) rules.Fix {
	if policySet {
		return rules.Fix{Field: pathConsolidationPolicy, Remove: true, And: []rules.Fix{{Field: pathConsolidateAfter, Value: `"0s"`}}}
	}
	return rules.Fix{Field: pathDisruption, Remove: true}
}

// The rules the checks of this file emit.
var (
	ruleWeight = rules.Register(rules.Rule{
		ID: "nodepool-weight-out-of-range", Severity: rules.Error, Category: Category,
		Title:     "weight outside 1..100",
		Behaviour: "The CRD bounds weight to minimum 1, maximum 100; the API server rejects other values. Leave weight unset for the lowest priority (Karpenter treats it as 0).",
		Source:    srcCRD + " weight minimum/maximum",
		Bad:       example(`weight = 0`),
		Good:      example(`weight = 10`),
	})
	ruleLimitInvalid = rules.Register(rules.Rule{
		ID: "nodepool-limit-invalid", Severity: rules.Error, Category: Category,
		Title:     "limit is not a Kubernetes quantity",
		Behaviour: "limits values must match the CRD's quantity pattern and parse as a resource.Quantity (\"1000\", \"500m\", \"1000Gi\"); the API server rejects anything else.",
		Source:    srcCRD + " limits additionalProperties pattern; k8s.io/apimachinery pkg/api/resource ParseQuantity",
		Bad:       example(`limits = { cpu = "1000 cores" }`),
		Good:      example(`limits = { cpu = "1000" }`),
	})
	ruleLimitNegative = rules.Register(rules.Rule{
		ID: "nodepool-limit-negative", Severity: rules.Error, Category: Category,
		Title:     "negative limit",
		Behaviour: "The quantity pattern allows a sign, so the API server accepts \"-1\"; but any usage exceeds a negative limit, so Karpenter never launches a node for the pool (\"all available instance types exceed limits for nodepool\"). Use \"0\" to pause a pool on purpose.",
		Source:    "kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling (NodePool limits ExceededBy)",
		Bad:       example(`limits = { memory = "-1Gi" }`),
		Good:      example(`limits = { memory = "1000Gi" }`),
	})
	ruleLimitResource = rules.Register(rules.Rule{
		ID: "nodepool-limit-unknown-resource", Severity: rules.Warning, Category: Category,
		Title:     "limit on a resource no node has",
		Behaviour: "Karpenter compares limits with the summed capacity of the pool's nodes by resource name. Resource names without a domain are Kubernetes' own (cpu, memory, ephemeral-storage, pods, hugepages-<size>; nodes counts nodes); any other unprefixed name is never reached, so the limit silently limits nothing. A name one typo from one of them is the error nodepool-limit-misspelled; this warning is for other names, such as an extended resource written without its domain.",
		Source:    "k8s.io/api core/v1 ResourceName (standard resources); kubernetes-sigs/karpenter NodePool limits",
		Bad:       example(`limits = { gpu = "16" }`),
		Good:      example(`limits = { "nvidia.com/gpu" = "16" }`),
	})
	ruleLimitMisspelled = rules.Register(rules.Rule{
		ID: "nodepool-limit-misspelled", Severity: rules.Error, Category: Category, Acknowledgeable: true,
		Title:     "limit on a resource name one typo away from a Kubernetes resource",
		Behaviour: "Karpenter compares limits with the summed capacity of the pool's nodes by resource name, and no node has a resource named like a typo of cpu, memory, ephemeral-storage, pods or nodes. The API server accepts any name, so `memroy = \"4000Gi\"` is stored and the pool has no memory cap at all: it grows until the account's EC2 quota stops it.",
		Source:    "k8s.io/api core/v1 ResourceName (standard resources); kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling (NodePool limits ExceededBy)",
		Bad:       example(`limits = { cpu = "1000", memroy = "4000Gi" }`),
		Good:      example(`limits = { cpu = "1000", memory = "4000Gi" }`),
		BadYAML:   rules.NodePoolYAML("  limits:\n    cpu: \"1000\"\n    memroy: 4000Gi\n", "      requirements: []\n"),
		GoodYAML:  rules.NodePoolYAML("  limits:\n    cpu: \"1000\"\n    memory: 4000Gi\n", "      requirements: []\n"),
	})
	ruleReplicasNegative = rules.Register(rules.Rule{
		ID: "nodepool-replicas-negative", Severity: rules.Error, Category: Category,
		Title:     "negative replicas",
		Behaviour: "The CRD sets minimum: 0 on replicas; the API server rejects the NodePool.",
		Source:    srcCRD + " replicas minimum",
		Bad:       example(`replicas = -1`),
		Good:      example(`replicas = 0`),
	})
	ruleStaticVersion = rules.Register(rules.Rule{
		ID: "nodepool-static-before-1-8", Severity: rules.Error, Category: Category,
		Title:     "replicas (static NodePools) need Karpenter 1.8",
		Behaviour: "Static NodePools (replicas) arrived in Karpenter 1.8.0 as an alpha feature (kubernetes-sigs/karpenter#2521). Older CRDs do not know the field: the API server prunes it and the pool silently becomes a dynamic one that scales with pending pods.",
		Source:    "kubernetes-sigs/karpenter#2521 (v1.8.0): pkg/apis/v1/nodepool.go NodePoolSpec.Replicas and its CRD rules",
		Bad:       atVersion("1.7", example(`replicas = 3`)),
		Good:      atVersion("1.8", example(`replicas = 3`)),
	})
	ruleStaticLimits = rules.Register(rules.Rule{
		ID: "nodepool-static-limits", Severity: rules.Error, Category: Category,
		Title:     "static NodePool with limits other than nodes",
		Behaviour: "The CRD rejects the NodePool: \"only 'limits.nodes' is supported on static NodePools\".",
		Source:    srcCRD + " spec x-kubernetes-validations",
		Bad:       example(`replicas = 3`, `limits = { cpu = "100" }`),
		Good:      example(`replicas = 3`, `limits = { nodes = "5" }`),
	})
	ruleStaticWeight = rules.Register(rules.Rule{
		ID: "nodepool-static-weight", Severity: rules.Error, Category: Category,
		Title:     "static NodePool with a weight",
		Behaviour: "The CRD rejects the NodePool: \"'weight' is not supported on static NodePools\".",
		Source:    srcCRD + " spec x-kubernetes-validations",
		Bad:       example(`replicas = 3`, `weight = 10`),
		Good:      example(`replicas = 3`),
	})
	ruleStaticDisruption = rules.Register(rules.Rule{
		ID: "nodepool-static-disruption-ignored", Severity: rules.Warning, Category: Category,
		Title:     "consolidation settings on a static NodePool are ignored",
		Behaviour: "With replicas set, Karpenter keeps exactly that many nodes and ignores disruption.consolidationPolicy and consolidateAfter (the CRD description: \"When replicas is set, ConsolidationPolicy is simply ignored\"); budgets still apply to drift and expiration.",
		Source:    srcCRD + " disruption field descriptions; kubernetes-sigs/karpenter#2521",
		Bad:       example(`replicas = 3`, disruption(`consolidation_policy = "WhenEmpty"`, `consolidate_after = "5m"`)),
		Good:      example(`replicas = 3`, disruption(`consolidate_after = "0s"`, budget(`nodes = "1"`))),
	})
)
