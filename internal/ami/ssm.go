package ami

import (
	"fmt"
	"sort"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// ParameterQuery is one SSM parameter Karpenter reads for an alias, and what
// an image found there serves.
type ParameterQuery struct {
	Name string
	// Arch is the Kubernetes architecture the path is for (amd64/arm64);
	// the image's own Architecture field still decides (Karpenter reads it
	// from DescribeImages: pkg/providers/amifamily/ami.go).
	Arch string
	// Variants the image serves; nil for Windows, whose image carries no
	// variant requirements and serves every amd64 instance.
	Variants []Variant
}

// SSMParameters returns the SSM parameters Karpenter (at release kv) reads for
// alias a on Kubernetes k8s, in a stable order. It returns an error finding
// at p when Karpenter refuses the alias on that Kubernetes version.
func SSMParameters(a Alias, k8s versions.Kubernetes, kv versions.Karpenter, p rules.Path) ([]ParameterQuery, rules.Findings) {
	k := k8s.String()
	switch a.Family {
	case AL2:
		// A:pkg/providers/amifamily/ami.go DescribeImageQueries: AL2DeprecationError.
		if k8s.AtLeast(33) {
			return nil, rules.Findings{rules.New(RuleAL2Kubernetes, p,
				"alias %q on Kubernetes %s: Karpenter refuses it with \"AL2 aliases are no longer supported on EKS 1.33+\" (AMIsReady=False, UnsupportedAlias) and EKS publishes no AL2 AMIs for 1.33+. Use \"al2023@latest\" (or a pinned al2023@vYYYYMMDD) and migrate userData to nodeadm, or \"bottlerocket@latest\".",
				a, k)}
		}
		leaf := func(prefix string) string {
			if a.Latest() {
				return "recommended"
			}
			return fmt.Sprintf("%s-%s-%s", prefix, k, a.Version)
		}
		base := "/aws/service/eks/optimized-ami/" + k
		return []ParameterQuery{
			{Name: fmt.Sprintf("%s/amazon-linux-2/%s/image_id", base, leaf("amazon-eks-node")), Arch: "amd64", Variants: []Variant{Standard}},
			{Name: fmt.Sprintf("%s/amazon-linux-2-arm64/%s/image_id", base, leaf("amazon-eks-arm64-node")), Arch: "arm64", Variants: []Variant{Standard}},
			// The GPU AMI serves both NVIDIA and Neuron (al2.go).
			{Name: fmt.Sprintf("%s/amazon-linux-2-gpu/%s/image_id", base, leaf("amazon-eks-gpu-node")), Arch: "amd64", Variants: []Variant{Neuron, NVIDIA}},
		}, nil
	case AL2023:
		// A:pkg/providers/amifamily/al2023.go resolvePath.
		path := func(arch, variant string) string {
			name := "recommended"
			if !a.Latest() {
				name = fmt.Sprintf("amazon-eks-node-al2023-%s-%s-%s-%s", arch, variant, k, a.Version)
			}
			return fmt.Sprintf("/aws/service/eks/optimized-ami/%s/amazon-linux-2023/%s/%s/%s/image_id", k, arch, variant, name)
		}
		out := []ParameterQuery{
			{Name: path("x86_64", "standard"), Arch: "amd64", Variants: []Variant{Standard}},
			{Name: path("x86_64", "nvidia"), Arch: "amd64", Variants: []Variant{NVIDIA}},
			{Name: path("x86_64", "neuron"), Arch: "amd64", Variants: []Variant{Neuron}},
			{Name: path("arm64", "standard"), Arch: "arm64", Variants: []Variant{Standard}},
		}
		// arm64 nvidia is queried since 1.4.0 (PR #7996).
		if kv.AtLeast(4, 0) {
			out = append(out, ParameterQuery{Name: path("arm64", "nvidia"), Arch: "arm64", Variants: []Variant{NVIDIA}})
		}
		return out, nil
	case Bottlerocket:
		// A:pkg/providers/amifamily/bottlerocket.go; strings.TrimLeft strips every leading v.
		v := strings.TrimLeft(a.Version, "v")
		base := "/aws/service/bottlerocket/aws-k8s-" + k
		x86Std, nvidia := []Variant{Standard}, []Variant{NVIDIA}
		switch {
		case kv.AtLeast(3, 0):
			// Neuron rides on the standard x86_64 image since 1.3.0 (PR #7722).
			x86Std = []Variant{Standard, Neuron}
		case !kv.AtLeast(1, 0):
			// 1.0.x gave Neuron instances the NVIDIA image.
			nvidia = []Variant{NVIDIA, Neuron}
		}
		return []ParameterQuery{
			{Name: fmt.Sprintf("%s/x86_64/%s/image_id", base, v), Arch: "amd64", Variants: x86Std},
			{Name: fmt.Sprintf("%s/arm64/%s/image_id", base, v), Arch: "arm64", Variants: []Variant{Standard}},
			{Name: fmt.Sprintf("%s-nvidia/x86_64/%s/image_id", base, v), Arch: "amd64", Variants: nvidia},
			{Name: fmt.Sprintf("%s-nvidia/arm64/%s/image_id", base, v), Arch: "arm64", Variants: nvidia},
		}, nil
	case Windows2019, Windows2022, Windows2025:
		if a.Family == Windows2025 && !k8s.AtLeast(35) {
			return nil, rules.Findings{rules.New(RuleWindows2025Kubernetes, p,
				"alias %q on Kubernetes %s: Karpenter refuses it with \"Windows Server 2025 requires EKS version 1.35 or higher, current version: %s\" (AMIsReady=False, UnsupportedAlias). Use \"windows2022@latest\", or upgrade the cluster to 1.35.",
				a, k, k)}
		}
		// A:pkg/providers/amifamily/windows.go: only the Core edition, always latest.
		return []ParameterQuery{{
			Name: fmt.Sprintf("/aws/service/ami-windows-latest/Windows_Server-%s-English-Core-EKS_Optimized-%s/image_id", a.Family.WindowsYear(), k),
			Arch: "amd64",
		}}, nil
	}
	return nil, rules.Findings{rules.New(RuleAliasFamily, p, "%s", familyError(string(a.Family), kv))}
}

// ParameterMap keys the parameters by "<arch>/<variant>": the parameter whose
// image an instance of that architecture and accelerator gets. Impossible
// combinations (AL2 arm64 nvidia, any arm64 neuron, Windows arm64) are
// absent. Windows' one image serves every amd64 variant.
func ParameterMap(qs []ParameterQuery) map[string]string {
	out := map[string]string{}
	for _, q := range qs {
		vs := q.Variants
		if vs == nil {
			vs = []Variant{Standard, NVIDIA, Neuron}
		}
		for _, v := range vs {
			out[q.Arch+"/"+string(v)] = q.Name
		}
	}
	return out
}

// ParameterNames returns the distinct names, sorted.
func ParameterNames(qs []ParameterQuery) []string {
	seen := map[string]bool{}
	var out []string
	for _, q := range qs {
		if !seen[q.Name] {
			seen[q.Name] = true
			out = append(out, q.Name)
		}
	}
	sort.Strings(out)
	return out
}
