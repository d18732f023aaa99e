package amifamily

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// bottlerocket is Bottlerocket (pkg/providers/amifamily/bottlerocket.go):
// settings TOML, arm64 NVIDIA images, Neuron placed by Karpenter release,
// no pods-per-core.
type bottlerocket struct{ base }

var (
	bottlerocketReleaseShape = regexp.MustCompile(`^v?\d+\.\d+\.\d+(-[0-9a-f]{8})?$`)
	// The release (without commit) in a listing, and with its commit in an
	// alias's image.
	bottlerocketReleaseInListing = regexp.MustCompile(`-v(\d+\.\d+\.\d+)-[0-9a-f]{8}$`)
	bottlerocketReleaseInName    = regexp.MustCompile(`-v(\d+\.\d+\.\d+-[0-9a-f]{8})$`)
)

func (bottlerocket) Family() Family    { return Bottlerocket }
func (bottlerocket) AliasName() string { return "bottlerocket" }

func (bottlerocket) ReleaseShapeProblem(alias, version string) string {
	if bottlerocketReleaseShape.MatchString(version) {
		return ""
	}
	return fmt.Sprintf("%q: Bottlerocket releases are `x.y.z` or `x.y.z-<8 hex commit>` (a leading v is trimmed), so %q resolves nothing. Write e.g. \"bottlerocket@1.51.0\".", alias, version)
}

// SSMParameters: strings.TrimLeft strips every leading v.
func (bottlerocket) SSMParameters(version string, k8s versions.Kubernetes, kv versions.Karpenter) ([]Parameter, *Refusal) {
	k := k8s.String()
	v := strings.TrimLeft(version, "v")
	base := "/aws/service/bottlerocket/aws-k8s-" + k
	x86Std, nvidia := []Variant{Standard}, []Variant{NVIDIA}
	switch {
	case neuronOnStandard(kv):
		x86Std = []Variant{Standard, Neuron}
	case !kv.AtLeast(1, 0):
		// 1.0.x gave Neuron instances the NVIDIA image.
		nvidia = []Variant{NVIDIA, Neuron}
	}
	return []Parameter{
		{Name: fmt.Sprintf("%s/x86_64/%s/image_id", base, v), Arch: "amd64", Variants: x86Std},
		{Name: fmt.Sprintf("%s/arm64/%s/image_id", base, v), Arch: "arm64", Variants: []Variant{Standard}},
		{Name: fmt.Sprintf("%s-nvidia/x86_64/%s/image_id", base, v), Arch: "amd64", Variants: nvidia},
		{Name: fmt.Sprintf("%s-nvidia/arm64/%s/image_id", base, v), Arch: "arm64", Variants: nvidia},
	}, nil
}

// neuronOnStandard: Neuron rides on the standard x86_64 image since 1.3.0
// (PR #7722).
func neuronOnStandard(kv versions.Karpenter) bool { return kv.AtLeast(3, 0) }

func (bottlerocket) ReleaseNamePattern(k string) (string, *regexp.Regexp) {
	return "bottlerocket-aws-k8s-" + k + "-*", bottlerocketReleaseInListing
}

func (bottlerocket) ReleaseOfImage(name string) (string, bool) {
	return submatch(bottlerocketReleaseInName, name)
}

func (bottlerocket) Arm64GPUImage(k8s string) string {
	return fmt.Sprintf("\"bottlerocket@latest\" (aws-k8s-%s-nvidia, arm64)", k8s)
}

func (bottlerocket) Arm64GPUReleaseNote(k8s string) (string, string) {
	return fmt.Sprintf("SSM /aws/service/bottlerocket/aws-k8s-%s-nvidia/arm64/...", k8s), "\"bottlerocket@latest\""
}

// NeuronGap: 1.0 put Neuron on the NVIDIA image (no Neuron driver), 1.1 and
// 1.2 map it to no Bottlerocket image, 1.3 to the standard one.
func (bottlerocket) NeuronGap(kv versions.Karpenter) string {
	if neuronOnStandard(kv) {
		return ""
	}
	return fmt.Sprintf("Karpenter %s maps Neuron instances to no Bottlerocket image (Neuron rides on the standard x86_64 image from Karpenter 1.3, PR #7722)", kv)
}

func (bottlerocket) Format() Format          { return FormatBottlerocket }
func (bottlerocket) UserDataFormat() string  { return "Bottlerocket TOML" }
func (bottlerocket) UserDataAccepts() string { return "settings TOML" }
func (bottlerocket) DefaultBlockDevices() []BlockDevice {
	return []BlockDevice{{Device: "/dev/xvda", GiB: 4}, {Device: "/dev/xvdb", GiB: 20}}
}

// EphemeralBlockDevice: the data volume, not the 4 GiB OS volume.
func (bottlerocket) EphemeralBlockDevice() string { return "/dev/xvdb" }

// PodsPerCore: Bottlerocket's settings have no pods-per-core.
func (bottlerocket) PodsPerCore() bool { return false }

// ENILimitedMemoryOverhead: kube-reserved memory follows the pod capacity.
func (bottlerocket) ENILimitedMemoryOverhead() bool { return false }

// BottlerocketImageName reports whether Karpenter's resolveAMIVersion takes
// an image for a Bottlerocket one: its name contains "bottlerocket".
func BottlerocketImageName(name string) bool { return strings.Contains(name, "bottlerocket") }

// BottlerocketAMIVersion is the Bottlerocket release in an image name
// (Karpenter's extractVersionFromName: the first "-"-separated part that
// starts with "v" and contains a dot), "" when there is none.
func BottlerocketAMIVersion(name string) string {
	for part := range strings.SplitSeq(name, "-") {
		if strings.HasPrefix(part, "v") && strings.Contains(part, ".") {
			return part
		}
	}
	return ""
}

// BottlerocketSupportsDefaultBind is Karpenter's version.SupportsDefaultBind: from
// Bottlerocket 1.46.0 (and for "latest") RAID0 binds the default
// directories; before, it lists them.
func BottlerocketSupportsDefaultBind(version string) bool {
	if version == "latest" {
		return true
	}
	parts := strings.Split(strings.TrimLeft(version, "v"), ".")
	if len(parts) < 3 {
		return false
	}
	major, err := strconv.Atoi(parts[0])
	if err != nil {
		return false
	}
	minor, err := strconv.Atoi(parts[1])
	if err != nil {
		return false
	}
	return major > 1 || (major == 1 && minor >= 46)
}
