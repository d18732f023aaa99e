package differential

import (
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	"github.com/aws/karpenter-provider-aws/pkg/providers/amifamily"
	kinstancetype "github.com/aws/karpenter-provider-aws/pkg/providers/instancetype"
	"github.com/aws/karpenter-provider-aws/pkg/providers/version"

	family "github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype"
)

// The family facts the preview sizes maxPods with are Karpenter's feature
// flags.
func TestPodDensityMatchesFeatureFlags(t *testing.T) {
	for _, f := range family.Families {
		ff := amifamily.GetAMIFamily(string(f), &amifamily.Options{}).FeatureFlags()
		eni, perCore := f.Model().ENILimitedPods(), f.Model().PodsPerCore()
		if eni != ff.SupportsENILimitedPodDensity || perCore != ff.PodsPerCoreEnabled {
			t.Errorf("%s: ENI-limited %v pods_per_core %v; Karpenter %+v", f, eni, perCore, ff)
		}
	}
}

func TestSupportsDefaultBindMatchesKarpenter(t *testing.T) {
	for _, v := range []string{"", "latest", "v1.46.0", "1.46.0", "v1.45.9", "v1.46", "v2.0.0", "v1.4*.0", "vx.46.0", "v1.51.0-47438798"} {
		if got, want := family.BottlerocketSupportsDefaultBind(v), version.SupportsDefaultBind(v); got != want {
			t.Errorf("%q: %v, Karpenter %v", v, got, want)
		}
	}
}

// podCases are the kubelet settings the pod capacity depends on.
var podCases = []*awsv1.KubeletConfiguration{
	nil,
	{PodsPerCore: i32(1)},
	{PodsPerCore: i32(4)},
	{MaxPods: i32(110)},
	{MaxPods: i32(300), PodsPerCore: i32(2)},
	{PodsPerCore: i32(0)},
}

// comparePods compares the provider's pod capacity of one type with
// Karpenter's, for every family and kubelet case; it returns the count of
// comparisons.
func comparePods(t *testing.T, info ec2types.InstanceTypeInfo) int {
	t.Helper()
	it, ok := instancetype.FromEC2(info)
	if !ok {
		return 0
	}
	n := 0
	for _, f := range family.Families {
		eni, perCore := f.Model().ENILimitedPods(), f.Model().PodsPerCore()
		for _, k := range podCases {
			o := instancetype.PodsOptions{ENILimited: eni, PodsPerCoreEnabled: perCore}
			if k != nil {
				o.MaxPods, o.PodsPerCore = k.MaxPods, k.PodsPerCore
			}
			got, ok := it.Pods(o)
			want := karpenterPods(info, string(f), k)
			if !ok || got != want {
				t.Errorf("%s %s %+v: %d (%v), Karpenter %d", info.InstanceType, f, o, got, ok, want)
			}
			n++
		}
	}
	return n
}

// Every emulator fixture type, and c7g.16xlarge.
func TestPodsMatchKarpenterOnFixtures(t *testing.T) {
	e := newEnv(t)
	n := 0
	for _, info := range e.infos {
		n += comparePods(t, info)
	}
	for name, want := range map[string]int64{"m5.large": 29, "m6g.large": 29, "c7g.16xlarge": 737, "t3.micro": 4, "g5g.xlarge": 58, "p4d.24xlarge": 737} {
		if got := karpenterPods(e.infos[name], awsv1.AMIFamilyAL2023, nil); got != want {
			t.Errorf("%s: Karpenter says %d, eni-max-pods.txt %d", name, got, want)
		}
	}
	// Karpenter's --reserved-enis (custom networking) takes ENIs away.
	for _, reserved := range []int{1, 2, 4} {
		for name, info := range e.infos {
			k := kinstancetype.NewInstanceType(reservedENIsContext(reserved), info, "us-east-1", []string{"us-east-1a"}, nil, nil, nil, nil,
				nil, nil, nil, nil, nil, nil, awsv1.AMIFamilyAL2023, nil)
			it, ok := instancetype.FromEC2(info)
			if !ok {
				continue
			}
			got, ok := it.Pods(instancetype.PodsOptions{ENILimited: true, PodsPerCoreEnabled: true, ReservedENIs: reserved})
			if want := k.Capacity.Pods().Value(); !ok || got != want {
				t.Errorf("%s reserved %d: %d (%v), Karpenter %d", name, reserved, got, ok, want)
			}
			n++
		}
	}
	t.Logf("%d comparisons", n)
}

// Every type of the reference data (/work/shared/data, outside the
// repository: skipped without it) that Karpenter's own VPC limits table
// knows, with its network facts from that table and its vCPUs from the
// reference data.
func TestPodsMatchKarpenterOnAllTypes(t *testing.T) {
	types, n := 0, 0
	for _, row := range referenceRows(t) {
		name := row["instance_type"]
		limits, ok := kinstancetype.Limits[name]
		if !ok {
			continue
		}
		vcpu, err := strconv.Atoi(row["vcpu"])
		if err != nil {
			t.Fatalf("%s: vcpu %q", name, row["vcpu"])
		}
		n += comparePods(t, infoFromLimits(name, row["arch"], int32(vcpu), limits))
		types++
	}
	if types < 1000 {
		t.Errorf("only %d types compared", types)
	}
	t.Logf("%d types, %d comparisons", types, n)
}

// infoFromLimits is the DescribeInstanceTypes record of a type as far as
// pod capacity reads it.
func infoFromLimits(name, arch string, vcpu int32, l *kinstancetype.VPCLimits) ec2types.InstanceTypeInfo {
	ec2Arch := ec2types.ArchitectureTypeX8664
	if arch == "arm64" {
		ec2Arch = ec2types.ArchitectureTypeArm64
	}
	ni := &ec2types.NetworkInfo{
		DefaultNetworkCardIndex:   aws.Int32(int32(l.DefaultNetworkCardIndex)),
		Ipv4AddressesPerInterface: aws.Int32(int32(l.IPv4PerInterface)),
		MaximumNetworkInterfaces:  aws.Int32(int32(l.Interface)),
	}
	for _, c := range l.NetworkCards {
		ni.NetworkCards = append(ni.NetworkCards, ec2types.NetworkCardInfo{
			NetworkCardIndex: aws.Int32(int32(c.NetworkCardIndex)), MaximumNetworkInterfaces: aws.Int32(int32(c.MaximumNetworkInterfaces)),
		})
	}
	return ec2types.InstanceTypeInfo{
		InstanceType:  ec2types.InstanceType(name),
		ProcessorInfo: &ec2types.ProcessorInfo{SupportedArchitectures: []ec2types.ArchitectureType{ec2Arch}},
		VCpuInfo:      &ec2types.VCpuInfo{DefaultVCpus: aws.Int32(vcpu)},
		MemoryInfo:    &ec2types.MemoryInfo{SizeInMiB: aws.Int64(1024)},
		NetworkInfo:   ni,
	}
}
