package amifamily

import (
	"fmt"
	"regexp"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// al2 is Amazon Linux 2 (pkg/providers/amifamily/al2.go): bootstrap.sh,
// no arm64 GPU image, refused from Kubernetes 1.33.
type al2 struct{ base }

var (
	eksReleaseShape  = regexp.MustCompile(`^v\d{8}$`)
	eksReleaseInName = regexp.MustCompile(eksReleaseExpr)
	eksDigits        = regexp.MustCompile(`^\d{8}$`)
)

func (al2) Family() Family                         { return AL2 }
func (al2) AliasName() string                      { return "al2" }
func (al2) ReleaseShapeProblem(a, v string) string { return eksReleaseProblem(a, v) }

// eksReleaseProblem: AL2 and AL2023 releases are vYYYYMMDD.
func eksReleaseProblem(alias, version string) string {
	if eksReleaseShape.MatchString(version) {
		return ""
	}
	hint := "e.g. \"v20251209\""
	if eksDigits.MatchString(version) {
		hint = fmt.Sprintf("%q (with the leading v)", "v"+version)
	}
	return fmt.Sprintf("%q: EKS AMI releases are named `vYYYYMMDD` and the version is spliced verbatim into the SSM parameter name, so %q resolves nothing. Write %s.", alias, version, hint)
}

// SSMParameters: A:pkg/providers/amifamily/al2.go; ami.go
// DescribeImageQueries refuses AL2 from 1.33 (AL2DeprecationError).
func (al2) SSMParameters(version string, k8s versions.Kubernetes, _ versions.Karpenter) ([]Parameter, *Refusal) {
	k := k8s.String()
	if k8s.AtLeast(33) {
		return nil, &Refusal{TooNew: true, Detail: fmt.Sprintf(
			"alias %q on Kubernetes %s: Karpenter refuses it with \"AL2 aliases are no longer supported on EKS 1.33+\" (AMIsReady=False, UnsupportedAlias) and EKS publishes no AL2 AMIs for 1.33+. Use \"al2023@latest\" (or a pinned al2023@vYYYYMMDD) and migrate userData to nodeadm, or \"bottlerocket@latest\".",
			"al2@"+version, k)}
	}
	leaf := func(prefix string) string {
		if version == LatestVersion {
			return "recommended"
		}
		return fmt.Sprintf("%s-%s-%s", prefix, k, version)
	}
	base := "/aws/service/eks/optimized-ami/" + k
	return []Parameter{
		{Name: fmt.Sprintf("%s/amazon-linux-2/%s/image_id", base, leaf("amazon-eks-node")), Arch: "amd64", Variants: []Variant{Standard}},
		{Name: fmt.Sprintf("%s/amazon-linux-2-arm64/%s/image_id", base, leaf("amazon-eks-arm64-node")), Arch: "arm64", Variants: []Variant{Standard}},
		// The GPU AMI serves both NVIDIA and Neuron; there is no arm64 one
		// (Arm64GPUGap).
		{Name: fmt.Sprintf("%s/amazon-linux-2-gpu/%s/image_id", base, leaf("amazon-eks-gpu-node")), Arch: "amd64", Variants: []Variant{Neuron, NVIDIA}},
	}, nil
}

func (al2) ReleaseNamePattern(k string) (string, *regexp.Regexp) {
	return "amazon-eks-node-" + k + "-v*", eksReleaseInName
}

func (al2) ReleaseOfImage(name string) (string, bool) { return submatch(eksReleaseInName, name) }

func (al2) Arm64GPUGap(versions.Karpenter) string { return "AL2 publishes no arm64 NVIDIA image" }

func (al2) Format() Format          { return FormatBootstrapSh }
func (al2) UserDataFormat() string  { return "bootstrap.sh shell" }
func (al2) UserDataAccepts() string { return "a shell script or a multipart MIME archive" }
func (al2) DefaultBlockDevices() []BlockDevice {
	return []BlockDevice{{Device: "/dev/xvda", GiB: 20}}
}

func submatch(re *regexp.Regexp, s string) (string, bool) {
	m := re.FindStringSubmatch(s)
	if m == nil {
		return "", false
	}
	return m[1], true
}
