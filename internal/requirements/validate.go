package requirements

import (
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/suggest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// Limits of the NodePool CRD.
const (
	MaxRequirements = 100
	MaxKeyLength    = 316
	MinMinValues    = 1
	MaxMinValues    = 50
)

// Root is the attribute the requirement list lives in, in both the NodePool
// resource and the karpenter_instance_types data source.
var Root = rules.Root("requirements")

// Validate checks NodePool requirements as the CRD of Karpenter v (CEL rules
// 14-20, patterns, enums, limits) and Karpenter's runtime validation
// (ValidateRequirement) would, plus mistakes both accept but that can never
// match (a bound on a non-numeric label). Findings are pathed
// requirements[i].key/operator/values/min_values. Unknown parts are skipped.
func Validate(specs []Spec, v versions.Karpenter) rules.Findings {
	var fs rules.Findings
	if len(specs) > MaxRequirements {
		fs = append(fs, rules.New(ruleTooMany, Root,
			"%d requirements are listed; the NodePool CRD allows at most %d (maxItems). Merge requirements on the same key (values of In lists are ORed) or drop redundant ones.", len(specs), MaxRequirements))
	}
	for i, s := range specs {
		fs = append(fs, ValidateOne(s, v, Root.Index(i))...)
	}
	return fs
}

// ValidateOne checks one requirement at path p (the list element).
func ValidateOne(s Spec, v versions.Karpenter, p rules.Path) rules.Findings {
	var fs rules.Findings
	key := Normalize(s.Key)
	if !s.Unknown.Key {
		keyFs := append(checkKeySyntax(s.Key, p.Attr("key")), CheckKey(s.Key, v, p.Attr("key"))...)
		if len(keyFs) == 0 {
			keyFs = checkMisspelledKey(s.Key, p.Attr("key"))
		}
		fs = append(fs, keyFs...)
	}
	op := Operator(s.Operator)
	opKnown := !s.Unknown.Operator
	if opKnown {
		if f, ok := checkOperator(s, v, p.Attr("operator")); ok {
			fs = append(fs, f)
			opKnown = false // the rest would only repeat the problem
		}
	}
	for _, val := range s.Values {
		if errs := validation.IsValidLabelValue(val); len(errs) > 0 {
			fs = append(fs, rules.New(ruleValueInvalid, p.Attr("values"),
				"%q is not a valid label value (%s). The API server accepts it because the CRD's pattern sits on the array, but Karpenter's runtime validation fails (\"invalid value %s for key %s\") and the NodePool never becomes ready. Label values are at most 63 characters of [A-Za-z0-9_.-], starting and ending alphanumeric, with no \"/\".", val, strings.Join(errs, "; "), val, s.Key))
		}
	}
	valuesKnown := !s.Unknown.Values
	if opKnown && valuesKnown {
		fs = append(fs, checkValuesForOperator(s, op, key, v, p)...)
	}
	if !s.Unknown.MinValues && s.MinValues != nil {
		fs = append(fs, checkMinValues(s, op, opKnown, valuesKnown, p)...)
	}
	if opKnown && valuesKnown && !s.Unknown.Key {
		fs = append(fs, checkNearMisses(s, key, op, v, p)...)
		if op == In {
			fs = append(fs, checkKnownValues(s, key, v, p)...)
			fs = append(fs, checkZoneValues(s, key, p)...)
		}
	}
	return fs
}

func checkKeySyntax(key string, p rules.Path) rules.Findings {
	var problems []string
	if key == "" {
		problems = append(problems, "the key is empty")
	} else {
		problems = append(problems, validation.IsQualifiedName(key)...)
	}
	if len(key) > MaxKeyLength {
		problems = append(problems, "the CRD limits keys to 316 characters")
	}
	if len(problems) == 0 {
		return nil
	}
	return rules.Findings{rules.New(ruleKeyInvalid, p,
		"%q is not a qualified label name: %s. The CRD pattern rejects it and Karpenter reports \"key %s is not a qualified name\". Write an optional DNS-subdomain prefix and \"/\" followed by a name of at most 63 characters, e.g. \"example.com/team\".", key, strings.Join(problems, "; "), key)}
}

func checkOperator(s Spec, v versions.Karpenter, p rules.Path) (rules.Finding, bool) {
	op := Operator(s.Operator)
	if !slices.Contains(Operators, op) {
		hint := ""
		for _, known := range Operators {
			if strings.EqualFold(string(known), s.Operator) {
				hint = " Operators are case-sensitive: write \"" + string(known) + "\"."
			}
		}
		return rules.New(ruleOperatorUnknown, p,
			"%q is not a NodePool requirement operator; the API server rejects it (\"Unsupported value\"). Use one of In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte (Gte/Lte from Karpenter 1.9).%s", s.Operator, hint), true
	}
	if (op == Gte || op == Lte) && !v.AtLeast(9, 0) {
		alt, n := "Gt", "N-1"
		if op == Lte {
			alt, n = "Lt", "N+1"
		}
		return rules.New(ruleGteLte, p,
			"%s was added in Karpenter 1.9.0 (kubernetes-sigs/karpenter#2674); the checks run against Karpenter %s, whose CRD rejects it as an unsupported operator. Write %s with %s (e.g. %s [\"3\"] instead of Gte [\"4\"]), or upgrade Karpenter to 1.9 or later.", op, v, alt, n, alt).
			WithFix(rules.KarpenterVersion(`"1.9"`)), true
	}
	return rules.Finding{}, false
}

func checkValuesForOperator(s Spec, op Operator, key string, v versions.Karpenter, p rules.Path) rules.Findings {
	var fs rules.Findings
	switch {
	case op == In && len(s.Values) == 0:
		fs = append(fs, rules.New(ruleInWithoutValues, p.Attr("values"),
			"%s In [] matches nothing, and the CRD rejects it: \"requirements with operator 'In' must have a value defined\". List the allowed values, or use Exists to allow any value.", s.Key))
	case op.IsBound():
		if _, ok := boundValue(s.Values); !ok {
			msg := "requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' must have a single positive integer value"
			if !v.AtLeast(9, 0) {
				msg = "requirements operator 'Gt' or 'Lt' must have a single positive integer value"
			}
			fs = append(fs, rules.New(ruleBoundValue, p.Attr("values"),
				"%s %s needs exactly one non-negative integer, got %s. The CRD rejects it: \"%s\". Write e.g. values = [\"4\"].", s.Key, op, quoteList(s.Values), msg))
		} else if IsWellKnown(key) && !IsNumeric(key) {
			fs = append(fs, rules.New(ruleBoundNonNumeric, p.Attr("operator"),
				"%s %s %s: the values of %s are never integers, and a bound only admits integers, so this requirement matches no instance type and the NodePool never launches a node. Use In/NotIn with the values you mean%s.", s.Key, op, s.Values[0], key, numericHint(key)))
		}
	case (op == Exists || op == DoesNotExist) && len(s.Values) > 0:
		fs = append(fs, rules.New(ruleValuesIgnored, p.Attr("values"),
			"%s %s ignores the values %s; Karpenter treats the requirement as plain %s. Remove the values, or use In/NotIn if you meant to constrain them.", s.Key, op, quoteList(s.Values), op))
	}
	return fs
}

func numericHint(key string) string {
	switch key {
	case LabelInstanceSize, LabelInstanceType, LabelInstanceFamily:
		return ", or bound karpenter.k8s.aws/instance-cpu / -memory / -generation, which are numeric"
	}
	return ""
}

func checkMinValues(s Spec, op Operator, opKnown, valuesKnown bool, p rules.Path) rules.Findings {
	mv := *s.MinValues
	if mv < MinMinValues || mv > MaxMinValues {
		return rules.Findings{rules.New(ruleMinValuesRange, p.Attr("min_values"),
			"minValues %d is outside 1..50; the CRD rejects it. minValues is how many distinct values of %s the launched instance types must cover; write a number from 1 to 50 or leave it out.", mv, s.Key)}
	}
	if opKnown && valuesKnown && op == In && len(s.Values) < mv {
		return rules.Findings{rules.New(ruleMinValuesCount, p.Attr("min_values"),
			"minValues %d but %s In lists only %d value(s) %s; the CRD rejects it (\"requirements with 'minValues' must have at least that many values specified in the 'values' field\"). List at least %d values or lower minValues.", mv, s.Key, len(s.Values), quoteList(s.Values), mv)}
	}
	return nil
}

func checkKnownValues(s Spec, key string, kv versions.Karpenter, p rules.Path) rules.Findings {
	known := KnownValues(key, kv)
	if known == nil {
		return nil
	}
	var valid, invalid, ignored []string
	for _, v := range s.Values {
		if slices.Contains(known, v) {
			valid = append(valid, v)
			continue
		}
		invalid = append(invalid, v+suggest.Hint(v, known))
		if NearMiss(key, v, kv) == "" {
			// A near miss is requirement-value-misspelled's, unless
			// nothing is valid (then the pool fails, reported below).
			ignored = append(ignored, v)
		}
	}
	switch {
	case len(valid) == 0:
		return rules.Findings{rules.New(ruleNoKnownValue, p.Attr("values"),
			"%s In %s lists no value Karpenter knows; it fails the NodePool (\"no valid values found in %v for %s, expected one of: %v\"). Use some of %s; unknown: %s.", key, quoteList(s.Values), s.Values, key, known, quoteList(known), strings.Join(invalid, ", "))}
	case s.MinValues != nil && len(valid) < *s.MinValues:
		return rules.Findings{rules.New(ruleMinValuesKnown, p.Attr("min_values"),
			"minValues %d but only %d of %s are values Karpenter knows for %s (%s); it fails the NodePool (\"not enough valid values found in %v for %s, expected at least %d valid values\"). Known values: %s.", *s.MinValues, len(valid), quoteList(s.Values), key, quoteList(valid), s.Values, key, *s.MinValues, quoteList(known))}
	case len(ignored) > 0:
		return rules.Findings{rules.New(ruleUnknownValueIgnored, p.Attr("values"),
			"%s: Karpenter ignores %s (\"please correct found invalid values, proceeding with valid values\") and uses only %s. Known values: %s.", key, quoteList(ignored), quoteList(valid), quoteList(known))}
	}
	return nil
}

func quoteList(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = strconv.Quote(v)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// The rules the checks of this file emit.
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
)
