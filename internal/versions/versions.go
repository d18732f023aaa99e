// Package versions parses the two versions every rule depends on: the Karpenter
// release the user runs (rules and rendering are gated on it) and the
// Kubernetes minor of the cluster (SSM paths and alias support depend on it).
package versions

import (
	"fmt"
	"regexp"
	"strconv"
)

// Karpenter is a Karpenter (karpenter-provider-aws) release, major version 1.
// Patch is -1 when the user gave only "1.MINOR"; gates then treat the release
// as the first patch of that minor, which is the conservative reading for
// "fixed in 1.2.2"-style gates.
type Karpenter struct {
	Minor int
	Patch int
}

// Supported Karpenter minors: the v1 API releases, 1.0 to 1.14.
const (
	MinKarpenterMinor = 0
	MaxKarpenterMinor = 14
)

// DefaultKarpenter is the newest supported release, used when the provider
// configuration does not name one.
var DefaultKarpenter = Karpenter{Minor: MaxKarpenterMinor, Patch: -1}

var (
	karpenterRE = regexp.MustCompile(`^v?1\.(\d+)(?:\.(\d+))?$`)
	preV1RE     = regexp.MustCompile(`^v?0\.\d+(?:\.\d+)?$`)
)

// V1MigrationURL is Karpenter's guide to upgrading a pre-v1 release.
const V1MigrationURL = "https://karpenter.sh/v1.0/upgrading/v1-migration/"

// ParseKarpenter accepts "1.14", "1.4.0" and a release tag "v1.3.2",
// which is the same release as "1.3.2" (String drops the "v").
func ParseKarpenter(s string) (Karpenter, error) {
	m := karpenterRE.FindStringSubmatch(s)
	if m == nil && preV1RE.MatchString(s) {
		return Karpenter{}, fmt.Errorf("Karpenter %s is a pre-v1 release (the v1beta1 API: karpenter.sh/v1beta1 NodePools, karpenter.k8s.aws/v1beta1 EC2NodeClasses); "+
			"the rules and manifests here are those of the v1 API, which Karpenter serves from 1.0. Upgrade the cluster to v1 first: to the latest patch of "+
			"your minor release, then to 1.0, converting the objects as %s describes; then give the v1 release the cluster runs, e.g. \"1.14\"", s, V1MigrationURL)
	}
	if m == nil {
		return Karpenter{}, fmt.Errorf("%q is not a Karpenter version; write it as \"1.MINOR\" or \"1.MINOR.PATCH\", e.g. \"1.14\" or \"1.4.0\"", s)
	}
	minor, _ := strconv.Atoi(m[1])
	patch := -1
	if m[2] != "" {
		patch, _ = strconv.Atoi(m[2])
	}
	if minor < MinKarpenterMinor || minor > MaxKarpenterMinor {
		return Karpenter{}, fmt.Errorf("Karpenter %s is not supported: this provider knows the rules of Karpenter 1.%d to 1.%d", s, MinKarpenterMinor, MaxKarpenterMinor)
	}
	return Karpenter{Minor: minor, Patch: patch}, nil
}

// AtLeast reports whether v is 1.minor.patch or newer.
func (v Karpenter) AtLeast(minor, patch int) bool {
	if v.Minor != minor {
		return v.Minor > minor
	}
	p := v.Patch
	if p < 0 {
		p = 0
	}
	return p >= patch
}

func (v Karpenter) String() string {
	if v.Patch < 0 {
		return fmt.Sprintf("1.%d", v.Minor)
	}
	return fmt.Sprintf("1.%d.%d", v.Minor, v.Patch)
}

// Kubernetes is a Kubernetes minor version, as Karpenter formats it for SSM
// paths ("1.32").
type Kubernetes struct {
	Minor int
}

var kubernetesRE = regexp.MustCompile(`^v?1\.(\d+)(?:\.\d+)?(?:[-+].*)?$`)

// ParseKubernetes accepts "1.32", "1.32.3" and "v1.32.3-eks-1234"; only the
// minor matters, because that is what the SSM parameter paths embed.
func ParseKubernetes(s string) (Kubernetes, error) {
	m := kubernetesRE.FindStringSubmatch(s)
	if m == nil {
		return Kubernetes{}, fmt.Errorf("%q is not a Kubernetes version; write it as \"1.MINOR\", e.g. \"1.32\"", s)
	}
	minor, _ := strconv.Atoi(m[1])
	return Kubernetes{Minor: minor}, nil
}

// AtLeast reports whether v is 1.minor or newer.
func (v Kubernetes) AtLeast(minor int) bool { return v.Minor >= minor }

func (v Kubernetes) String() string { return fmt.Sprintf("1.%d", v.Minor) }

// Karpenter v1.14 supports Kubernetes 1.26 to 1.36
// (aws/karpenter-provider-aws pkg/providers/version/version.go
// MinK8sVersion/MaxK8sVersion); outside it logs
// "karpenter is not compatible with kubernetes version".
const (
	MinKubernetesMinor = 26
	MaxKubernetesMinor = 36
)

// SupportedByKarpenter reports whether Karpenter accepts this Kubernetes minor.
func (v Kubernetes) SupportedByKarpenter() bool {
	return v.Minor >= MinKubernetesMinor && v.Minor <= MaxKubernetesMinor
}
