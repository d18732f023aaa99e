package amifamily

import "github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"

// custom is Custom (pkg/providers/amifamily/custom.go): the class's userData
// passed through unchanged, the image's own block devices, no alias.
type custom struct{ base }

func (custom) Family() Family    { return Custom }
func (custom) AliasName() string { return "" }
func (custom) Pinnable() bool    { return false }

func (custom) Format() Format            { return FormatCustom }
func (custom) UserDataFormat() string    { return "custom" }
func (custom) UserDataAccepts() string   { return "what the AMI's bootstrap reads" }
func (custom) KarpenterBootstraps() bool { return false }

// EphemeralBlockDevice: the image's own layout is unknown.
func (custom) EphemeralBlockDevice() string { return "" }

// SSMParameters: no alias names Custom.
func (custom) SSMParameters(string, versions.Kubernetes, versions.Karpenter) ([]Parameter, *Refusal) {
	return nil, nil
}

// unknown answers for a value outside the enum: what every family shares,
// nothing that names one.
type unknown struct{ base }

func (unknown) Family() Family          { return "" }
func (unknown) AliasName() string       { return "" }
func (unknown) Format() Format          { return "" }
func (unknown) UserDataFormat() string  { return "unknown" }
func (unknown) UserDataAccepts() string { return "what the AMI's bootstrap reads" }
func (unknown) SSMParameters(string, versions.Kubernetes, versions.Karpenter) ([]Parameter, *Refusal) {
	return nil, nil
}
