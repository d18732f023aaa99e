package instancetype

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Architectures, as kubernetes.io/arch spells them.
const (
	AMD64 = "amd64"
	ARM64 = "arm64"
)

// Accelerator families.
const (
	AcceleratorNeuron = "neuron"
)

// Family is what is known about an instance family without asking AWS.
type Family struct {
	Name string
	// Architecture is "amd64" or "arm64"; no family mixes them.
	Architecture string
	// GPUManufacturer is the instance-gpu-manufacturer label value of the
	// family's types ("nvidia", "amd", or "habana" for the retired dl1), ""
	// when they have no GPU.
	GPUManufacturer string
	// Accelerator is "neuron" for Inferentia/Trainium families, "" otherwise.
	Accelerator string
	// AcceleratorManufacturer is the instance-accelerator-manufacturer label
	// value: "aws" for Neuron, "qualcomm" for dl2q (which is not Neuron), "".
	AcceleratorManufacturer string
	// Category and Generation are the instance-category / -generation label
	// values (Karpenter's regex on the type name).
	Category, Generation string
	// Legacy: gone from the reference snapshot (retired or regional).
	Legacy bool
	// Sizes known offline, in ascending order; empty for a family only
	// seen live.
	Sizes []string
}

// HasGPU reports whether the family's types carry instance-gpu-* labels.
func (f Family) HasGPU() bool { return f.GPUManufacturer != "" }

// HasAcceleratorLabels reports whether the family's types carry
// instance-accelerator-* labels (Neuron or another inference accelerator).
func (f Family) HasAcceleratorLabels() bool { return f.AcceleratorManufacturer != "" }

// The naming rule of EC2 instance families: category letters, generation
// digits, attribute suffix. A family is arm64 iff it is a1 or its attribute
// suffix contains "g" (Graviton; also Grace in p6e-gb200). Verified against
// every family of Karpenter's generated tables; the test re-checks it.
var familyRE = regexp.MustCompile(`^([a-z]+)(\d+)([a-z0-9-]*)$`)

// typeRE is Karpenter's instanceTypeScheme (types.go): it yields the
// category and generation labels from a type name.
var typeRE = regexp.MustCompile(`(^[a-z]+)(\-[0-9]+tb)?([0-9]+).*\.`)

// Exceptions to "no GPU, no accelerator", and families the rule cannot parse.
var (
	nvidiaFamilies = set("g4dn", "g5", "g5g", "g6", "g6e", "g6f", "g7", "g7e", "gr6", "gr6f",
		"p3dn", "p4d", "p4de", "p5", "p5e", "p5en", "p6-b200", "p6-b300", "p6e-gb200",
		// legacy
		"g2", "g3", "g3s", "p2", "p3")
	amdFamilies    = set("g4ad")
	habanaFamilies = set("dl1") // Gaudi, reported by EC2 as GPUs
	neuronFamilies = set("inf1", "inf2", "trn1", "trn1n", "trn2")
	// Inference accelerators that are not Neuron (InferenceAcceleratorInfo).
	otherAccelerators = map[string]string{"dl2q": "qualcomm"}
	// First-generation High Memory families do not fit the rule (the size
	// sits between category and generation); all are Intel.
	unparseable = map[string]string{
		"u-3tb1": AMD64, "u-6tb1": AMD64, "u-9tb1": AMD64, "u-12tb1": AMD64, "u-18tb1": AMD64, "u-24tb1": AMD64,
	}
)

// derive applies the rule and the exceptions to a family name. ok is false
// when the name does not parse and is no listed exception.
func derive(name string) (Family, bool) {
	f := Family{Name: name}
	if arch, ok := unparseable[name]; ok {
		f.Architecture = arch
	} else {
		m := familyRE.FindStringSubmatch(name)
		if m == nil {
			return Family{}, false
		}
		f.Architecture = AMD64
		if name == "a1" || strings.Contains(m[3], "g") {
			f.Architecture = ARM64
		}
	}
	if m := typeRE.FindStringSubmatch(name + "."); m != nil {
		f.Category, f.Generation = m[1], m[3]
	}
	switch {
	case nvidiaFamilies[name]:
		f.GPUManufacturer = "nvidia"
	case amdFamilies[name]:
		f.GPUManufacturer = "amd"
	case habanaFamilies[name]:
		f.GPUManufacturer = "habana"
	}
	if neuronFamilies[name] {
		f.Accelerator, f.AcceleratorManufacturer = AcceleratorNeuron, "aws"
	} else if m, ok := otherAccelerators[name]; ok {
		f.AcceleratorManufacturer = m
	}
	return f, true
}

// ErrUnknownFamily is returned for a name that is no known family.
var ErrUnknownFamily = errors.New("unknown instance family")

// LookupFamily returns the facts of a known family. Unknown names are an
// error, never a guess from the naming rule: a new family may break it.
func LookupFamily(name string) (Family, error) {
	if f, ok := embedded().families[name]; ok {
		return f, nil
	}
	return Family{}, unknownFamilyError(name)
}

func unknownFamilyError(name string) error {
	switch {
	case strings.Contains(name, "."):
		fam, _, _ := strings.Cut(name, ".")
		return fmt.Errorf("%w: %q is an instance type name; pass its family, %q", ErrUnknownFamily, name, fam)
	case isMac(name):
		return fmt.Errorf("%w: %q is a Mac family; its architecture (x86_64_mac/arm64_mac) is outside the x86_64/arm64 filter Karpenter's DescribeInstanceTypes query uses, so Karpenter never offers it", ErrUnknownFamily, name)
	}
	hint := didYouMean(name, FamilyNames())
	return fmt.Errorf("%w: %q is not an EC2 instance family this provider knows (%d families; snapshot of 2026-08)%s. The provider does not guess facts for unknown families", ErrUnknownFamily, name, len(embedded().families), hint)
}

func isMac(name string) bool {
	rest, ok := strings.CutPrefix(name, "mac")
	return ok && (rest == "" || rest[0] == '-' || (rest[0] >= '0' && rest[0] <= '9'))
}

// FamilyNames returns the known family names, sorted.
func FamilyNames() []string { return embedded().familyNames }

// SplitType splits "m5.large" into family and size; ok is false without a ".".
func SplitType(name string) (family, size string, ok bool) {
	return strings.Cut(name, ".")
}

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}
