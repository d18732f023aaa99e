package capacity

import (
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
)

// BenchmarkCompute is one node's resources and labels: what the
// scheduling prediction pays per instance type and class.
func BenchmarkCompute(b *testing.B) {
	t := fixture(b, "m5.large")
	c := Class{Family: amifamily.AL2023, Kubelet: &manifest.Kubelet{SystemReserved: map[string]string{"cpu": "100m"}}}
	b.Run("Compute", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Compute(t, c, DefaultSettings()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("InstanceLabels", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			InstanceLabels(t, amifamily.AL2023, Offering{Region: "us-east-1", Zone: "us-east-1a", CapacityType: "spot"})
		}
	})
}
