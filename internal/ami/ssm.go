package ami

import (
	"slices"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// SSMParameters returns the SSM parameters Karpenter (at release kv) reads for
// alias a on Kubernetes k8s, in a stable order. It returns an error finding
// at p when Karpenter refuses the alias on that Kubernetes version.
func SSMParameters(a Alias, k8s versions.Kubernetes, kv versions.Karpenter, p rules.Path) ([]amifamily.Parameter, rules.Findings) {
	m := a.Family.Model()
	if m.AliasName() == "" {
		return nil, rules.Findings{rules.New(RuleAliasFamily, p, "%s", familyError(string(a.Family), kv))}
	}
	qs, refusal := m.SSMParameters(a.Version, k8s, kv)
	if refusal != nil {
		rule := RuleWindows2025Kubernetes
		if refusal.TooNew {
			rule = RuleAL2Kubernetes
		}
		return nil, rules.Findings{rules.New(rule, p, "%s", refusal.Detail)}
	}
	return qs, nil
}

// ParameterMap keys the parameters by "<arch>/<variant>": the parameter whose
// image an instance of that architecture and accelerator gets. Impossible
// combinations (AL2 arm64 nvidia, any arm64 neuron, Windows arm64) are
// absent. Windows' one image serves every amd64 variant.
func ParameterMap(qs []amifamily.Parameter) map[string]string {
	out := map[string]string{}
	for _, q := range qs {
		vs := q.Variants
		if vs == nil {
			vs = []amifamily.Variant{amifamily.Standard, amifamily.NVIDIA, amifamily.Neuron}
		}
		for _, v := range vs {
			out[q.Arch+"/"+string(v)] = q.Name
		}
	}
	return out
}

// ParameterNames returns the distinct names, sorted.
func ParameterNames(qs []amifamily.Parameter) []string {
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = q.Name
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// The rules the checks of this file emit.
var (
	RuleAL2Kubernetes = rules.Register(rules.Rule{
		ID: "alias-al2-unsupported-kubernetes", Severity: rules.Error, Category: category,
		Title:     "AL2 aliases are refused on Kubernetes 1.33 and later",
		Behaviour: "Karpenter sets AMIsReady=False (UnsupportedAlias) with \"AL2 aliases are no longer supported on EKS 1.33+\"; EKS publishes no AL2 AMIs for 1.33+.",
		Source:    "A:pkg/providers/amifamily/ami.go DescribeImageQueries (AL2DeprecationError, PR #8151)",
		Bad:       rules.Body("# cluster on Kubernetes 1.33", term(`alias = "al2@latest"`)),
		Good:      term(`alias = "al2023@latest"`),
	})
	RuleWindows2025Kubernetes = rules.Register(rules.Rule{
		ID: "alias-windows2025-unsupported-kubernetes", Severity: rules.Error, Category: category,
		Title:     "Windows Server 2025 needs Kubernetes 1.35",
		Behaviour: "Karpenter sets AMIsReady=False (UnsupportedAlias): \"Windows Server 2025 requires EKS version 1.35 or higher, current version: <v>\".",
		Source:    "A:pkg/providers/amifamily/ami.go DescribeImageQueries (WS2025UnsupportedVersionError)",
		Bad:       rules.Body("# cluster on Kubernetes 1.32", term(`alias = "windows2025@latest"`)),
		Good:      term(`alias = "windows2022@latest"`),
	})
)
