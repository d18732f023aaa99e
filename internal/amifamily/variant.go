package amifamily

// Variant is the accelerator flavour of an EKS-optimized image
// (pkg/providers/amifamily/types.go).
type Variant string

// Variants.
const (
	Standard Variant = "standard"
	NVIDIA   Variant = "nvidia"
	Neuron   Variant = "neuron"
)

// Parameter is one SSM parameter Karpenter reads for an alias, and what an
// image found there serves.
type Parameter struct {
	Name string
	// Arch is the Kubernetes architecture the path is for (amd64/arm64);
	// the image's own Architecture field still decides (Karpenter reads it
	// from DescribeImages: pkg/providers/amifamily/ami.go).
	Arch string
	// Variants the image serves; nil for Windows, whose image carries no
	// variant requirements and serves every amd64 instance.
	Variants []Variant
}

// Format is the userData format a family's images read, which picks
// Karpenter's bootstrap renderer (pkg/providers/amifamily/bootstrap). The
// values of the three Linux formats are also the `bootstrap` block's format.
type Format string

// Formats.
const (
	FormatBootstrapSh  Format = "bootstrap.sh" // AL2: shell script, MIME
	FormatNodeadm      Format = "nodeadm"      // AL2023: NodeConfig, MIME
	FormatBottlerocket Format = "bottlerocket" // settings TOML
	FormatPowerShell   Format = "powershell"   // Windows
	FormatCustom       Format = "custom"       // Custom: passed through
)

// eksReleaseExpr is the release in an EKS-optimized AL2/AL2023 image name.
const eksReleaseExpr = `-(v\d{8})$`
