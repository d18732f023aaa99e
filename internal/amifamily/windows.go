package amifamily

import (
	"fmt"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// windows is Windows Server 2019, 2022 or 2025
// (pkg/providers/amifamily/windows.go, one type with Version and Build):
// PowerShell, amd64 only, only the latest Core image.
type windows struct {
	base
	family Family
	// build is node.kubernetes.io/windows-build (pkg/apis/v1/labels.go).
	build string
	// sinceMinor is the Karpenter minor that added the family to the enum
	// (0: always there); minKubernetes the first Kubernetes minor
	// Karpenter accepts it on (0: any).
	sinceMinor, minKubernetes int
}

func (w windows) Family() Family { return w.family }

func (w windows) AvailableIn(kv versions.Karpenter) bool { return kv.AtLeast(w.sinceMinor, 0) }

func (w windows) Unavailable(kv versions.Karpenter) string {
	if w.AvailableIn(kv) {
		return ""
	}
	return fmt.Sprintf("%s needs Karpenter 1.%d or later", w.family, w.sinceMinor)
}

func (w windows) AliasName() string { return strings.ToLower(string(w.family)) }
func (windows) Pinnable() bool      { return false }

// year is 2019, 2022 or 2025.
func (w windows) year() string { return strings.TrimPrefix(string(w.family), "Windows") }

// SSMParameters: only the Core edition, always latest; ami.go
// DescribeImageQueries refuses 2025 before Kubernetes 1.35
// (WS2025UnsupportedVersionError).
func (w windows) SSMParameters(_ string, k8s versions.Kubernetes, _ versions.Karpenter) ([]Parameter, *Refusal) {
	k := k8s.String()
	if !k8s.AtLeast(w.minKubernetes) {
		return nil, &Refusal{Detail: fmt.Sprintf(
			"alias %q on Kubernetes %s: Karpenter refuses it with \"Windows Server %s requires EKS version 1.%d or higher, current version: %s\" (AMIsReady=False, UnsupportedAlias). Use \"windows2022@latest\", or upgrade the cluster to 1.%d.",
			w.AliasName()+"@"+LatestVersion, k, w.year(), w.minKubernetes, k, w.minKubernetes)}
	}
	return []Parameter{{
		Name: fmt.Sprintf("/aws/service/ami-windows-latest/Windows_Server-%s-English-Core-EKS_Optimized-%s/image_id", w.year(), k),
		Arch: "amd64",
	}}, nil
}

func (windows) OS() string             { return "windows" }
func (w windows) WindowsBuild() string { return w.build }

// SupportsArch: getOS gives arm64 types no OS under a Windows family.
func (windows) SupportsArch(arch string) bool { return arch == "amd64" }
func (windows) ArchGap() string {
	return "Windows images are amd64 only: Karpenter gives arm64 instance types no OS under a Windows family"
}
func (windows) Format() Format          { return FormatPowerShell }
func (windows) UserDataFormat() string  { return "PowerShell" }
func (windows) UserDataAccepts() string { return "PowerShell lines, without <powershell> tags" }
func (windows) DefaultBlockDevices() []BlockDevice {
	return []BlockDevice{{Device: "/dev/sda1", GiB: 50}}
}

func (windows) EphemeralBlockDevice() string { return "/dev/sda1" }

// ENILimitedPods: Windows gets 110 pods whatever the instance type, and
// kube-reserved memory follows that count.
func (windows) ENILimitedPods() bool           { return false }
func (windows) ENILimitedMemoryOverhead() bool { return false }
