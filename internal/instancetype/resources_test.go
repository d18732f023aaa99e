package instancetype

import (
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/requirements"
)

func TestFromEC2Resources(t *testing.T) {
	in := info("p9.48xlarge", ec2types.ArchitectureTypeArm64, ec2types.ArchitectureTypeX8664)
	in.GpuInfo = &ec2types.GpuInfo{Gpus: []ec2types.GpuDeviceInfo{{Manufacturer: aws.String("NVIDIA"), Count: aws.Int32(8)}, {Manufacturer: aws.String("AMD"), Count: aws.Int32(2)}}}
	in.NeuronInfo = &ec2types.NeuronInfo{NeuronDevices: []ec2types.NeuronDeviceInfo{{Count: aws.Int32(16), CoreInfo: &ec2types.NeuronDeviceCoreInfo{Count: aws.Int32(2)}}}}
	in.NetworkInfo.EfaInfo = &ec2types.EfaInfo{MaximumEfaInterfaces: aws.Int32(32)}
	in.InstanceStorageInfo = &ec2types.InstanceStorageInfo{TotalSizeInGB: aws.Int64(7600)}
	it, ok := FromEC2(in)
	if !ok || it.Resources == nil {
		t.Fatal("no resources")
	}
	r := it.Resources
	if r.FirstArchitecture != "arm64" || r.EFAInterfaces != 32 || r.InstanceStorageGB == nil || *r.InstanceStorageGB != 7600 {
		t.Errorf("%+v", r)
	}
	if !slices.Equal(r.GPUs, []Device{{"NVIDIA", 8}, {"AMD", 2}}) || !slices.Equal(r.NeuronDevices, []NeuronDevice{{16, 2}}) {
		t.Errorf("devices %+v %+v", r.GPUs, r.NeuronDevices)
	}
	bare, _ := FromEC2(info("m5.large", ec2types.ArchitectureTypeX8664))
	if bare.Resources == nil || bare.Resources.NeuronDevices != nil || bare.Resources.InstanceStorageGB != nil || len(bare.Resources.GPUs) != 0 {
		t.Errorf("m5.large %+v", bare.Resources)
	}
	if emb, _ := Embedded().Type("m5.large"); emb.Resources != nil {
		t.Error("offline types have no resource facts")
	}
}

// Karpenter's tables, by name, in both sources.
func TestKarpenterTables(t *testing.T) {
	l, ok := VPCLimitsOf("m5.large")
	if !ok || l.IPv4PerENI != 10 || l.BranchENIs != 9 {
		t.Errorf("m5.large limits %+v %v", l, ok)
	}
	if l, ok := VPCLimitsOf("t2.micro"); !ok || l.BranchENIs != 0 { // not trunking compatible
		t.Errorf("t2.micro limits %+v %v", l, ok)
	}
	live, _ := FromEC2(info("m5.large", ec2types.ArchitectureTypeX8664))
	emb, _ := Embedded().Type("m5.large")
	for _, it := range []Type{live, emb} {
		if got := label(it, requirements.LabelInstanceNetworkBandwidth); got != "karpenter.k8s.aws/instance-network-bandwidth In [750]" {
			t.Errorf("%s %v: %s", it.Name, it.Exact, got)
		}
	}
	unknown, _ := FromEC2(info("zz9.large", ec2types.ArchitectureTypeX8664))
	if got := label(unknown, requirements.LabelInstanceNetworkBandwidth); !strings.Contains(got, "DoesNotExist") {
		t.Errorf("a type the table lacks: %s", got)
	}
}

func TestParseTablesErrors(t *testing.T) {
	for _, text := range []string{"m5.large 10 9", "m5.large x 9 750", "m5.large 10 - 750", "m5.large - 9 750"} {
		if _, err := parseTables(text); err == nil {
			t.Errorf("%q parsed", text)
		}
	}
	m, err := parseTables("# comment\n\nm5.large - - 750\n")
	if err != nil || m["m5.large"].hasLimits || m["m5.large"].bandwidth != 750 {
		t.Errorf("%v %+v", err, m)
	}
}
