// Package amifamily is the EC2NodeClass amiFamily: the enum of the CRD and one
// model per family (al2.go, al2023.go, bottlerocket.go, windows.go, custom.go,
// as karpenter-provider-aws v1.14.1 pkg/providers/amifamily keeps them). Every
// fact that depends on the family (SSM parameters and their version gates,
// the images per architecture and accelerator, OS labels, userData format,
// default block devices, pod density) and the wording that explains a gap is
// here; the other packages ask a Model and never compare family names
// (boundary_test.go holds that).
package amifamily

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// Family is an EC2NodeClass amiFamily.
type Family string

// The amiFamily enum of the EC2NodeClass CRD (v1.14.1; Windows2025 since
// 1.9.0, Ubuntu gone since 1.0.0).
const (
	AL2          Family = "AL2"
	AL2023       Family = "AL2023"
	Bottlerocket Family = "Bottlerocket"
	Custom       Family = "Custom"
	Windows2019  Family = "Windows2019"
	Windows2022  Family = "Windows2022"
	Windows2025  Family = "Windows2025"
)

// Families lists the enum in the CRD's order.
var Families = []Family{AL2, AL2023, Bottlerocket, Custom, Windows2019, Windows2022, Windows2025}

var models = map[Family]Model{
	AL2:          al2{},
	AL2023:       al2023{},
	Bottlerocket: bottlerocket{},
	Custom:       custom{},
	Windows2019:  windows{family: Windows2019, build: "10.0.17763"},
	Windows2022:  windows{family: Windows2022, build: "10.0.20348"},
	Windows2025:  windows{family: Windows2025, build: "10.0.26100", sinceMinor: 9, minKubernetes: 35},
}

// Model is what a family implies. Every method is a fact of the family at a
// Karpenter release; the wording methods return text for findings.
type Model interface {
	Family() Family
	// AvailableIn reports whether the family exists in the CRD enum of
	// Karpenter kv; Unavailable words why not ("" when it is available).
	AvailableIn(kv versions.Karpenter) bool
	Unavailable(kv versions.Karpenter) string

	// AliasName is the family in an alias ("al2023"); "" for a family no
	// alias names (Custom).
	AliasName() string
	// Pinnable reports whether an alias may name a release other than
	// latest (Windows aliases take only latest).
	Pinnable() bool
	// ReleaseShapeProblem says why a pinned alias release resolves nothing
	// because of its shape; "" when the shape is one SSM publishes.
	ReleaseShapeProblem(alias, version string) string
	// SSMParameters are the parameters Karpenter kv reads for an alias of
	// the family at release version (LatestVersion or pinned) on
	// Kubernetes k8s; a non-nil Refusal when Karpenter refuses the alias.
	SSMParameters(version string, k8s versions.Kubernetes, kv versions.Karpenter) ([]Parameter, *Refusal)
	// ReleaseNamePattern is the DescribeImages name filter listing the
	// family's images for Kubernetes k, and the expression whose first
	// group is the release in such a name; "" and nil for a family without
	// pinned releases.
	ReleaseNamePattern(k string) (string, *regexp.Regexp)
	// ReleaseOfImage is the release an image of the family's alias is from,
	// read from its name; false when the name carries none.
	ReleaseOfImage(name string) (string, bool)

	// OS is the kubernetes.io/os the family gives amd64 instance types;
	// WindowsBuild the node.kubernetes.io/windows-build ("" off Windows).
	OS() string
	WindowsBuild() string
	// SupportsArch reports whether the family's images boot the
	// architecture (Karpenter gives arm64 types no OS under Windows).
	SupportsArch(arch string) bool
	// ArchGap says which architectures the images are limited to and what
	// Karpenter does with the others ("" when both are served).
	ArchGap() string
	// SupportsA1 reports whether Karpenter keeps a1 instance types for
	// the family (compatibility.go amiFamilyCheck drops them for AL2023).
	SupportsA1() bool
	// Arm64GPUGap says why an alias of the family resolves no arm64 NVIDIA
	// image at Karpenter kv ("" when it has one). The arm64 GPU question is
	// decided here only: the SSM parameters follow the same facts.
	Arm64GPUGap(kv versions.Karpenter) string
	// Arm64GPUUpgrade is the Karpenter upgrade that closes the gap ("" when
	// none does).
	Arm64GPUUpgrade(kv versions.Karpenter) string
	// Arm64GPUImage names the family's arm64 NVIDIA image for advice
	// ("" when it has none at any release); k8s may be a placeholder.
	Arm64GPUImage(k8s string) string
	// Arm64GPUReleaseNote says, when a resolved release has no arm64 NVIDIA
	// image although the family has one, where such images are published
	// and which alias to use instead ("" when the family has none).
	Arm64GPUReleaseNote(k8s string) (where, retry string)
	// NeuronGap says why an alias of the family maps Neuron instances to
	// no Neuron-capable image at Karpenter kv ("" when it has one);
	// NeuronImage names the family's Neuron image for advice.
	NeuronGap(kv versions.Karpenter) string
	NeuronImage() string

	// Format is the userData the family's images read, as the bootstrap
	// renderer is chosen; FormatCustom for Custom (passed through).
	Format() Format
	// UserDataFormat names the format ("nodeadm NodeConfig (MIME)");
	// UserDataAccepts says what the class's userData may be.
	UserDataFormat() string
	UserDataAccepts() string
	// KarpenterBootstraps reports whether Karpenter generates the node's
	// bootstrap (merging the class's userData); false for Custom, whose
	// userData is the whole of it.
	KarpenterBootstraps() bool
	// NeedsServiceCIDR reports whether the bootstrap carries the cluster's
	// service CIDR (nodeadm's NodeConfig).
	NeedsServiceCIDR() bool
	// DefaultBlockDevices are the mappings Karpenter uses when the class
	// sets none (nil: the image's own).
	DefaultBlockDevices() []BlockDevice
	// EphemeralBlockDevice is the device whose size is the node's
	// ephemeral storage ("" for Custom: the image decides, so Karpenter
	// takes the class's last mapping).
	EphemeralBlockDevice() string
	// ENILimitedPods and PodsPerCore are the family's feature flags
	// (SupportsENILimitedPodDensity, PodsPerCoreEnabled);
	// ENILimitedMemoryOverhead is UsesENILimitedMemoryOverhead: kube-reserved
	// memory is sized for the ENI-limited pod count whatever max_pods says.
	ENILimitedPods() bool
	PodsPerCore() bool
	ENILimitedMemoryOverhead() bool
}

// DefaultVolumeGiB is the size of Karpenter's default EBS volume
// (amifamily.DefaultEBS), the ephemeral storage of a node whose size nothing
// else decides.
const DefaultVolumeGiB = 20

// BlockDevice is a default block device mapping.
type BlockDevice struct {
	Device string
	GiB    int64
}

// Refusal is Karpenter refusing an alias on a Kubernetes version.
type Refusal struct {
	// TooNew is true when the Kubernetes version is past the family's
	// last, false when it is before the family's first.
	TooNew bool
	Detail string
}

// LatestVersion is the alias version that follows new releases.
const LatestVersion = "latest"

// Model returns the family's model. A value outside the enum ("" while the
// family is not known) gets the shared answers and no format, alias or
// bootstrap of its own, so no family-specific rule fires on it.
func (f Family) Model() Model {
	if m, ok := models[f]; ok {
		return m
	}
	return unknown{}
}

// Known reports whether f is in the enum.
func (f Family) Known() bool {
	_, ok := models[f]
	return ok
}

// AvailableIn reports whether the family exists in the CRD enum of a
// Karpenter release.
func (f Family) AvailableIn(kv versions.Karpenter) bool {
	return f.Known() && f.Model().AvailableIn(kv)
}

// AliasName is the lowercase form used in aliases ("al2023").
func (f Family) AliasName() string { return f.Model().AliasName() }

// Parse returns the family for an amiFamily value; the match is exact (the
// CRD enum is case-sensitive).
func Parse(s string) (Family, bool) {
	f := Family(s)
	return f, f.Known()
}

// ParseError is Parse with an error that lists the valid values.
func ParseError(s string) (Family, error) {
	if f, ok := Parse(s); ok {
		return f, nil
	}
	names := make([]string, len(Families))
	for i, f := range Families {
		names[i] = string(f)
	}
	return "", fmt.Errorf("%q is not an amiFamily; use one of %s", s, strings.Join(names, ", "))
}

// AliasFamilies are the families an alias may name, in the CRD's order.
func AliasFamilies() []Family {
	var out []Family
	for _, f := range Families {
		if f.AliasName() != "" {
			out = append(out, f)
		}
	}
	return out
}

// FromAlias returns the family an alias prefix names ("al2023"), exactly
// (aliases are lowercase), if it exists at Karpenter kv.
func FromAlias(name string, kv versions.Karpenter) (Family, bool) {
	for _, f := range AliasFamilies() {
		if f.AliasName() == name && f.AvailableIn(kv) {
			return f, true
		}
	}
	return "", false
}

// OfClass is EC2NodeClass.AMIFamily(): amiFamily when set, else the family
// whose lowercased name is the alias prefix (amiFamilyFromAlias, whatever the
// release), else Custom. ok is false for an alias prefix that names no family.
func OfClass(amiFamily, aliasPrefix string) (Family, bool) {
	if amiFamily != "" {
		return Family(amiFamily), true
	}
	if aliasPrefix == "" {
		return Custom, true
	}
	for _, f := range AliasFamilies() {
		if f.AliasName() == aliasPrefix {
			return f, true
		}
	}
	return "", false
}

// Arm64GPUAlternatives names the other families' arm64 NVIDIA images, for
// advice: "\"al2023@latest\" (...) or \"bottlerocket@latest\" (...)".
func Arm64GPUAlternatives(f Family, k8s string) string {
	var out []string
	for _, g := range Families {
		if g != f {
			if s := g.Model().Arm64GPUImage(k8s); s != "" {
				out = append(out, s)
			}
		}
	}
	return strings.Join(out, " or ")
}

// Arm64GPUWayOut is the advice for arm64 GPU instances of a family with a
// gap at Karpenter kv: the upgrade, if one closes it, else another family.
func Arm64GPUWayOut(m Model, kv versions.Karpenter, k8s string) string {
	if up := m.Arm64GPUUpgrade(kv); up != "" {
		return up + ", or use " + Arm64GPUAlternatives(m.Family(), k8s)
	}
	return "Use " + Arm64GPUAlternatives(m.Family(), k8s)
}

// NeuronAlternatives names the other families' Neuron images, for advice.
func NeuronAlternatives(f Family) string {
	var out []string
	for _, g := range Families {
		if s := g.Model().NeuronImage(); g != f && s != "" {
			out = append(out, s)
		}
	}
	return strings.Join(out, " or ")
}
