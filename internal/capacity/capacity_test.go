package capacity

import (
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
)

// fixture returns an emulator fixture type as the live catalogue has it.
func fixture(t testing.TB, name string) instancetype.Type {
	t.Helper()
	f, err := awsemu.DefaultFixtures()
	if err != nil {
		t.Fatal(err)
	}
	cat := instancetype.NewLive(f.InstanceTypes)
	it, ok := cat.Type(name)
	if !ok {
		t.Fatalf("no fixture type %s", name)
	}
	return it
}

func str(l corev1.ResourceList, name corev1.ResourceName) string {
	q, ok := l[name]
	if !ok {
		return "<absent>"
	}
	return q.String()
}

func compute(t *testing.T, typ string, c Class, s Settings) Node {
	t.Helper()
	n, err := Compute(fixture(t, typ), c, s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Worked by hand from Karpenter's formulas (m5.large: 2 vCPUs, 8 GiB,
// 3 ENIs × 10 addresses).
func TestM5LargeOnAL2023(t *testing.T) {
	n := compute(t, "m5.large", Class{Family: amifamily.AL2023}, DefaultSettings())
	for name, want := range map[corev1.ResourceName]string{
		// 8192 MiB less ceil(8192 × 0.075) = 615 MiB.
		corev1.ResourceMemory: "7577Mi", corev1.ResourceCPU: "2", corev1.ResourcePods: "29",
		corev1.ResourceEphemeralStorage: "20Gi", ResourceAWSPodENI: "9", ResourceNVIDIAGPU: "0",
	} {
		if got := str(n.Capacity, name); got != want {
			t.Errorf("capacity %s = %s, want %s", name, got, want)
		}
	}
	if n.VMMemoryOverhead.String() != "615Mi" {
		t.Errorf("VM overhead %s", n.VMMemoryOverhead.String())
	}
	// 60m for the first core + 10m for the second; 11 × 29 + 255 MiB.
	if got := str(n.Overhead.KubeReserved, corev1.ResourceCPU); got != "70m" {
		t.Errorf("kube-reserved cpu %s", got)
	}
	if got := str(n.Overhead.KubeReserved, corev1.ResourceMemory); got != "574Mi" {
		t.Errorf("kube-reserved memory %s", got)
	}
	// 7577 - 574 - 100 (eviction) MiB.
	if got := str(n.Allocatable, corev1.ResourceMemory); got != "6903Mi" {
		t.Errorf("allocatable memory %s", got)
	}
	if _, ok := n.Capacity[ResourcePrivateIPv4Address]; ok {
		t.Error("a Linux node has no PrivateIPv4Address resource")
	}
	if n.MaxPods != 29 {
		t.Errorf("max pods %d", n.MaxPods)
	}
}

func TestControllerSettings(t *testing.T) {
	def := compute(t, "m5.large", Class{Family: amifamily.AL2023}, DefaultSettings())
	n := compute(t, "m5.large", Class{Family: amifamily.AL2023}, Settings{VMMemoryOverheadPercent: 0.1, ReservedENIs: 1})
	// One ENI fewer: 2 × 9 + 2 pods; kube-reserved memory keeps the
	// ENI-limited count without reserved ENIs (AL2023).
	if n.MaxPods != 20 || str(n.Overhead.KubeReserved, corev1.ResourceMemory) != str(def.Overhead.KubeReserved, corev1.ResourceMemory) {
		t.Errorf("reserved ENIs: max pods %d, kube-reserved memory %s", n.MaxPods, str(n.Overhead.KubeReserved, corev1.ResourceMemory))
	}
	if got := str(n.Capacity, corev1.ResourceMemory); got != "7372Mi" { // 8192 - ceil(819.2)
		t.Errorf("10 %% overhead: memory %s", got)
	}
	// Bottlerocket sizes kube-reserved memory for the pod capacity.
	br := compute(t, "m5.large", Class{Family: amifamily.Bottlerocket}, Settings{VMMemoryOverheadPercent: 0.075, ReservedENIs: 1})
	if got := str(br.Overhead.KubeReserved, corev1.ResourceMemory); got != "475Mi" { // 11 × 20 + 255
		t.Errorf("Bottlerocket kube-reserved memory %s", got)
	}
}

func TestEphemeralStorage(t *testing.T) {
	root := []manifest.BlockDeviceMapping{{DeviceName: "/dev/xvda", RootVolume: true, EBS: &manifest.BlockDevice{VolumeSize: "200Gi"}}}
	data := []manifest.BlockDeviceMapping{{DeviceName: "/dev/xvdb", EBS: &manifest.BlockDevice{VolumeSize: "150Gi"}}}
	for _, c := range []struct {
		name, typ string
		class     Class
		want      string
	}{
		{"AL2023 default", "m5.large", Class{Family: amifamily.AL2023}, "20Gi"},
		{"Bottlerocket's data volume", "m5.large", Class{Family: amifamily.Bottlerocket}, "20Gi"},
		{"Windows", "m5.large", Class{Family: amifamily.Windows2022}, "50Gi"},
		{"Custom without mappings", "m5.large", Class{Family: amifamily.Custom}, "20Gi"},
		{"root volume", "m5.large", Class{Family: amifamily.AL2023, BlockDeviceMappings: root}, "200Gi"},
		{"Bottlerocket /dev/xvdb", "m5.large", Class{Family: amifamily.Bottlerocket, BlockDeviceMappings: data}, "150Gi"},
		{"AL2023 ignores /dev/xvdb", "m5.large", Class{Family: amifamily.AL2023, BlockDeviceMappings: data}, "20Gi"},
		{"Custom takes the last mapping", "m5.large", Class{Family: amifamily.Custom, BlockDeviceMappings: data}, "150Gi"},
		{"RAID0: instance stores in GB", "g5.xlarge", Class{Family: amifamily.AL2023, InstanceStorePolicy: "RAID0", BlockDeviceMappings: root}, "250G"},
		{"RAID0 without instance stores", "m5.large", Class{Family: amifamily.AL2023, InstanceStorePolicy: "RAID0", BlockDeviceMappings: root}, "200Gi"},
	} {
		n := compute(t, c.typ, c.class, DefaultSettings())
		if got := str(n.Capacity, corev1.ResourceEphemeralStorage); got != c.want {
			t.Errorf("%s: ephemeral storage %s, want %s", c.name, got, c.want)
		}
	}
}

func TestExtendedResources(t *testing.T) {
	for _, c := range []struct {
		typ   string
		class Class
		want  map[corev1.ResourceName]string
	}{
		{"p4d.24xlarge", Class{Family: amifamily.AL2023}, map[corev1.ResourceName]string{ResourceNVIDIAGPU: "8", ResourceEFA: "4", ResourceAMDGPU: "0"}},
		{"g4ad.xlarge", Class{Family: amifamily.AL2023}, map[corev1.ResourceName]string{ResourceAMDGPU: "1", ResourceNVIDIAGPU: "0"}},
		{"inf1.xlarge", Class{Family: amifamily.AL2023}, map[corev1.ResourceName]string{ResourceAWSNeuron: "1", ResourceAWSNeuronCore: "4"}},
		{"trn1.2xlarge", Class{Family: amifamily.Bottlerocket}, map[corev1.ResourceName]string{ResourceAWSNeuron: "1", ResourceAWSNeuronCore: "2"}},
		// The class's interfaces replace the type's EFA count.
		{"p4d.24xlarge", Class{Family: amifamily.AL2023, NetworkInterfaces: []manifest.NetworkInterface{{InterfaceType: "efa-only"}}},
			map[corev1.ResourceName]string{ResourceEFA: "1"}},
		// Windows counts the secondary addresses of an ENI (10 - 1).
		{"m5.large", Class{Family: amifamily.Windows2022}, map[corev1.ResourceName]string{ResourcePrivateIPv4Address: "9", corev1.ResourcePods: "110"}},
		// ... but gives an arm64 type no OS, hence none.
		{"m6g.large", Class{Family: amifamily.Windows2022}, map[corev1.ResourceName]string{ResourcePrivateIPv4Address: "<absent>"}},
		// Graviton: 64 MiB of CMA off 8 GiB, then 7.5 %.
		{"m6g.large", Class{Family: amifamily.AL2023}, map[corev1.ResourceName]string{corev1.ResourceMemory: "7518Mi"}},
	} {
		n := compute(t, c.typ, c.class, DefaultSettings())
		for name, want := range c.want {
			if got := str(n.Capacity, name); got != want {
				t.Errorf("%s on %s: %s = %s, want %s", c.typ, c.class.Family, name, got, want)
			}
		}
	}
}

func TestKubeletOverrides(t *testing.T) {
	k := &manifest.Kubelet{
		MaxPods:        new(int32(50)),
		KubeReserved:   map[string]string{"cpu": "500m"},
		SystemReserved: map[string]string{"memory": "1Gi"},
		EvictionHard:   map[string]string{"memory.available": "10%", "nodefs.available": "1Gi"},
		EvictionSoft:   map[string]string{"memory.available": "50%"},
	}
	n := compute(t, "m5.large", Class{Family: amifamily.AL2023, Kubelet: k}, DefaultSettings())
	if n.MaxPods != 50 {
		t.Errorf("max pods %d", n.MaxPods)
	}
	// 2000m - 500m; the tiers are replaced, not added to.
	if got := str(n.Allocatable, corev1.ResourceCPU); got != "1500m" {
		t.Errorf("cpu %s", got)
	}
	// AL2023 sizes kube-reserved memory for 29 pods whatever max_pods
	// says: 7577 - 574 - 1024 - ceil(7577 Mi × 10 %) (soft ignored).
	if got := n.Allocatable[corev1.ResourceMemory]; got.Value() != (7577-574-1024)*1024*1024-794506036 {
		t.Errorf("memory %d", got.Value())
	}
	if got := str(n.Overhead.EvictionThreshold, corev1.ResourceEphemeralStorage); got != "1Gi" {
		t.Errorf("nodefs %s", got)
	}
}

func TestOfflineTypesFail(t *testing.T) {
	it, ok := instancetype.Embedded().Type("m5.large")
	if !ok {
		t.Fatal("m5.large offline")
	}
	_, err := Compute(it, Class{Family: amifamily.AL2023}, DefaultSettings())
	var fe *FactsError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "vCPUs") || !strings.Contains(err.Error(), "network interfaces") {
		t.Errorf("offline: %v", err)
	}
	// Windows does not need the network facts.
	_, err = Compute(it, Class{Family: amifamily.Windows2022}, DefaultSettings())
	if !errors.As(err, &fe) || strings.Contains(err.Error(), "network") {
		t.Errorf("offline Windows: %v", err)
	}
}

func TestBadInputsAreErrors(t *testing.T) {
	m5 := fixture(t, "m5.large")
	for _, c := range []struct {
		name  string
		class Class
		s     Settings
		want  string
	}{
		{"family", Class{Family: "Ubuntu"}, DefaultSettings(), `"Ubuntu"`},
		{"percent", Class{Family: amifamily.AL2023}, Settings{VMMemoryOverheadPercent: 1}, "vm-memory-overhead-percent 1 is outside"},
		{"reserved", Class{Family: amifamily.AL2023}, Settings{ReservedENIs: -1}, "reserved-enis -1 is negative"},
		{"kube_reserved", Class{Family: amifamily.AL2023, Kubelet: &manifest.Kubelet{KubeReserved: map[string]string{"cpu": "lots"}}}, DefaultSettings(), `kube_reserved["cpu"] = "lots"`},
		{"system_reserved", Class{Family: amifamily.AL2023, Kubelet: &manifest.Kubelet{SystemReserved: map[string]string{"memory": "1GB"}}}, DefaultSettings(), `system_reserved["memory"]`},
		{"eviction", Class{Family: amifamily.AL2023, Kubelet: &manifest.Kubelet{EvictionHard: map[string]string{"memory.available": "x%"}}}, DefaultSettings(), "not a percentage"},
		{"volume", Class{Family: amifamily.AL2023, BlockDeviceMappings: []manifest.BlockDeviceMapping{{RootVolume: true, EBS: &manifest.BlockDevice{VolumeSize: "big"}}}}, DefaultSettings(), `volumeSize "big"`},
	} {
		if _, err := Compute(m5, c.class, c.s); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

func TestSettingsValidate(t *testing.T) {
	for _, s := range []Settings{DefaultSettings(), {VMMemoryOverheadPercent: 0}, {VMMemoryOverheadPercent: 0.999, ReservedENIs: 3}} {
		if err := s.Validate(); err != nil {
			t.Errorf("%+v: %v", s, err)
		}
	}
	for _, s := range []Settings{{VMMemoryOverheadPercent: -0.01}, {VMMemoryOverheadPercent: 1}, {ReservedENIs: -1}} {
		if err := s.Validate(); err == nil {
			t.Errorf("%+v accepted", s)
		}
	}
}

// Total sums the three lists per resource.
func TestOverheadTotal(t *testing.T) {
	n := compute(t, "m5.large", Class{Family: amifamily.AL2023, Kubelet: &manifest.Kubelet{SystemReserved: map[string]string{"memory": "100Mi"}}}, DefaultSettings())
	if got := str(n.Overhead.Total(), corev1.ResourceMemory); got != "774Mi" { // 574 + 100 + 100
		t.Errorf("total memory %s", got)
	}
}
