package capacity

import (
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/requirements"
)

func TestInstanceLabels(t *testing.T) {
	m6g := fixture(t, "m6g.large")
	l := InstanceLabels(m6g, amifamily.Bottlerocket, Offering{Region: "us-east-1", CapacityType: "spot"})
	for k, want := range map[string]string{
		requirements.LabelOS: "linux", requirements.LabelArch: "arm64", requirements.LabelRegion: "us-east-1",
		requirements.LabelCapacityType: "spot", requirements.LabelInstanceTenancy: "default", requirements.LabelInstanceType: "m6g.large",
	} {
		if l[k] != want {
			t.Errorf("%s = %q, want %q", k, l[k], want)
		}
	}
	// Without a zone, neither zone nor zone ID; off Windows no build.
	for _, k := range []string{requirements.LabelZone, requirements.LabelZoneID, requirements.LabelWindowsBuild, requirements.LabelCapacityReservationID} {
		if v, ok := l[k]; ok {
			t.Errorf("%s = %q", k, v)
		}
	}
	// Windows gives an arm64 type no OS.
	if v, ok := InstanceLabels(m6g, amifamily.Windows2022, Offering{})[requirements.LabelOS]; ok {
		t.Errorf("arm64 Windows os = %q", v)
	}
	w := InstanceLabels(fixture(t, "m5.large"), amifamily.Windows2022, Offering{Zone: "us-east-1a", ZoneID: "use1-az4"})
	if w[requirements.LabelOS] != "windows" || w[requirements.LabelWindowsBuild] != "10.0.20348" || w[requirements.LabelZone] != "us-east-1a" || w[requirements.LabelZoneID] != "use1-az4" {
		t.Errorf("windows: %v", w)
	}
}

// The NodeClaim's own labels win over the cloud provider's.
func TestNodeLabels(t *testing.T) {
	got := NodeLabels(map[string]string{"a": "cloud", "b": "cloud"}, map[string]string{"b": "claim", "karpenter.sh/nodepool": "general"})
	if got["a"] != "cloud" || got["b"] != "claim" || got["karpenter.sh/nodepool"] != "general" || got[LabelRegistered] != "true" || got[LabelInitialized] != "true" {
		t.Errorf("%v", got)
	}
}
