package requirements

import (
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// Category of every rule in this package (docs/guides/rules.md section).
const Category = "NodePool requirements"

// ExamplePool renders a karpenter_nodepool with the given requirements
// blocks (ExampleRequirement), for the docs examples of this package and of
// instancetype.
func ExamplePool(blocks ...string) string {
	return rules.Block(`resource "karpenter_nodepool" "x"`, append([]string{`name = "default"`, `node_class = { name = "default" }`}, blocks...)...)
}

// ExampleRequirement is one requirements block: key, operator and the
// further arguments as written (`values = ["a"]`, `min_values = 2`).
func ExampleRequirement(key, op string, args ...string) string {
	return rules.Block("requirements", append([]string{`key = "` + key + `"`, `operator = "` + op + `"`}, args...)...)
}

// before19 prefixes the provider block that sets karpenter_version to 1.8,
// the last minor release before 1.9 relaxed the requirement rules.
func before19(hcl string) string {
	return rules.WithProvider(hcl, `karpenter_version = "1.8"`)
}

var pool, req = ExamplePool, ExampleRequirement

var (
	ruleTooMany = rules.Register(rules.Rule{
		ID: "requirements-too-many", Severity: rules.Error, Category: Category,
		Title:     "more than 100 requirements",
		Behaviour: "The NodePool CRD limits spec.template.spec.requirements to maxItems 100; the API server rejects the NodePool (\"Too many: N: must have at most 100 items\").",
		Source:    "NodePool CRD (karpenter.sh_nodepools.yaml) requirements maxItems: 100",
		Bad:       pool(rules.Block(`dynamic "requirements"`, `for_each = range(101)`, rules.Block("content", `key = "example.com/k${requirements.value}"`, `operator = "Exists"`))),
		Good:      pool(req("example.com/team", "In", `values = ["a", "b"]`)),
	})
	ruleKeyInvalid = rules.Register(rules.Rule{
		ID: "requirement-key-invalid", Severity: rules.Error, Category: Category,
		Title:     "label or requirement key is not a qualified name",
		Behaviour: "The CRD pattern (and maxLength 316) rejects the key; Karpenter's runtime validation reports \"key %s is not a qualified name\" and marks the NodePool ValidationSucceeded=False.",
		Source:    "NodePool CRD requirements[].key pattern; kubernetes-sigs/karpenter pkg/apis/v1/nodeclaim_validation.go ValidateRequirement (validation.IsQualifiedName)",
		Bad:       pool(req("team name", "In", `values = ["a"]`)),
		Good:      pool(req("example.com/team-name", "In", `values = ["a"]`)),
	})
	ruleValueInvalid = rules.Register(rules.Rule{
		ID: "requirement-value-invalid", Severity: rules.Error, Category: Category,
		Title:     "requirement value is not a valid label value",
		Behaviour: "The CRD's maxLength/pattern sit on the values array, not its items, so the API server accepts the value; Karpenter's runtime validation then reports \"invalid value %s for key %s\" and the NodePool never becomes ready.",
		Source:    "kubernetes-sigs/karpenter pkg/apis/v1/nodeclaim_validation.go ValidateRequirement (validation.IsValidLabelValue); NodePool CRD (aws/karpenter-provider-aws pkg/apis/crds/karpenter.sh_nodepools.yaml) requirements[].values: maxLength and pattern on the array",
		Bad:       pool(req("example.com/team", "In", `values = ["team/a"]`)),
		Good:      pool(req("example.com/team", "In", `values = ["team-a"]`)),
	})
	ruleOperatorUnknown = rules.Register(rules.Rule{
		ID: "requirement-operator-unknown", Severity: rules.Error, Category: Category,
		Title:     "operator is not one Karpenter supports",
		Behaviour: "The CRD enum allows In, NotIn, Exists, DoesNotExist, Gt, Lt (and Gte, Lte from Karpenter 1.9); the API server rejects anything else with \"Unsupported value\".",
		Source:    "NodePool CRD requirements[].operator enum; nodeclaim_validation.go SupportedNodeSelectorOps",
		Bad:       pool(req("kubernetes.io/arch", "in", `values = ["arm64"]`)),
		Good:      pool(req("kubernetes.io/arch", "In", `values = ["arm64"]`)),
	})
	ruleGteLte = rules.Register(rules.Rule{
		ID: "requirement-gte-lte-before-1-9", Severity: rules.Error, Category: Category,
		Title:     "Gte and Lte need Karpenter 1.9 or newer",
		Behaviour: "Gte and Lte were added in kubernetes-sigs/karpenter#2674 and first shipped in v1.9.0; older CRDs reject them as not in the operator enum.",
		Source:    "kubernetes-sigs/karpenter#2674 (v1.9.0); NodePool CRD requirements[].operator enum",
		Bad:       before19(pool(req("karpenter.k8s.aws/instance-cpu", "Gte", `values = ["4"]`))),
		Good:      before19(pool(req("karpenter.k8s.aws/instance-cpu", "Gt", `values = ["3"]`))),
	})
	ruleInWithoutValues = rules.Register(rules.Rule{
		ID: "requirement-in-without-values", Severity: rules.Error, Category: Category,
		Title:     "operator In without values",
		Behaviour: "The CRD rejects the NodePool: \"requirements with operator 'In' must have a value defined\".",
		Source:    "kubernetes-sigs/karpenter pkg/apis/v1/nodepool.go NodeClaimTemplateSpec.Requirements (x-kubernetes-validations)",
		Bad:       pool(req("karpenter.k8s.aws/instance-family", "In", `values = []`)),
		Good:      pool(req("karpenter.k8s.aws/instance-family", "In", `values = ["m5"]`)),
	})
	ruleBoundValue = rules.Register(rules.Rule{
		ID: "requirement-bound-not-single-integer", Severity: rules.Error, Category: Category,
		Title:     "Gt/Lt/Gte/Lte need exactly one non-negative integer",
		Behaviour: "The CRD rejects the NodePool: \"requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' must have a single positive integer value\" (before 1.9: \"requirements operator 'Gt' or 'Lt' must have a single positive integer value\"); a non-integer makes the CEL evaluation itself fail.",
		Source:    "kubernetes-sigs/karpenter pkg/apis/v1/nodepool.go NodeClaimTemplateSpec.Requirements (x-kubernetes-validations)",
		Bad:       pool(req("karpenter.k8s.aws/instance-cpu", "Gt", `values = ["4", "8"]`)),
		Good:      pool(req("karpenter.k8s.aws/instance-cpu", "Gt", `values = ["4"]`)),
	})
	ruleBoundNonNumeric = rules.Register(rules.Rule{
		ID: "requirement-bound-on-non-numeric-label", Severity: rules.Error, Category: Category,
		Title:     "Gt/Lt/Gte/Lte on a label whose values are never integers",
		Behaviour: "Karpenter accepts the requirement, but a bound only admits integer values (scheduling.Requirement withinBounds), and no instance type has an integer value for this label, so the NodePool matches no instance type and never launches a node.",
		Source:    "kubernetes-sigs/karpenter pkg/scheduling/requirement.go withinBounds; aws/karpenter-provider-aws pkg/providers/instancetype/types.go computeRequirements",
		Bad:       pool(req("karpenter.k8s.aws/instance-size", "Gt", `values = ["2"]`)),
		Good:      pool(req("karpenter.k8s.aws/instance-cpu", "Gt", `values = ["2"]`)),
	})
	ruleValuesIgnored = rules.Register(rules.Rule{
		ID: "requirement-values-ignored", Severity: rules.Warning, Category: Category,
		Title:     "values given with Exists or DoesNotExist are ignored",
		Behaviour: "The CRD describes that Exists/DoesNotExist must have no values but no rule enforces it; Karpenter ignores the values, so the requirement does not mean what the values suggest.",
		Source:    "NodePool CRD requirements[].values description; scheduling.NewRequirementWithFlexibility",
		Bad:       pool(req("karpenter.k8s.aws/instance-gpu-count", "Exists", `values = ["1"]`)),
		Good:      pool(req("karpenter.k8s.aws/instance-gpu-count", "In", `values = ["1"]`)),
	})
	ruleMinValuesRange = rules.Register(rules.Rule{
		ID: "requirement-min-values-out-of-range", Severity: rules.Error, Category: Category,
		Title:     "min_values outside 1..50",
		Behaviour: "The CRD bounds minValues to minimum 1, maximum 50; the API server rejects other values (\"should be greater than or equal to 1\" / \"less than or equal to 50\").",
		Source:    "NodePool CRD requirements[].minValues minimum/maximum",
		Bad:       pool(req("karpenter.k8s.aws/instance-family", "Exists", `min_values = 0`)),
		Good:      pool(req("karpenter.k8s.aws/instance-family", "Exists", `min_values = 2`)),
	})
	ruleMinValuesCount = rules.Register(rules.Rule{
		ID: "requirement-min-values-exceeds-values", Severity: rules.Error, Category: Category,
		Title:     "min_values larger than the number of In values",
		Behaviour: "The CRD rejects the NodePool: \"requirements with 'minValues' must have at least that many values specified in the 'values' field\".",
		Source:    "kubernetes-sigs/karpenter pkg/apis/v1/nodepool.go NodeClaimTemplateSpec.Requirements (x-kubernetes-validations)",
		Bad:       pool(req("karpenter.k8s.aws/instance-family", "In", `values = ["m5"]`, `min_values = 2`)),
		Good:      pool(req("karpenter.k8s.aws/instance-family", "In", `values = ["m5", "c5"]`, `min_values = 2`)),
	})
	ruleNoKnownValue = rules.Register(rules.Rule{
		ID: "requirement-no-known-value", Severity: rules.Error, Category: Category,
		Title:     "no value Karpenter knows for this label",
		Behaviour: "For karpenter.sh/capacity-type (on-demand, spot, reserved) and karpenter.k8s.aws/instance-tenancy (default, dedicated), Karpenter's runtime validation fails when In lists none of the known values: \"no valid values found in %v for %s, expected one of: %v, got: %v\"; the NodePool never becomes ready.",
		Source:    "kubernetes-sigs/karpenter pkg/apis/v1/nodeclaim_validation.go validateWellKnownValues; WellKnownValuesForRequirements",
		Bad:       pool(req("karpenter.sh/capacity-type", "In", `values = ["ondemand"]`)),
		Good:      pool(req("karpenter.sh/capacity-type", "In", `values = ["on-demand"]`)),
	})
	ruleMinValuesKnown = rules.Register(rules.Rule{
		ID: "requirement-min-values-exceeds-known-values", Severity: rules.Error, Category: Category,
		Title:     "min_values larger than the number of known values listed",
		Behaviour: "Karpenter's runtime validation fails: \"not enough valid values found in %v for %s, expected at least %d valid values from: %v, got: %v\"; the NodePool never becomes ready.",
		Source:    "kubernetes-sigs/karpenter pkg/apis/v1/nodeclaim_validation.go validateWellKnownValues",
		Bad:       pool(req("karpenter.sh/capacity-type", "In", `values = ["spot", "preemptible"]`, `min_values = 2`)),
		Good:      pool(req("karpenter.sh/capacity-type", "In", `values = ["spot", "on-demand"]`, `min_values = 2`)),
	})
	ruleUnknownValueIgnored = rules.Register(rules.Rule{
		ID: "requirement-unknown-value-ignored", Severity: rules.Warning, Category: Category,
		Title:     "value Karpenter does not know is ignored",
		Behaviour: "Karpenter logs \"please correct found invalid values, proceeding with valid values\" and uses only the known values of karpenter.sh/capacity-type or karpenter.k8s.aws/instance-tenancy. A value one typo from a known one is the error requirement-value-misspelled instead.",
		Source:    "kubernetes-sigs/karpenter pkg/apis/v1/nodeclaim_validation.go validateWellKnownValues",
		Bad:       pool(req("karpenter.sh/capacity-type", "In", `values = ["spot", "preemptible"]`)),
		Good:      pool(req("karpenter.sh/capacity-type", "In", `values = ["spot", "on-demand"]`)),
	})
	ruleKarpenterDomain = rules.Register(rules.Rule{
		ID: "requirement-key-karpenter-domain", Severity: rules.Error, Category: Category,
		Title:     "key in the restricted karpenter.sh domain",
		Behaviour: "The CRD rejects the NodePool: \"label domain \\\"karpenter.sh\\\" is restricted\" (only karpenter.sh/capacity-type is usable; the check is a plain suffix match, so notkarpenter.sh/x is restricted too).",
		Source:    "NodePool CRD requirements[].key x-kubernetes-validations (kubernetes-sigs/karpenter hack/validation/requirements.sh); pkg/apis/v1/labels.go IsRestrictedLabel",
		Bad:       pool(req("karpenter.sh/team", "In", `values = ["a"]`)),
		Good:      pool(req("example.com/team", "In", `values = ["a"]`)),
	})
	ruleNodePoolKey = rules.Register(rules.Rule{
		ID: "requirement-key-nodepool", Severity: rules.Error, Category: Category,
		Title:     "karpenter.sh/nodepool cannot be a requirement key",
		Behaviour: "The CRD rejects it (\"label \\\"karpenter.sh/nodepool\\\" is restricted\") and so does the runtime (\"invalid key: %q in requirements, restricted\"); Karpenter sets the label itself.",
		Source:    "NodePool CRD requirements[].key x-kubernetes-validations; kubernetes-sigs/karpenter pkg/apis/v1/nodepool_validation.go validateRequirementsNodePoolKeyDoesNotExist",
		Bad:       pool(req("karpenter.sh/nodepool", "In", `values = ["default"]`)),
		Good:      pool(req("karpenter.sh/capacity-type", "In", `values = ["on-demand"]`)),
	})
	ruleHostname = rules.Register(rules.Rule{
		ID: "requirement-key-hostname", Severity: rules.Error, Category: Category,
		Title:     "kubernetes.io/hostname cannot be a label or requirement key",
		Behaviour: "The CRD rejects it: \"label \\\"kubernetes.io/hostname\\\" is restricted\"; at runtime it is in RestrictedLabels (\"using label kubernetes.io/hostname is not allowed as it might interfere with the internal provisioning logic\").",
		Source:    "NodePool CRD requirements[].key x-kubernetes-validations; kubernetes-sigs/karpenter pkg/apis/v1/labels.go RestrictedLabels",
		Bad:       pool(req("kubernetes.io/hostname", "Exists")),
		Good:      pool(req("topology.kubernetes.io/zone", "In", `values = ["us-east-1a"]`)),
	})
	ruleAWSDomain = rules.Register(rules.Rule{
		ID: "requirement-key-aws-domain", Severity: rules.Error, Category: Category,
		Title:     "karpenter.k8s.aws key that is not an AWS well-known label",
		Behaviour: "The CRD rejects the NodePool: \"label domain \\\"karpenter.k8s.aws\\\" is restricted\". Only the AWS well-known labels are allowed; karpenter.k8s.aws/instance-pods appears in Karpenter's docs but is not a label at all; placement-group labels exist from v1.11.0.",
		Source:    "NodePool CRD requirements[].key rule (aws/karpenter-provider-aws pkg/apis/crds/karpenter.sh_nodepools.yaml); aws/karpenter-provider-aws pkg/apis/v1/labels.go (the well-known labels; instance-pods is in website/content/en/docs/concepts/scheduling.md only)",
		Bad:       pool(req("karpenter.k8s.aws/instance-pods", "Gt", `values = ["20"]`)),
		Good:      pool(req("karpenter.k8s.aws/instance-cpu", "Gt", `values = ["4"]`)),
	})
	ruleNodeClassKey = rules.Register(rules.Rule{
		ID: "requirement-key-ec2nodeclass", Severity: rules.Error, Category: Category,
		Title:     "karpenter.k8s.aws/ec2nodeclass as a label or requirement passes the CRD but Karpenter rejects it",
		Behaviour: "The CRD allow-list includes the key, but it is not a well-known label, so runtime validation fails (\"using label karpenter.k8s.aws/ec2nodeclass is not allowed as it might interfere with the internal provisioning logic\") and the NodePool gets ValidationSucceeded=False.",
		Source:    "kubernetes-sigs/karpenter pkg/apis/v1/labels.go IsRestrictedLabel (WellKnownLabels); aws/karpenter-provider-aws pkg/apis/crds/karpenter.sh_nodepools.yaml (the allow-list that includes it)",
		Bad:       pool(req("karpenter.k8s.aws/ec2nodeclass", "In", `values = ["default"]`)),
		Good:      pool(req("karpenter.k8s.aws/instance-category", "In", `values = ["m"]`)),
	})
	ruleKubernetesDomain = rules.Register(rules.Rule{
		ID: "requirement-key-kubernetes-domain", Severity: rules.Error, Category: Category,
		Title:     "kubernetes.io / k8s.io key restricted before Karpenter 1.9",
		Behaviour: "Up to v1.8.x the CRD rejects keys in the kubernetes.io and k8s.io domains (\"label domain \\\"kubernetes.io\\\" is restricted\" / \"label domain \\\"k8s.io\\\" is restricted\") except the well-known labels, *node.kubernetes.io, *node-restriction.kubernetes.io and kops.k8s.io; from v1.9.0 they are allowed (kubernetes-sigs/karpenter#2586).",
		Source:    "kubernetes-sigs/karpenter hack/validation/requirements.sh (≤v1.8), PR #2586",
		Bad:       before19(pool(req("node-role.kubernetes.io/worker", "Exists"))),
		Good:      before19(pool(req("node.kubernetes.io/worker", "Exists"))),
	})
)
