package instancetype

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// Network holds the facts Karpenter computes a type's pod density from
// (aws/karpenter-provider-aws v1.14.1 pkg/providers/instancetype/types.go
// ENILimitedPods).
type Network struct {
	// ENIs is MaximumNetworkInterfaces of the default network card: the
	// VPC CNI only attaches interfaces there.
	ENIs int64
	// IPv4PerENI is Ipv4AddressesPerInterface.
	IPv4PerENI int64
}

// networkFacts reads Network from DescribeInstanceTypes as Karpenter does:
// NetworkCards indexed by DefaultNetworkCardIndex (a slice position, not
// the card's NetworkCardIndex field). ok is false when a fact is missing,
// where Karpenter would dereference nil and panic.
func networkFacts(info ec2types.InstanceTypeInfo) (Network, bool) {
	n := info.NetworkInfo
	if n == nil || n.DefaultNetworkCardIndex == nil || n.Ipv4AddressesPerInterface == nil {
		return Network{}, false
	}
	i := int(*n.DefaultNetworkCardIndex)
	if i < 0 || i >= len(n.NetworkCards) || n.NetworkCards[i].MaximumNetworkInterfaces == nil {
		return Network{}, false
	}
	return Network{ENIs: int64(aws.ToInt32(n.NetworkCards[i].MaximumNetworkInterfaces)), IPv4PerENI: int64(*n.Ipv4AddressesPerInterface)}, true
}

// ENILimitedPods is Karpenter's ENILimitedPods: usable ENIs × (IPv4
// addresses per ENI − 1) + 2, where usable ENIs are the default card's
// minus reservedENIs (Karpenter's --reserved-enis / RESERVED_ENIS) and
// minus the EC2NodeClass's efa-only interfaces on card 0 (they take an ENI
// without IP networking); 0 when none are left. ok is false when the type
// has no network facts (offline catalogue).
func (t Type) ENILimitedPods(reservedENIs, efaOnly int) (int64, bool) {
	if t.Network == nil {
		return 0, false
	}
	usable := max(t.Network.ENIs-int64(reservedENIs)-int64(efaOnly), 0)
	if usable == 0 {
		return 0, true
	}
	return usable*(t.Network.IPv4PerENI-1) + 2, true
}

// PodsOptions are the inputs of Karpenter's pods() besides the type.
type PodsOptions struct {
	// MaxPods and PodsPerCore are the EC2NodeClass's kubelet settings.
	MaxPods, PodsPerCore *int32
	// ENILimited is the AMI family's SupportsENILimitedPodDensity (every
	// family but Windows); PodsPerCoreEnabled its PodsPerCoreEnabled (every
	// family but Bottlerocket).
	ENILimited, PodsPerCoreEnabled bool
	// ReservedENIs is Karpenter's --reserved-enis setting (default 0);
	// EFAOnly the number of efa-only network interfaces on card 0 in the
	// EC2NodeClass's networkInterfaces.
	ReservedENIs, EFAOnly int
}

// Pods is the pod capacity Karpenter gives the type (pods() in types.go),
// which is also the maxPods it writes into the userData when the class sets
// none: max_pods, else the ENI-limited count (110 for families without
// ENI-limited density), then at most pods_per_core × vCPUs where the family
// honours pods_per_core. ok is false when the answer needs facts the type
// does not have (offline: vCPUs and network facts are unknown).
func (t Type) Pods(o PodsOptions) (int64, bool) {
	var count int64
	switch {
	case o.MaxPods != nil:
		count = int64(*o.MaxPods)
	case o.ENILimited:
		n, ok := t.ENILimitedPods(o.ReservedENIs, o.EFAOnly)
		if !ok {
			return 0, false
		}
		count = n
	default:
		count = 110
	}
	if o.PodsPerCore != nil && *o.PodsPerCore > 0 && o.PodsPerCoreEnabled {
		if !t.Exact {
			return 0, false
		}
		count = min(int64(*o.PodsPerCore)*t.VCPU, count)
	}
	return count, true
}
