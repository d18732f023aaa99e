package instancetype

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
)

// fixtureTypes is the emulator's instance types plus c7g.16xlarge
// (testdata/c7g), as a live catalogue.
func fixtureTypes(t *testing.T) *Catalogue {
	t.Helper()
	var infos []ec2types.InstanceTypeInfo
	for _, dir := range []string{"", "testdata/c7g"} {
		load := awsemu.DefaultFixtures
		if dir != "" {
			load = func() (*awsemu.Fixtures, error) { return awsemu.LoadFixtures(dir) }
		}
		f, err := load()
		if err != nil {
			t.Fatal(err)
		}
		infos = append(infos, f.InstanceTypes...)
	}
	return NewLive(infos)
}

// The ENI-limited pod counts of amazon-eks-ami's eni-max-pods.txt (the
// table Karpenter's formula reproduces), from each type's network facts.
func TestENILimitedPods(t *testing.T) {
	cat := fixtureTypes(t)
	for name, want := range map[string]int64{
		"m5.large": 29, "m6g.large": 29, "c7g.16xlarge": 737, "t3.micro": 4, "g5g.xlarge": 58,
		// Four network cards of 15 ENIs: only the default card counts.
		"p4d.24xlarge": 737,
	} {
		it, ok := cat.Type(name)
		if !ok {
			t.Fatalf("%s not in the fixtures", name)
		}
		got, ok := it.ENILimitedPods(0, 0)
		if !ok || got != want {
			t.Errorf("%s: %d (%v), want %d", name, got, ok, want)
		}
		// Every Linux family Karpenter ships writes this count without
		// kubelet settings.
		if p, ok := it.Pods(PodsOptions{ENILimited: true, PodsPerCoreEnabled: true}); !ok || p != want {
			t.Errorf("%s: Pods %d (%v), want %d", name, p, ok, want)
		}
	}
}

func TestPodsOptions(t *testing.T) {
	cat := fixtureTypes(t)
	m5, _ := cat.Type("m5.large")      // 2 vCPUs, 3 ENIs of 10 addresses
	c7g, _ := cat.Type("c7g.16xlarge") // 64 vCPUs, 15 ENIs of 50 addresses
	i32 := func(v int32) *int32 { return &v }
	cases := []struct {
		name string
		t    Type
		o    PodsOptions
		want int64
	}{
		// pods_per_core × vCPUs caps the ENI-limited count (Karpenter's
		// `--max-pods=4 --pods-per-core=2` on m5.large).
		{"pods_per_core", m5, PodsOptions{PodsPerCore: i32(2), ENILimited: true, PodsPerCoreEnabled: true}, 4},
		{"pods_per_core above the ENI limit", m5, PodsOptions{PodsPerCore: i32(20), ENILimited: true, PodsPerCoreEnabled: true}, 29},
		// Bottlerocket ignores pods_per_core.
		{"pods_per_core ignored", m5, PodsOptions{PodsPerCore: i32(2), ENILimited: true}, 29},
		{"max_pods", c7g, PodsOptions{MaxPods: i32(110), ENILimited: true, PodsPerCoreEnabled: true}, 110},
		{"max_pods and pods_per_core", c7g, PodsOptions{MaxPods: i32(110), PodsPerCore: i32(1), ENILimited: true, PodsPerCoreEnabled: true}, 64},
		// Windows: 110 unless pods_per_core says less.
		{"windows", m5, PodsOptions{PodsPerCoreEnabled: true}, 110},
		{"windows pods_per_core", m5, PodsOptions{PodsPerCore: i32(10), PodsPerCoreEnabled: true}, 20},
		// Karpenter's reserved ENIs and efa-only interfaces take ENIs away.
		{"reserved ENIs", m5, PodsOptions{ReservedENIs: 1, ENILimited: true}, 20},
		{"efa-only interface", c7g, PodsOptions{EFAOnly: 1, ENILimited: true}, 688},
		{"no ENI left", m5, PodsOptions{ReservedENIs: 3, ENILimited: true}, 0},
		{"pods_per_core 0 is unset", m5, PodsOptions{PodsPerCore: i32(0), ENILimited: true, PodsPerCoreEnabled: true}, 29},
	}
	for _, c := range cases {
		if got, ok := c.t.Pods(c.o); !ok || got != c.want {
			t.Errorf("%s: %d (%v), want %d", c.name, got, ok, c.want)
		}
	}
}

// Offline types know neither vCPUs nor ENIs: only what needs neither is
// answered.
func TestPodsOffline(t *testing.T) {
	it, ok := Embedded().Type("m5.large")
	if !ok {
		t.Fatal("m5.large not embedded")
	}
	i32 := func(v int32) *int32 { return &v }
	if _, ok := it.Pods(PodsOptions{ENILimited: true}); ok {
		t.Error("ENI-limited count known offline")
	}
	if _, ok := it.Pods(PodsOptions{PodsPerCore: i32(2), PodsPerCoreEnabled: true}); ok {
		t.Error("pods_per_core count known offline")
	}
	if n, ok := it.Pods(PodsOptions{MaxPods: i32(50), ENILimited: true}); !ok || n != 50 {
		t.Errorf("max_pods: %d %v", n, ok)
	}
	if n, ok := it.Pods(PodsOptions{PodsPerCoreEnabled: true}); !ok || n != 110 {
		t.Errorf("windows: %d %v", n, ok)
	}
}

// Network facts Karpenter would dereference as nil (and panic on) leave the
// count unknown instead.
func TestNetworkFactsMissing(t *testing.T) {
	full := func() ec2types.InstanceTypeInfo {
		in := info("m5.large", ec2types.ArchitectureTypeX8664)
		in.NetworkInfo = &ec2types.NetworkInfo{DefaultNetworkCardIndex: aws.Int32(0), Ipv4AddressesPerInterface: aws.Int32(10),
			NetworkCards: []ec2types.NetworkCardInfo{{MaximumNetworkInterfaces: aws.Int32(3)}}}
		return in
	}
	if it, _ := FromEC2(full()); it.Network == nil {
		t.Fatal("complete facts not read")
	}
	for name, breakIt := range map[string]func(*ec2types.InstanceTypeInfo){
		"no network info":    func(in *ec2types.InstanceTypeInfo) { in.NetworkInfo = nil },
		"no default card":    func(in *ec2types.InstanceTypeInfo) { in.NetworkInfo.DefaultNetworkCardIndex = nil },
		"card out of range":  func(in *ec2types.InstanceTypeInfo) { in.NetworkInfo.DefaultNetworkCardIndex = aws.Int32(1) },
		"negative card":      func(in *ec2types.InstanceTypeInfo) { in.NetworkInfo.DefaultNetworkCardIndex = aws.Int32(-1) },
		"no addresses":       func(in *ec2types.InstanceTypeInfo) { in.NetworkInfo.Ipv4AddressesPerInterface = nil },
		"no interface count": func(in *ec2types.InstanceTypeInfo) { in.NetworkInfo.NetworkCards[0].MaximumNetworkInterfaces = nil },
	} {
		in := full()
		breakIt(&in)
		it, ok := FromEC2(in)
		if !ok {
			t.Fatalf("%s: type dropped", name)
		}
		if _, ok := it.Pods(PodsOptions{ENILimited: true}); ok {
			t.Errorf("%s: count known", name)
		}
	}
}
