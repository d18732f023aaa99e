package requirements

import (
	"strconv"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/suggest"
)

var ruleKeyMisspelled = rules.Register(rules.Rule{
	ID: "requirement-key-misspelled", Severity: rules.Warning, Category: Category,
	Title:     "requirement key is one typo away from a well-known label",
	Behaviour: "Karpenter treats a key it does not know as a custom label: the requirement does not constrain the well-known label it resembles (a misspelled kubernetes.io/arch leaves both architectures admitted), and with In every node is labelled with the misspelled key. From Karpenter 1.9 the CRD no longer restricts the kubernetes.io domain, so nothing else reports it.",
	Source:    "kubernetes-sigs/karpenter pkg/apis/v1/labels.go WellKnownLabels; pkg/scheduling/requirements.go (custom labels)",
	Bad:       pool(req("kubernetes.io/archh", "In", `values = ["arm64"]`)),
	Good:      pool(req("kubernetes.io/arch", "In", `values = ["arm64"]`)),
	BadYAML:   rules.NodePoolYAML("", yamlReqIn("kubernetes.io/archh", `["arm64"]`)),
	GoodYAML:  rules.NodePoolYAML("", yamlReqIn("kubernetes.io/arch", `["arm64"]`)),
})

// checkMisspelledKey warns about a key that is not well-known but is a typo
// of one; called only when no error was found on the key.
func checkMisspelledKey(key string, p rules.Path) rules.Findings {
	if _, known := wellKnown[Normalize(key)]; known {
		return nil
	}
	near := suggest.Closest(key, WellKnownLabels())
	if near == "" {
		return nil
	}
	return rules.Findings{rules.New(ruleKeyMisspelled, p,
		"%q is not a label Karpenter knows, but %q is: Karpenter would treat %q as a custom label, so this requirement does not constrain %s, and nodes get the label %q. Did you mean %q?",
		key, near, key, near, key, near).WithFix(rules.Fix{Value: strconv.Quote(near), Acknowledge: true})}
}
