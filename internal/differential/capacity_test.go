package differential

import (
	"context"
	"encoding/csv"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"

	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	"github.com/aws/karpenter-provider-aws/pkg/operator/options"
	kamifamily "github.com/aws/karpenter-provider-aws/pkg/providers/amifamily"
	kinstancetype "github.com/aws/karpenter-provider-aws/pkg/providers/instancetype"

	family "github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/capacity"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
)

// capacityCase is one EC2NodeClass setting the capacity depends on.
type capacityCase struct {
	name    string
	kubelet *manifest.Kubelet
	bdms    []manifest.BlockDeviceMapping
	raid0   bool
	nics    []manifest.NetworkInterface
}

func ebs(device, size string, root bool) manifest.BlockDeviceMapping {
	return manifest.BlockDeviceMapping{DeviceName: device, RootVolume: root, EBS: &manifest.BlockDevice{VolumeSize: size}}
}

var capacityCases = []capacityCase{
	{name: "defaults"},
	{name: "max_pods", kubelet: &manifest.Kubelet{MaxPods: i32(20)}},
	{name: "max_pods above the ENI limit", kubelet: &manifest.Kubelet{MaxPods: i32(250)}},
	{name: "pods_per_core", kubelet: &manifest.Kubelet{PodsPerCore: i32(2)}},
	{name: "kube_reserved + system_reserved", kubelet: &manifest.Kubelet{
		KubeReserved:   map[string]string{"cpu": "250m", "memory": "1Gi", "ephemeral-storage": "3Gi", "pid": "1000"},
		SystemReserved: map[string]string{"cpu": "100m", "memory": "200Mi", "ephemeral-storage": "1Gi"},
	}},
	{name: "eviction_hard percentages, eviction_soft", kubelet: &manifest.Kubelet{
		EvictionHard: map[string]string{"memory.available": "5%", "nodefs.available": "15.5%", "imagefs.available": "20%"},
		EvictionSoft: map[string]string{"memory.available": "10%", "nodefs.available": "20%"},
	}},
	{name: "eviction_hard quantities, 100% disables", kubelet: &manifest.Kubelet{
		EvictionHard: map[string]string{"memory.available": "750Mi", "nodefs.available": "100%"},
	}},
	{name: "200Gi root volume", bdms: []manifest.BlockDeviceMapping{ebs("/dev/xvda", "200Gi", true), ebs("/dev/xvdb", "50Gi", false)}},
	{name: "volumes without a root volume", bdms: []manifest.BlockDeviceMapping{ebs("/dev/sda1", "80Gi", false), ebs("/dev/xvdb", "120G", false), ebs("/dev/xvda", "60Gi", false)}},
	{name: "RAID0", raid0: true, bdms: []manifest.BlockDeviceMapping{ebs("/dev/xvda", "100Gi", true)}},
	{name: "efa-only interfaces", nics: []manifest.NetworkInterface{
		{NetworkCardIndex: 0, DeviceIndex: 0, InterfaceType: "interface"},
		{NetworkCardIndex: 0, DeviceIndex: 1, InterfaceType: "efa-only"},
		{NetworkCardIndex: 1, DeviceIndex: 0, InterfaceType: "efa-only"},
	}},
}

// controllerCases are Karpenter controller settings.
var controllerCases = []capacity.Settings{
	capacity.DefaultSettings(),
	{VMMemoryOverheadPercent: 0.1, ReservedENIs: 1},
	{VMMemoryOverheadPercent: 0, ReservedENIs: 2},
}

// karpenterCapacity runs Karpenter's NewInstanceType for one type, family,
// class setting and controller setting.
func karpenterCapacity(info ec2types.InstanceTypeInfo, f family.Family, c capacityCase, s capacity.Settings) *cloudprovider.InstanceType {
	ctx := options.ToContext(context.Background(), &options.Options{ClusterName: "demo",
		VMMemoryOverheadPercent: s.VMMemoryOverheadPercent, ReservedENIs: s.ReservedENIs})
	k := c.kubelet
	if k == nil {
		k = &manifest.Kubelet{}
	}
	var bdms []*awsv1.BlockDeviceMapping
	for _, b := range c.bdms {
		q := resource.MustParse(b.EBS.VolumeSize)
		bdms = append(bdms, &awsv1.BlockDeviceMapping{DeviceName: aws.String(b.DeviceName), RootVolume: b.RootVolume,
			EBS: &awsv1.BlockDevice{VolumeSize: &q}})
	}
	var isp *awsv1.InstanceStorePolicy
	if c.raid0 {
		p := awsv1.InstanceStorePolicyRAID0
		isp = &p
	}
	var nics []*awsv1.NetworkInterface
	for _, n := range c.nics {
		nics = append(nics, &awsv1.NetworkInterface{NetworkCardIndex: n.NetworkCardIndex, DeviceIndex: n.DeviceIndex, InterfaceType: awsv1.InterfaceType(n.InterfaceType)})
	}
	return kinstancetype.NewInstanceType(ctx, info, "us-east-1", []string{"us-east-1a"}, nil, bdms, isp, nics,
		k.MaxPods, k.PodsPerCore, k.KubeReserved, k.SystemReserved, k.EvictionHard, k.EvictionSoft, string(f), nil)
}

// compareCapacity compares one type under every family, class case and
// controller setting; it returns the number of comparisons.
func compareCapacity(t *testing.T, info ec2types.InstanceTypeInfo) int {
	t.Helper()
	it, ok := instancetype.FromEC2(info)
	if !ok {
		return 0
	}
	n := 0
	for _, f := range family.Families {
		for _, c := range capacityCases {
			for si, s := range controllerCases {
				if si > 0 && c.name != "defaults" && c.name != "max_pods" && c.name != "efa-only interfaces" {
					continue // controller settings change pods and memory: the cases that read them
				}
				class := capacity.Class{Family: f, Kubelet: c.kubelet, BlockDeviceMappings: c.bdms, NetworkInterfaces: c.nics}
				if c.raid0 {
					class.InstanceStorePolicy = "RAID0"
				}
				got, err := capacity.Compute(it, class, s)
				want := karpenterCapacity(info, f, c, s)
				where := fmt.Sprintf("%s %s %q %+v", info.InstanceType, f, c.name, s)
				if err != nil {
					t.Errorf("%s: %v", where, err)
					continue
				}
				diffLists(t, where+" capacity", got.Capacity, want.Capacity)
				diffLists(t, where+" allocatable", got.Allocatable, want.Allocatable())
				diffLists(t, where+" kube-reserved", got.Overhead.KubeReserved, want.Overhead.KubeReserved)
				diffLists(t, where+" system-reserved", got.Overhead.SystemReserved, want.Overhead.SystemReserved)
				diffLists(t, where+" eviction", got.Overhead.EvictionThreshold, want.Overhead.EvictionThreshold)
				if got.MaxPods != want.Capacity.Pods().Value() {
					t.Errorf("%s: max pods %d, Karpenter %d", where, got.MaxPods, want.Capacity.Pods().Value())
				}
				n++
			}
		}
	}
	return n
}

// diffLists requires the same resources with the same values, printed the
// same (the data source shows the strings).
func diffLists(t *testing.T, where string, got, want corev1.ResourceList) {
	t.Helper()
	for name, w := range want {
		g, ok := got[name]
		if !ok || len(got) != len(want) {
			t.Errorf("%s: resources %v, Karpenter %v", where, slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
			return
		}
		if g.Cmp(w) != 0 || g.String() != w.String() {
			t.Errorf("%s: %s = %s, Karpenter %s", where, name, g.String(), w.String())
		}
	}
}

// Every emulator fixture type (full DescribeInstanceTypes records: GPUs,
// Neuron devices, EFA, instance storage) and c7g's.
func TestCapacityMatchesKarpenterOnFixtures(t *testing.T) {
	infos := fixtureInfos(t)
	n, types := 0, 0
	for _, info := range infos {
		if c := compareCapacity(t, info); c > 0 {
			n += c
			types++
		}
	}
	if types < 25 {
		t.Errorf("only %d fixture types compared", types)
	}
	t.Logf("%d types × %d families: %d comparisons", types, len(family.Families), n)
	// Figures Karpenter's docs and §11.7's scratch run quote for m5.large
	// on AL2023 with the defaults.
	m5, _ := instancetype.FromEC2(infos["m5.large"])
	node, err := capacity.Compute(m5, capacity.Class{Family: family.AL2023}, capacity.DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[corev1.ResourceName]string{corev1.ResourceCPU: "1930m", corev1.ResourceMemory: "6903Mi", corev1.ResourcePods: "29"} {
		if q := node.Allocatable[name]; q.String() != want {
			t.Errorf("m5.large allocatable %s = %s, want %s", name, q.String(), want)
		}
	}
	if q := node.Capacity[corev1.ResourceMemory]; q.String() != "7577Mi" {
		t.Errorf("m5.large memory capacity %s, want 7577Mi", q.String())
	}
}

// fixtures are the emulator's default fixtures with c7g's types added.
func fixtures(t *testing.T) *awsemu.Fixtures {
	t.Helper()
	f, err := awsemu.DefaultFixtures()
	if err != nil {
		t.Fatal(err)
	}
	extra, err := awsemu.LoadFixtures("../instancetype/testdata/c7g")
	if err != nil {
		t.Fatal(err)
	}
	f.AddInstanceTypes(extra.InstanceTypes...)
	return f
}

func fixtureInfos(t *testing.T) map[string]ec2types.InstanceTypeInfo {
	t.Helper()
	infos := map[string]ec2types.InstanceTypeInfo{}
	for _, in := range fixtures(t).InstanceTypes {
		infos[string(in.InstanceType)] = in
	}
	return infos
}

// Every type of the reference data (../shared/data, outside the
// repository: skipped without it), its record built from the row (vCPUs,
// memory, architecture, GPUs, accelerators, hypervisor) and Karpenter's VPC
// limits (network cards, IPv4 per ENI). The reference data has no instance
// storage or EFA figures: types whose family has local disks ("d" in the
// attribute suffix) get a made-up size, so RAID0 is exercised on both
// sides with the same input.
func TestCapacityMatchesKarpenterOnAllTypes(t *testing.T) {
	infos := referenceInfos(t)
	// Two halves in parallel: the machines running the suite have 2 cores.
	var counts [2]int
	t.Run("halves", func(t *testing.T) {
		for h := range counts {
			t.Run(strconv.Itoa(h), func(t *testing.T) {
				t.Parallel()
				for i := h; i < len(infos); i += 2 {
					counts[h] += compareCapacity(t, infos[i])
				}
			})
		}
	})
	n := counts[0] + counts[1]
	if len(infos) < 1300 {
		t.Errorf("only %d types compared", len(infos))
	}
	t.Logf("%d types × %d families × %d class settings (+ %d controller settings on 3 of them): %d comparisons",
		len(infos), len(family.Families), len(capacityCases), len(controllerCases)-1, n)
}

// referenceRows reads ../shared/data/instance-types.csv (outside the
// repository), one map of column to value per type; it skips the test
// without it.
func referenceRows(t *testing.T) []map[string]string {
	t.Helper()
	path := filepath.Join("..", "..", "..", "shared", "data", "instance-types.csv")
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("reference data not available: %v", err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("%s: %v", path, err)
	}
	out := make([]map[string]string, 0, len(rows)-1)
	for _, row := range rows[1:] {
		m := map[string]string{}
		for i, h := range rows[0] {
			m[h] = row[i]
		}
		out = append(out, m)
	}
	return out
}

// referenceInfos are the reference types as DescribeInstanceTypes records.
func referenceInfos(t *testing.T) []ec2types.InstanceTypeInfo {
	t.Helper()
	var out []ec2types.InstanceTypeInfo
	for _, row := range referenceRows(t) {
		get := func(h string) string { return row[h] }
		num := func(h string) int64 {
			v, err := strconv.ParseInt(get(h), 10, 64)
			if err != nil {
				t.Fatalf("%s: %s %q", get("instance_type"), h, get(h))
			}
			return v
		}
		name := get("instance_type")
		var info ec2types.InstanceTypeInfo
		if l, ok := kinstancetype.Limits[name]; ok {
			info = infoFromLimits(name, get("arch"), int32(num("vcpu")), l)
		} else {
			// No VPC limits: a single card of 4 ENIs with 15 addresses.
			info = infoFromLimits(name, get("arch"), int32(num("vcpu")), &kinstancetype.VPCLimits{
				Interface: 4, IPv4PerInterface: 15, NetworkCards: []kinstancetype.NetworkCard{{MaximumNetworkInterfaces: 4}}})
		}
		info.MemoryInfo = &ec2types.MemoryInfo{SizeInMiB: aws.Int64(num("memory_mib"))}
		info.Hypervisor = ec2types.InstanceTypeHypervisor(strings.TrimSuffix(get("hypervisor"), "none"))
		info.BareMetal = aws.Bool(get("bare_metal") == "true")
		info.NetworkInfo.EncryptionInTransitSupported = aws.Bool(false)
		if g := num("gpu_count"); get("gpu_manufacturer") != "" {
			info.GpuInfo = &ec2types.GpuInfo{Gpus: []ec2types.GpuDeviceInfo{{Count: aws.Int32(int32(g)),
				Manufacturer: aws.String(ec2Manufacturer(get("gpu_manufacturer"))), Name: aws.String(get("gpu_name")),
				MemoryInfo: &ec2types.GpuDeviceMemoryInfo{SizeInMiB: aws.Int32(16384)}}}}
		}
		if cores, ok := neuronCoresPerDevice[get("accelerator_name")]; ok {
			info.NeuronInfo = &ec2types.NeuronInfo{NeuronDevices: []ec2types.NeuronDeviceInfo{{
				Count: aws.Int32(int32(num("accelerator_count"))), Name: aws.String(get("accelerator_name")),
				CoreInfo: &ec2types.NeuronDeviceCoreInfo{Count: aws.Int32(cores)}}}}
		}
		if fam, _, ok := instancetype.SplitType(name); ok && localDisks(fam) {
			info.InstanceStorageInfo = &ec2types.InstanceStorageInfo{TotalSizeInGB: aws.Int64(num("vcpu") * 59),
				NvmeSupport: ec2types.EphemeralNvmeSupportRequired}
		}
		out = append(out, info)
	}
	return out
}

// neuronCoresPerDevice: NeuronCores per device of each Neuron accelerator.
var neuronCoresPerDevice = map[string]int32{"inferentia": 4, "inferentia2": 2, "trainium": 2, "trainium2": 8}

func ec2Manufacturer(label string) string {
	switch label {
	case "nvidia":
		return "NVIDIA"
	case "amd":
		return "AMD"
	case "habana":
		return "Habana"
	}
	return label
}

// localDisks: the family's attribute suffix has "d" (c5d, m6id, r7gd).
func localDisks(fam string) bool {
	i := strings.IndexAny(fam, "0123456789")
	if i < 0 {
		return false
	}
	rest := strings.TrimLeft(fam[i:], "0123456789")
	return strings.Contains(strings.SplitN(rest, "-", 2)[0], "d")
}

// The family facts the capacity model reads are Karpenter's: feature
// flags, the ephemeral block device and the default mappings.
func TestCapacityFamilyFactsMatchKarpenter(t *testing.T) {
	for _, f := range family.Families {
		k := kamifamily.GetAMIFamily(string(f), &kamifamily.Options{})
		m := f.Model()
		if got := m.ENILimitedMemoryOverhead(); got != k.FeatureFlags().UsesENILimitedMemoryOverhead {
			t.Errorf("%s: ENI-limited memory overhead %v, Karpenter %v", f, got, !got)
		}
		want := ""
		if d := k.EphemeralBlockDevice(); d != nil {
			want = *d
		}
		if got := m.EphemeralBlockDevice(); got != want {
			t.Errorf("%s: ephemeral block device %q, Karpenter %q", f, got, want)
		}
		var kd []string
		for _, b := range k.DefaultBlockDeviceMappings() {
			kd = append(kd, fmt.Sprintf("%s %s", *b.DeviceName, b.EBS.VolumeSize.String()))
		}
		var gd []string
		for _, b := range m.DefaultBlockDevices() {
			gd = append(gd, fmt.Sprintf("%s %dGi", b.Device, b.GiB))
		}
		if !slices.Equal(gd, kd) {
			t.Errorf("%s: default block devices %v, Karpenter %v", f, gd, kd)
		}
	}
	if q := kamifamily.DefaultEBS.VolumeSize.String(); q != fmt.Sprintf("%dGi", family.DefaultVolumeGiB) {
		t.Errorf("default volume %dGi, Karpenter %s", family.DefaultVolumeGiB, q)
	}
}
