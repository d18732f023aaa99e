package requirements

import (
	"slices"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/suggest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

var ruleValueMisspelled = rules.Register(rules.Rule{
	ID: "requirement-value-misspelled", Severity: rules.Error, Category: Category, Acknowledgeable: true,
	Title: "value one typo away from a value Karpenter knows for this label",
	Behaviour: "karpenter.sh/capacity-type, karpenter.k8s.aws/instance-tenancy, kubernetes.io/arch and kubernetes.io/os have a closed set of values. " +
		"Karpenter drops a capacity type or tenancy it does not know when another value is valid (\"please correct found invalid values, proceeding with valid values\"), " +
		"so `values = [\"spot\", \"ondemand\"]` makes the pool spot-only; no instance type carries an architecture or OS outside the set, so " +
		"`kubernetes.io/arch In [\"amd64\", \"arm\"]` silently loses arm64 (and with NotIn the typo excludes nothing). Nothing fails at apply: the pool just launches other nodes than meant.",
	Source: "kubernetes-sigs/karpenter pkg/apis/v1/nodeclaim_validation.go validateWellKnownValues (WellKnownValuesForRequirements); " +
		"aws/karpenter-provider-aws pkg/providers/instancetype/types.go computeRequirements (kubernetes.io/arch amd64/arm64, kubernetes.io/os linux/windows)",
	Bad:      pool(req(LabelCapacityType, "In", `values = ["spot", "ondemand"]`)),
	Good:     pool(req(LabelCapacityType, "In", `values = ["spot", "on-demand"]`)),
	BadYAML:  rules.NodePoolYAML("", yamlReqIn(LabelCapacityType, `["spot", "ondemand"]`)),
	GoodYAML: rules.NodePoolYAML("", yamlReqIn(LabelCapacityType, `["spot", "on-demand"]`)),
})

// yamlReqIn is spec.template.spec.requirements with one In requirement,
// for the YAML examples.
func yamlReqIn(key, values string) string {
	return "      requirements:\n        - key: " + key + "\n          operator: In\n          values: " + values + "\n"
}

// closedValues are the well-known labels outside knownValues whose values
// are a fixed set: what EC2 and Karpenter put on every instance type.
var closedValues = map[string][]string{
	LabelArch: {"amd64", "arm64"},
	LabelOS:   {"linux", "windows"},
}

// valueAliases are other tools' spellings of the same value (EC2's and
// uname's architecture names, which AMI names carry): no edit distance
// finds them, and they are never a Kubernetes value.
var valueAliases = map[string]map[string]string{
	LabelArch: {
		"x86_64": "amd64", "x86-64": "amd64", "x86": "amd64", "x64": "amd64", "amd": "amd64", "intel": "amd64",
		"aarch64": "arm64", "arm": "arm64", "arm-64": "arm64", "graviton": "arm64",
	},
}

// NearMiss returns the value that v, a value of the well-known label key
// with a closed set of values, misspells ("ondemand" → "on-demand",
// "x86_64" → "amd64", "Linux" → "linux"), or "" when v is one of the
// values, key has no closed set, or v is not close to any of them.
func NearMiss(key, v string, kv versions.Karpenter) string {
	key = Normalize(key)
	values := KnownValues(key, kv)
	if values == nil {
		values = closedValues[key]
	}
	if values == nil || slices.Contains(values, v) {
		return ""
	}
	if a, ok := valueAliases[key][strings.ToLower(v)]; ok {
		return a
	}
	return suggest.Closest(v, values)
}

// closedSet returns the values of a label with a closed set, or nil.
func closedSet(key string, kv versions.Karpenter) []string {
	if vs := KnownValues(key, kv); vs != nil {
		return vs
	}
	return closedValues[key]
}

// checkNearMisses reports the In/NotIn values of a closed-set label that
// misspell one of its values. Labels in knownValues whose In lists no
// known value at all are requirement-no-known-value's (Karpenter fails the
// pool; that error names the value meant too).
func checkNearMisses(s Spec, key string, op Operator, kv versions.Karpenter, p rules.Path) rules.Findings {
	if op != In && op != NotIn {
		return nil
	}
	set := closedSet(key, kv)
	if set == nil {
		return nil
	}
	var valid []string
	type miss struct{ v, meant string }
	var misses []miss
	for _, v := range s.Values {
		if slices.Contains(set, v) {
			valid = append(valid, v)
		} else if m := NearMiss(key, v, kv); m != "" {
			misses = append(misses, miss{v, m})
		}
	}
	if op == In && len(valid) == 0 && KnownValues(key, kv) != nil {
		return nil
	}
	var fs rules.Findings
	for _, m := range misses {
		meant := slices.Clone(s.Values)
		meant[slices.Index(meant, m.v)] = m.meant
		fs = append(fs, rules.New(ruleValueMisspelled, p.Attr("values"),
			"%s %s: %q is not a value of %s (%s); %s Did you mean %q?",
			s.Key, op, m.v, key, quoteList(set), effectOfMiss(key, op, valid, kv), m.meant).
			WithFix(rules.Fix{Value: quoteList(meant), Acknowledge: true}))
	}
	return fs
}

// effectOfMiss says what Karpenter does with a misspelled value, given
// the valid values next to it.
func effectOfMiss(key string, op Operator, valid []string, kv versions.Karpenter) string {
	switch {
	case op == NotIn:
		return "it excludes nothing, so what it was meant to keep out is admitted."
	case KnownValues(key, kv) != nil:
		return "Karpenter drops it (\"please correct found invalid values, proceeding with valid values\") and uses only " + quoteList(valid) + ", so the pool silently never launches what the typo meant."
	case len(valid) > 0:
		return "no instance type carries it, so the pool uses only " + quoteList(valid) + " and silently never launches what the typo meant."
	default:
		return "no instance type carries it, so the pool admits no instance type and never launches a node."
	}
}
