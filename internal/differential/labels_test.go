package differential

import (
	"maps"
	"slices"
	"testing"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"

	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	kinstancetype "github.com/aws/karpenter-provider-aws/pkg/providers/instancetype"

	family "github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/capacity"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype"
)

// karpenterInstanceLabels are the labels Karpenter's cloud provider puts on
// the NodeClaim of an instance of the type (instanceToNodeClaim, which is
// unexported: its label steps are repeated here) launched in zone with
// capacity type ct: the single-valued requirements of NewInstanceType but
// the reservation ones, then zone, zone ID, capacity type and tenancy.
func karpenterInstanceLabels(info ec2types.InstanceTypeInfo, f family.Family, zone, zoneID, ct string) map[string]string {
	it := kinstancetype.NewInstanceType(karpenterContext(), info, "us-east-1", []string{zone},
		[]awsv1.ZoneInfo{{Zone: zone, ZoneID: zoneID}}, nil, nil, nil, nil, nil, nil, nil, nil, nil, string(f), nil)
	labels := map[string]string{}
	for key, req := range it.Requirements {
		if req.Len() == 1 && !slices.Contains([]string{cloudprovider.ReservationIDLabel, awsv1.LabelCapacityReservationType, awsv1.LabelCapacityReservationInterruptible}, req.Key) {
			labels[key] = req.Values()[0]
		}
	}
	labels[corev1.LabelTopologyZone] = zone
	labels[awsv1.LabelTopologyZoneID] = zoneID
	labels["karpenter.sh/capacity-type"] = ct
	labels[awsv1.LabelInstanceTenancy] = string(ec2types.TenancyDefault)
	return labels
}

func compareLabels(t *testing.T, info ec2types.InstanceTypeInfo) int {
	t.Helper()
	it, ok := instancetype.FromEC2(info)
	if !ok {
		return 0
	}
	n := 0
	for _, f := range family.Families {
		for _, ct := range []string{"on-demand", "spot"} {
			got := capacity.InstanceLabels(it, f, capacity.Offering{Region: "us-east-1", Zone: "us-east-1b", ZoneID: "use1-az2", CapacityType: ct})
			want := karpenterInstanceLabels(info, f, "us-east-1b", "use1-az2", ct)
			if !maps.Equal(got, want) {
				all := maps.Clone(got)
				maps.Copy(all, want)
				for _, k := range slices.Sorted(maps.Keys(all)) {
					g, gok := got[k]
					w, wok := want[k]
					if g != w || gok != wok {
						t.Errorf("%s %s %s: label %s = %q (%v), Karpenter %q (%v)", info.InstanceType, f, ct, k, g, gok, w, wok)
					}
				}
			}
			n++
		}
	}
	return n
}

// The labels of every fixture type (full DescribeInstanceTypes records)
// and of every reference type, for every family and both capacity types.
func TestInstanceLabelsMatchKarpenter(t *testing.T) {
	types, n := 0, 0
	for _, info := range fixtureInfos(t) {
		if c := compareLabels(t, info); c > 0 {
			types++
			n += c
		}
	}
	if types < 25 {
		t.Errorf("only %d fixture types", types)
	}
	t.Logf("fixtures: %d types, %d label sets compared", types, n)
	t.Run("reference", func(t *testing.T) {
		infos := referenceInfos(t)
		n := 0
		for _, info := range infos {
			n += compareLabels(t, info)
		}
		if len(infos) < 1300 {
			t.Errorf("only %d reference types", len(infos))
		}
		t.Logf("reference: %d types, %d label sets compared", len(infos), n)
	})
}
