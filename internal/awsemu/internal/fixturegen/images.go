package main

import (
	"fmt"
	"time"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// eksRelease is one amazon-eks-ami release (AL2 and AL2023 share them).
// Kubernetes patch versions and containerd versions are those of the
// release's CHANGELOG entry, except where marked.
type eksRelease struct {
	version          string // "v20251209"
	created          time.Time
	k8sPatch         map[string]string // minor -> patch, as in release_version
	containerdAL2023 string
	containerdAL2    string // "" when the release has no AL2 images for our minors
	al2023Variants   [][2]string
	al2Architectures []string
}

var (
	al2023AllVariants = [][2]string{
		{"x86_64", "standard"}, {"x86_64", "nvidia"}, {"x86_64", "neuron"},
		{"arm64", "standard"}, {"arm64", "nvidia"},
	}
	// 1.35 deliberately carries no neuron image (see README): the fixture
	// only needs x86_64/arm64 × standard/nvidia for version-gate tests.
	al2023NoNeuron = [][2]string{
		{"x86_64", "standard"}, {"x86_64", "nvidia"},
		{"arm64", "standard"}, {"arm64", "nvidia"},
	}
)

var eksReleases = []eksRelease{
	{
		version: "v20251112", created: date(2025, 11, 13),
		k8sPatch:         map[string]string{"1.31": "1.31.13", "1.32": "1.32.9"},
		containerdAL2023: "2.1.4-1.amzn2023.0.2", containerdAL2: "1.7.27-1.eks.amzn2.0.4",
		al2023Variants: al2023AllVariants, al2Architectures: []string{"x86_64", "arm64", "gpu"},
	},
	{
		version: "v20251209", created: date(2025, 12, 10),
		k8sPatch:         map[string]string{"1.31": "1.31.13", "1.32": "1.32.9"},
		containerdAL2023: "2.1.5-1.amzn2023.0.1", containerdAL2: "1.7.29-1.eks.amzn2.0.1",
		al2023Variants: al2023AllVariants, al2Architectures: []string{"x86_64", "arm64", "gpu"},
	},
	{
		// AL2 AMIs stopped at v20251209 and never existed for 1.33+.
		version: "v20260714", created: date(2026, 7, 15),
		k8sPatch:         map[string]string{"1.35": "1.35.6"},
		containerdAL2023: "2.1.*", // not taken from the CHANGELOG: a placeholder
		al2023Variants:   al2023NoNeuron,
	},
}

// bottlerocketRelease is one Bottlerocket OS release; dates are plausible
// (a day after the release), not looked up.
type bottlerocketRelease struct {
	version, commit string
	created         time.Time
}

var bottlerocketReleases = []bottlerocketRelease{
	{"1.49.0", "713f44ce", date(2025, 10, 7)},
	{"1.51.0", "47438798", date(2025, 11, 18)},
}

// windowsRelease: Windows EKS-optimized AMIs carry their build date in the
// name; the dates here are plausible, not looked up.
type windowsRelease struct {
	minors   []string
	versions []string // "2019", "2022", "2025"
	built    time.Time
}

var windowsReleases = []windowsRelease{
	{[]string{"1.31", "1.32"}, []string{"2019", "2022"}, date(2025, 11, 13)},
	{[]string{"1.31", "1.32"}, []string{"2019", "2022"}, date(2025, 12, 10)},
	{[]string{"1.35"}, []string{"2025"}, date(2026, 7, 15)},
}

// Minors that get AL2, AL2023 (besides 1.35), Bottlerocket images.
var classicMinors = []string{"1.31", "1.32"}

// Names, as published.

func al2023Name(arch, variant, minor, release string) string {
	return fmt.Sprintf("amazon-eks-node-al2023-%s-%s-%s-%s", arch, variant, minor, release)
}

// al2Name takes "x86_64", "arm64" or "gpu".
func al2Name(kind, minor, release string) string {
	switch kind {
	case "arm64":
		return fmt.Sprintf("amazon-eks-arm64-node-%s-%s", minor, release)
	case "gpu":
		return fmt.Sprintf("amazon-eks-gpu-node-%s-%s", minor, release)
	}
	return fmt.Sprintf("amazon-eks-node-%s-%s", minor, release)
}

// bottlerocketName uses "aarch64" where the SSM path says "arm64".
func bottlerocketName(minor string, nvidia bool, arch string, r bottlerocketRelease) string {
	flavor := minor
	if nvidia {
		flavor += "-nvidia"
	}
	if arch == "arm64" {
		arch = "aarch64"
	}
	return fmt.Sprintf("bottlerocket-aws-k8s-%s-%s-v%s-%s", flavor, arch, r.version, r.commit)
}

func windowsName(version, minor string, built time.Time) string {
	return fmt.Sprintf("Windows_Server-%s-English-Core-EKS_Optimized-%s-%s", version, minor, built.Format("2006.01.02"))
}

// eksImages returns the Amazon-owned images: AL2023, AL2, Bottlerocket, Windows.
func eksImages() []ec2types.Image {
	var out []ec2types.Image
	for _, r := range eksReleases {
		for _, minor := range sortedKeys(r.k8sPatch) {
			for _, av := range r.al2023Variants {
				out = append(out, al2023Image(av[0], av[1], minor, r))
			}
			for _, kind := range r.al2Architectures {
				out = append(out, al2Image(kind, minor, r))
			}
		}
	}
	for _, r := range bottlerocketReleases {
		for _, minor := range classicMinors {
			for _, nvidia := range []bool{false, true} {
				for _, arch := range []string{"x86_64", "arm64"} {
					out = append(out, bottlerocketImage(minor, nvidia, arch, r))
				}
			}
		}
	}
	for _, r := range windowsReleases {
		for _, minor := range r.minors {
			for _, v := range r.versions {
				out = append(out, windowsImage(v, minor, r.built))
			}
		}
	}
	return out
}

// publicImage fills what every Amazon-published image shares. AWS sets the
// deprecation time of public AMIs to two years after creation.
func publicImage(name, owner, arch string, created time.Time) ec2types.Image {
	created = created.Add(timeOfDay(name))
	return ec2types.Image{
		Architecture:       ec2types.ArchitectureValues(arch),
		CreationDate:       ec2Time(created),
		DeprecationTime:    ec2Time(created.AddDate(2, 0, 0)),
		EnaSupport:         ptr(true),
		Hypervisor:         ec2types.HypervisorTypeXen,
		ImageId:            ptr(amiID(name)),
		ImageLocation:      ptr("amazon/" + name),
		ImageOwnerAlias:    ptr("amazon"),
		ImageType:          ec2types.ImageTypeValuesMachine,
		Name:               ptr(name),
		OwnerId:            ptr(owner),
		PlatformDetails:    ptr("Linux/UNIX"),
		Public:             ptr(true),
		RootDeviceName:     ptr("/dev/xvda"),
		RootDeviceType:     ec2types.DeviceTypeEbs,
		SriovNetSupport:    ptr("simple"),
		State:              ec2types.ImageStateAvailable,
		UsageOperation:     ptr("RunInstances"),
		VirtualizationType: ec2types.VirtualizationTypeHvm,
	}
}

func ebsMapping(image, device string, sizeGiB int32, volumeType ec2types.VolumeType) ec2types.BlockDeviceMapping {
	ebs := &ec2types.EbsBlockDevice{
		DeleteOnTermination: ptr(true),
		Encrypted:           ptr(false),
		SnapshotId:          ptr(snapshotID(image, device)),
		VolumeSize:          ptr(sizeGiB),
		VolumeType:          volumeType,
	}
	if volumeType == ec2types.VolumeTypeGp3 {
		ebs.Iops, ebs.Throughput = ptr(int32(3000)), ptr(int32(125))
	}
	return ec2types.BlockDeviceMapping{DeviceName: ptr(device), Ebs: ebs}
}

func bootMode(arch string) ec2types.BootModeValues {
	if arch == "arm64" {
		return ec2types.BootModeValuesUefi
	}
	return ec2types.BootModeValuesUefiPreferred
}

func al2023Image(arch, variant, minor string, r eksRelease) ec2types.Image {
	name := al2023Name(arch, variant, minor, r.version)
	img := publicImage(name, ownerEKS, arch, r.created)
	img.BlockDeviceMappings = []ec2types.BlockDeviceMapping{ebsMapping(name, "/dev/xvda", 20, ec2types.VolumeTypeGp3)}
	img.BootMode = bootMode(arch)
	img.ImdsSupport = ec2types.ImdsSupportValuesV20
	img.Description = ptr(fmt.Sprintf("EKS-optimized Kubernetes node based on Amazon Linux 2023, (k8s: %s, containerd: %s)",
		r.k8sPatch[minor], r.containerdAL2023))
	return img
}

func al2Image(kind, minor string, r eksRelease) ec2types.Image {
	name := al2Name(kind, minor, r.version)
	arch := "x86_64"
	if kind == "arm64" {
		arch = "arm64"
	}
	img := publicImage(name, ownerEKS, arch, r.created)
	img.BlockDeviceMappings = []ec2types.BlockDeviceMapping{ebsMapping(name, "/dev/xvda", 20, ec2types.VolumeTypeGp2)}
	if arch == "arm64" {
		img.BootMode = ec2types.BootModeValuesUefi // Graviton boots UEFI only
	}
	img.Description = ptr(fmt.Sprintf("EKS Kubernetes Worker AMI with AmazonLinux2 image, (k8s: %s, containerd: %s)",
		r.k8sPatch[minor], r.containerdAL2))
	return img
}

// bottlerocketImage: OS volume /dev/xvda (2 GiB, 4 GiB for nvidia) plus the
// data volume /dev/xvdb (20 GiB); Description equals Name.
func bottlerocketImage(minor string, nvidia bool, arch string, r bottlerocketRelease) ec2types.Image {
	name := bottlerocketName(minor, nvidia, arch, r)
	img := publicImage(name, ownerBottlerocket, arch, r.created)
	osSize := int32(2)
	if nvidia {
		osSize = 4
	}
	img.BlockDeviceMappings = []ec2types.BlockDeviceMapping{
		ebsMapping(name, "/dev/xvda", osSize, ec2types.VolumeTypeGp2),
		ebsMapping(name, "/dev/xvdb", 20, ec2types.VolumeTypeGp2),
	}
	img.BootMode = bootMode(arch)
	img.ImdsSupport = ec2types.ImdsSupportValuesV20
	img.Description = ptr(name)
	return img
}

// windowsImage: root /dev/sda1 (50 GiB) plus the two instance-store
// placeholders real Windows AMIs list (VirtualName, no Ebs).
func windowsImage(version, minor string, built time.Time) ec2types.Image {
	name := windowsName(version, minor, built)
	img := publicImage(name, ownerWindows, "x86_64", built)
	img.RootDeviceName = ptr("/dev/sda1")
	img.BlockDeviceMappings = []ec2types.BlockDeviceMapping{
		ebsMapping(name, "/dev/sda1", 50, ec2types.VolumeTypeGp3),
		{DeviceName: ptr("xvdca"), VirtualName: ptr("ephemeral0")},
		{DeviceName: ptr("xvdcb"), VirtualName: ptr("ephemeral1")},
	}
	img.Platform = "windows" // what EC2 returns; the SDK enum constant says "Windows"
	img.PlatformDetails = ptr("Windows")
	img.UsageOperation = ptr("RunInstances:0002")
	img.Description = ptr(fmt.Sprintf("Microsoft Windows Server %s Core Locale English AMI provided by Amazon, with EKS Optimized Kubernetes %s", version, minor))
	return img
}
