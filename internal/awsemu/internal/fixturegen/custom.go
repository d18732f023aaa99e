package main

import (
	"maps"
	"slices"
	"time"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// customImage is one self-owned image (account 123456789012) with a role in
// tests; ident names its constants in fixture_index.go and doc is their
// comment, so the index documents each trap.
type customImage struct {
	ident, doc   string
	name, arch   string
	state        ec2types.ImageState
	created      time.Time
	deprecation  time.Time // zero: none (AWS sets no default on private images)
	tags         map[string]string
	bottlerocket bool
	stateReason  *ec2types.StateReason
}

func in2025(m time.Month, d, h, mi int) time.Time {
	return time.Date(2025, m, d, h, mi, 0, 0, time.UTC)
}

var (
	demoTags = map[string]string{"team": "platform", "os": "al2023", "karpenter.sh/discovery": "demo"}
	// The arch liar carries no discovery tag, so {karpenter.sh/discovery:
	// demo} yields exactly one image per architecture (see README).
	teamTags = map[string]string{"team": "platform", "os": "al2023"}
)

// customImages is the Packer series team-eks-node-al2023-x86_64-YYYYMMDD and
// its neighbours. Creation order of the series, oldest first:
// deregistered < available < tie pair = arm64 sibling (other arch) <
// deprecated < arch liar < failed < disabled < pending.
var customSpecs = []customImage{
	{
		ident: "CustomDeregistered", doc: "state deregistered: returned by DescribeImages only when named in ImageId.N (the custom SSM parameter " + paramCustomDeregistered + " points at it)",
		name: "team-eks-node-al2023-x86_64-20250701", arch: "x86_64", state: ec2types.ImageStateDeregistered,
		created: in2025(7, 1, 8, 0), tags: demoTags,
	},
	{
		ident: "CustomAvailableOld", doc: "available, non-deprecated, but older than the tie pair; the custom SSM parameter " + paramCustomX86 + " points at it",
		name: "team-eks-node-al2023-x86_64-20250901", arch: "x86_64", state: ec2types.ImageStateAvailable,
		created: in2025(9, 1, 9, 30), tags: demoTags,
	},
	{
		ident: "CustomTieLoser", doc: "available; same CreationDate as CustomTieWinner and the lesser Name, so it loses the tie",
		name: "team-eks-node-al2023-x86_64-20251015-r1", arch: "x86_64", state: ec2types.ImageStateAvailable,
		created: in2025(10, 15, 10, 0), tags: demoTags,
	},
	{
		ident: "CustomTieWinner", doc: "available; same CreationDate as CustomTieLoser, greater Name: the x86_64 image Karpenter picks for the series' name and for tag karpenter.sh/discovery=demo",
		name: "team-eks-node-al2023-x86_64-20251015-r2", arch: "x86_64", state: ec2types.ImageStateAvailable,
		created: in2025(10, 15, 10, 0), tags: demoTags,
	},
	{
		ident: "CustomArm64", doc: "available arm64 sibling of the series: the arm64 image for tag karpenter.sh/discovery=demo; the custom SSM parameter " + paramCustomArm64 + " points at it",
		name: "team-eks-node-al2023-arm64-20251015", arch: "arm64", state: ec2types.ImageStateAvailable,
		created: in2025(10, 15, 11, 0), tags: demoTags,
	},
	{
		ident: "CustomDeprecated", doc: "available but deprecated (DeprecationTime 2025-12-01), newer than every non-deprecated x86_64 image of the series: ranked last; hidden unless IncludeDeprecated=true",
		name: "team-eks-node-al2023-x86_64-20251101", arch: "x86_64", state: ec2types.ImageStateAvailable,
		created: in2025(11, 1, 9, 0), deprecation: in2025(12, 1, 0, 0), tags: demoTags,
	},
	{
		ident: "CustomArchLiar", doc: "available; its name says x86_64 but Architecture is arm64, so the series' name pattern also yields an arm64 image (this one)",
		name: "team-eks-node-al2023-x86_64-20251110", arch: "arm64", state: ec2types.ImageStateAvailable,
		created: in2025(11, 10, 9, 0), tags: teamTags,
	},
	{
		ident: "CustomFailed", doc: "state failed",
		name: "team-eks-node-al2023-x86_64-20251120", arch: "x86_64", state: ec2types.ImageStateFailed,
		created: in2025(11, 20, 9, 0), tags: demoTags,
		stateReason: &ec2types.StateReason{Code: ptr("Server.InternalError"), Message: ptr("Server.InternalError: Snapshot creation failed")},
	},
	{
		ident: "CustomDisabled", doc: "state disabled: returned only with IncludeDisabled=true",
		name: "team-eks-node-al2023-x86_64-20251125", arch: "x86_64", state: ec2types.ImageStateDisabled,
		created: in2025(11, 25, 9, 0), tags: demoTags,
	},
	{
		ident: "CustomPending", doc: "state pending with the newest CreationDate of the series: Karpenter (state=available) must not pick it",
		name: "team-eks-node-al2023-x86_64-20251205", arch: "x86_64", state: ec2types.ImageStatePending,
		created: in2025(12, 5, 9, 0), tags: demoTags,
	},
	{
		ident: "CustomI386", doc: "available i386 image: Karpenter drops unsupported architectures silently",
		name: "team-legacy-node-i386-20250301", arch: "i386", state: ec2types.ImageStateAvailable,
		created: in2025(3, 1, 9, 0), tags: map[string]string{"team": "platform", "karpenter.sh/discovery": "demo"},
	},
	{
		ident: "CustomMac", doc: "available x86_64_mac image: Karpenter drops unsupported architectures silently",
		name: "team-mac-node-x86_64_mac-20250301", arch: "x86_64_mac", state: ec2types.ImageStateAvailable,
		created: in2025(3, 1, 9, 0), tags: map[string]string{"team": "platform", "karpenter.sh/discovery": "demo"},
	},
	{
		ident: "CustomGPUPendingOnly", doc: "the only image matching team-gpu-node-*, and it is pending: a name selector for it resolves to nothing",
		name: "team-gpu-node-al2023-x86_64-nvidia-20251201", arch: "x86_64", state: ec2types.ImageStatePending,
		created: in2025(12, 1, 9, 0), tags: map[string]string{"team": "platform", "os": "al2023", "variant": "nvidia"},
	},
	{
		ident: "CustomBottlerocketNvidiaArm64", doc: "available custom Bottlerocket NVIDIA arm64 image (for g5g); the newest available arm64 image with tag team=platform",
		name: "team-bottlerocket-aws-k8s-1.32-nvidia-aarch64-20251120", arch: "arm64", state: ec2types.ImageStateAvailable,
		created: in2025(11, 20, 12, 0), tags: map[string]string{"team": "platform", "os": "bottlerocket"},
		bottlerocket: true,
	},
}

// customImages builds the self-owned images. Their root volumes are 30 GiB,
// larger than the EKS images' 20 GiB, so a block device mapping sized for
// the public AMIs is too small for them.
func customImages() []ec2types.Image {
	var out []ec2types.Image
	for _, c := range customSpecs {
		img := ec2types.Image{
			Architecture:       ec2types.ArchitectureValues(c.arch),
			CreationDate:       ec2Time(c.created),
			EnaSupport:         ptr(true),
			Hypervisor:         ec2types.HypervisorTypeXen,
			ImageId:            ptr(amiID(c.name)),
			ImageLocation:      ptr(accountID + "/" + c.name),
			ImageType:          ec2types.ImageTypeValuesMachine,
			Name:               ptr(c.name),
			OwnerId:            ptr(accountID),
			PlatformDetails:    ptr("Linux/UNIX"),
			Public:             ptr(false),
			RootDeviceName:     ptr("/dev/xvda"),
			RootDeviceType:     ec2types.DeviceTypeEbs,
			SriovNetSupport:    ptr("simple"),
			State:              c.state,
			StateReason:        c.stateReason,
			UsageOperation:     ptr("RunInstances"),
			VirtualizationType: ec2types.VirtualizationTypeHvm,
		}
		if !c.deprecation.IsZero() {
			img.DeprecationTime = ec2Time(c.deprecation)
		}
		switch c.arch {
		case "x86_64", "arm64":
			img.BootMode = bootMode(c.arch)
			img.ImdsSupport = ec2types.ImdsSupportValuesV20
		case "i386":
			img.BootMode = ec2types.BootModeValuesLegacyBios
		}
		if c.bottlerocket {
			img.Description = ptr("Custom Bottlerocket NVIDIA image built from bottlerocket-aws-k8s-1.32-nvidia-aarch64-v1.51.0-47438798")
			img.BlockDeviceMappings = []ec2types.BlockDeviceMapping{
				ebsMapping(c.name, "/dev/xvda", 4, ec2types.VolumeTypeGp3),
				ebsMapping(c.name, "/dev/xvdb", 30, ec2types.VolumeTypeGp3),
			}
		} else {
			img.Description = ptr("Packer build " + c.name)
			img.BlockDeviceMappings = []ec2types.BlockDeviceMapping{ebsMapping(c.name, "/dev/xvda", 30, ec2types.VolumeTypeGp3)}
		}
		for _, k := range sortedKeys(c.tags) {
			img.Tags = append(img.Tags, ec2types.Tag{Key: ptr(k), Value: ptr(c.tags[k])})
		}
		out = append(out, img)
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
