package amifamily

import (
	"regexp"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// base holds the answers most families share (upstream's DefaultFamily): a
// Linux family, in every release's enum, pinnable, both architectures, no
// image gaps, Karpenter's bootstrap, ENI-limited pods and pods per core.
// Each family embeds it and states only where it differs.
type base struct{}

func (base) AvailableIn(versions.Karpenter) bool                { return true }
func (base) Unavailable(versions.Karpenter) string              { return "" }
func (base) Pinnable() bool                                     { return true }
func (base) ReleaseShapeProblem(_, _ string) string             { return "" }
func (base) ReleaseNamePattern(string) (string, *regexp.Regexp) { return "", nil }
func (base) ReleaseOfImage(string) (string, bool)               { return "", false }
func (base) OS() string                                         { return "linux" }
func (base) WindowsBuild() string                               { return "" }
func (base) SupportsArch(string) bool                           { return true }
func (base) ArchGap() string                                    { return "" }
func (base) SupportsA1() bool                                   { return true }
func (base) Arm64GPUGap(versions.Karpenter) string              { return "" }
func (base) Arm64GPUUpgrade(versions.Karpenter) string          { return "" }
func (base) Arm64GPUImage(string) string                        { return "" }
func (base) Arm64GPUReleaseNote(string) (string, string)        { return "", "" }
func (base) NeuronGap(versions.Karpenter) string                { return "" }
func (base) NeuronImage() string                                { return "" }
func (base) KarpenterBootstraps() bool                          { return true }
func (base) NeedsServiceCIDR() bool                             { return false }
func (base) DefaultBlockDevices() []BlockDevice                 { return nil }
func (base) EphemeralBlockDevice() string                       { return "/dev/xvda" }
func (base) ENILimitedPods() bool                               { return true }
func (base) PodsPerCore() bool                                  { return true }
func (base) ENILimitedMemoryOverhead() bool                     { return true }
