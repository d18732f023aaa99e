package amifamily

import (
	"fmt"
	"regexp"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// al2023 is Amazon Linux 2023 (pkg/providers/amifamily/al2023.go): nodeadm
// NodeConfig, an arm64 NVIDIA variant queried from Karpenter 1.4, no a1.
type al2023 struct{ base }

func (al2023) Family() Family                         { return AL2023 }
func (al2023) AliasName() string                      { return "al2023" }
func (al2023) ReleaseShapeProblem(a, v string) string { return eksReleaseProblem(a, v) }

// SSMParameters: A:pkg/providers/amifamily/al2023.go resolvePath.
func (al2023) SSMParameters(version string, k8s versions.Kubernetes, kv versions.Karpenter) ([]Parameter, *Refusal) {
	k := k8s.String()
	path := func(arch, variant string) string {
		name := "recommended"
		if version != LatestVersion {
			name = fmt.Sprintf("amazon-eks-node-al2023-%s-%s-%s-%s", arch, variant, k, version)
		}
		return fmt.Sprintf("/aws/service/eks/optimized-ami/%s/amazon-linux-2023/%s/%s/%s/image_id", k, arch, variant, name)
	}
	out := []Parameter{
		{Name: path("x86_64", "standard"), Arch: "amd64", Variants: []Variant{Standard}},
		{Name: path("x86_64", "nvidia"), Arch: "amd64", Variants: []Variant{NVIDIA}},
		{Name: path("x86_64", "neuron"), Arch: "amd64", Variants: []Variant{Neuron}},
		{Name: path("arm64", "standard"), Arch: "arm64", Variants: []Variant{Standard}},
	}
	if arm64NVIDIA(kv) {
		out = append(out, Parameter{Name: path("arm64", "nvidia"), Arch: "arm64", Variants: []Variant{NVIDIA}})
	}
	return out, nil
}

// arm64NVIDIA: the arm64 nvidia parameter is queried since 1.4.0 (PR #7996).
func arm64NVIDIA(kv versions.Karpenter) bool { return kv.AtLeast(4, 0) }

func (al2023) ReleaseNamePattern(k string) (string, *regexp.Regexp) {
	return "amazon-eks-node-al2023-*-" + k + "-v*", eksReleaseInName
}

func (al2023) ReleaseOfImage(name string) (string, bool) { return submatch(eksReleaseInName, name) }

// SupportsA1: compatibility.go amiFamilyCheck ("a1 instance types are not
// supported with al2023s").
func (al2023) SupportsA1() bool { return false }

func (al2023) Arm64GPUGap(kv versions.Karpenter) string {
	if arm64NVIDIA(kv) {
		return ""
	}
	return fmt.Sprintf("Karpenter %s does not query AL2023's arm64 NVIDIA image (added in Karpenter 1.4, PR #7996)", kv)
}

func (al2023) Arm64GPUUpgrade(kv versions.Karpenter) string {
	if arm64NVIDIA(kv) {
		return ""
	}
	return "Upgrade Karpenter to 1.4 or later"
}

func (al2023) Arm64GPUImage(string) string {
	return "\"al2023@latest\" (arm64 nvidia, EKS AMI ≥ v20250403, Karpenter ≥ 1.4)"
}

func (al2023) Arm64GPUReleaseNote(string) (string, string) {
	return "AL2023 arm64 nvidia images exist from EKS AMI release v20250403", "\"al2023@latest\" or a release from v20250403 on"
}

func (al2023) NeuronImage() string { return "\"al2023@latest\", which has a neuron variant" }

func (al2023) Format() Format         { return FormatNodeadm }
func (al2023) UserDataFormat() string { return "nodeadm NodeConfig (MIME)" }
func (al2023) UserDataAccepts() string {
	return "a NodeConfig document (YAML or JSON), a shell script or a multipart MIME archive"
}
func (al2023) NeedsServiceCIDR() bool { return true }
func (al2023) DefaultBlockDevices() []BlockDevice {
	return []BlockDevice{{Device: "/dev/xvda", GiB: 20}}
}
