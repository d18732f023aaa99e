package nodepool

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/requirements"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// MaxLabels is the CRD's maxProperties on template.metadata.labels.
const MaxLabels = 100

// labelProblems is Karpenter's validateLabels syntax part: the key a
// qualified name, the value a label value.
func labelProblems(k, v string) []string {
	var out []string
	if k == "" {
		out = append(out, "the key is empty")
	} else {
		for _, e := range validation.IsQualifiedName(k) {
			out = append(out, "key: "+e)
		}
	}
	for _, e := range validation.IsValidLabelValue(v) {
		out = append(out, "value: "+e)
	}
	return out
}

// checkLabels applies the CRD rules 5-8 and maxProperties, and Karpenter's
// validateLabels. The restricted-domain rules are the requirement-key rules
// (same CEL expressions, same IsRestrictedLabel at runtime), so
// requirements.CheckKey reports them; only karpenter.sh/nodepool differs
// (the labels CEL lets it through the domain rule, a rule of its own and a
// labels-specific runtime message reject it).
func checkLabels(p Pool, kv versions.Karpenter) rules.Findings {
	if p.Unknown.Is(pathLabels) {
		return nil
	}
	labels := p.labels()
	var fs rules.Findings
	if len(labels) > MaxLabels {
		fs = append(fs, rules.New(ruleLabelsTooMany, pathLabels,
			"%d labels are set; the NodePool CRD allows at most %d (maxProperties) and the API server rejects the NodePool (\"Too many: %d: must have at most %d items\"). Keep node labels to what pods select on; put other metadata into annotations.",
			len(labels), MaxLabels, len(labels), MaxLabels))
	}
	for _, k := range sortedKeys(labels) {
		lp := pathLabels.Key(k)
		v := labels[k]
		if p.Unknown.Is(lp) {
			v = "" // the key is known (map keys always are); only the value is not
		}
		if probs := labelProblems(k, v); len(probs) > 0 {
			fs = append(fs, rules.New(ruleLabelInvalid, lp,
				"label %q = %q is not valid (%s). The API server rejects invalid values (maxLength 63, ^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$) and Karpenter's runtime validation rejects invalid keys (\"invalid key name %q in labels\"), so the NodePool never becomes ready. Keys are an optional DNS prefix and \"/\" followed by at most 63 of [A-Za-z0-9_.-]; values at most 63 of [A-Za-z0-9_.-], starting and ending alphanumeric.",
				k, v, strings.Join(probs, "; "), k))
		}
		if k == requirements.LabelNodePool {
			fs = append(fs, rules.New(ruleLabelNodePool, lp,
				"%q is set by Karpenter to the pool's name on every node; the API server rejects it as a template label (\"label \\\"karpenter.sh/nodepool\\\" is restricted\") and so does Karpenter (\"invalid key name \\\"karpenter.sh/nodepool\\\" in labels, restricted\"). Remove it: pods already select this pool with nodeSelector karpenter.sh/nodepool: %s.", k, p.Manifest.Metadata.Name))
			continue
		}
		if k != "" {
			fs = append(fs, requirements.CheckKey(k, kv, lp)...)
		}
	}
	return fs
}

// checkLabelConflicts reports template labels on custom keys that a
// requirement on the same key excludes. Well-known keys are left to the
// admission check, which reports that nothing is admitted.
func checkLabelConflicts(p Pool) rules.Findings {
	if p.Unknown.Is(pathLabels) {
		return nil
	}
	reqs, _ := requirements.FromSpecs(Specs(p))
	var fs rules.Findings
	for _, k := range sortedKeys(p.labels()) {
		v := p.labels()[k]
		key := requirements.Normalize(k)
		if p.Unknown.Is(pathLabels.Key(k)) || requirements.IsWellKnown(key) || !reqs.Has(key) {
			continue
		}
		if r := reqs.Get(key); !r.Has(v) {
			fs = append(fs, rules.New(ruleLabelContradicts, pathLabels.Key(k),
				"label %s=%s contradicts the requirement %s: Karpenter adds the labels to the requirements, the intersection allows no value of %s, and no pod that selects %s is ever scheduled onto this pool. Make the label value one the requirement allows, or drop one of the two.",
				k, v, r, k, k))
		}
	}
	return fs
}

// The rules the checks of this file emit.
var (
	ruleLabelInvalid = rules.Register(rules.Rule{
		ID: "nodepool-label-invalid", Severity: rules.Error, Category: Category,
		Title:     "label key or value is not valid",
		Behaviour: "The CRD limits label values to 63 characters of ^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$; keys are not checked by the API server, but Karpenter's runtime validation rejects keys that are not qualified names (\"invalid key name %q in labels\") and the NodePool gets ValidationSucceeded=False.",
		Source:    srcCRD + " template.metadata.labels; " + srcRuntime + " validateLabels",
		Bad:       example(`labels = { "example.com/team" = "data science" }`),
		Good:      example(`labels = { "example.com/team" = "data-science" }`),
	})
	ruleLabelNodePool = rules.Register(rules.Rule{
		ID: "nodepool-label-key-nodepool", Severity: rules.Error, Category: Category,
		Title:     "karpenter.sh/nodepool cannot be a label",
		Behaviour: "Karpenter sets karpenter.sh/nodepool=<pool name> on every node itself. The CRD rejects the label (\"label \\\"karpenter.sh/nodepool\\\" is restricted\") and so does the runtime validation (\"invalid key name \\\"karpenter.sh/nodepool\\\" in labels, restricted\").",
		Source:    srcCRD + " template.metadata.labels x-kubernetes-validations (\"label \\\"karpenter.sh/nodepool\\\" is restricted\"); " + srcRuntime + " validateLabels",
		Bad:       example(`labels = { "karpenter.sh/nodepool" = "gpu" }`),
		Good:      example(`labels = { "example.com/pool" = "gpu" }`),
	})
	ruleLabelsTooMany = rules.Register(rules.Rule{
		ID: "nodepool-labels-too-many", Severity: rules.Error, Category: Category,
		Title:     "more than 100 labels",
		Behaviour: "The CRD sets maxProperties: 100 on template.metadata.labels; the API server rejects the NodePool (\"Too many: 101: must have at most 100 items\").",
		Source:    srcCRD + " template.metadata.labels maxProperties",
		Bad:       example(`labels = { for i in range(101) : "example.com/k${i}" => "v" }`),
		Good:      example(`labels = { "example.com/team" = "a" }`),
	})
	ruleLabelContradicts = rules.Register(rules.Rule{
		ID: "nodepool-label-contradicts-requirement", Severity: rules.Warning, Category: Category,
		Title:     "a label contradicts a requirement on the same key",
		Behaviour: "Karpenter adds the template labels to the pool's requirements (NewLabelRequirements); a label value the requirement does not allow leaves the key with no allowed value, so no pod that selects the key (with either value) is ever scheduled onto this pool.",
		Source:    "kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/nodeclaimtemplate.go NewNodeClaimTemplate",
		Bad:       example(`labels = { "example.com/team" = "a" }`, reqs(req("example.com/team", "In", "b"))),
		Good:      example(`labels = { "example.com/team" = "a" }`, reqs(req("example.com/team", "In", "a"))),
	})
)
