package capacity

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// The eviction threshold of ephemeral storage (10 % of the root volume,
// computed through a float as Karpenter does) prints in Gi like the
// reservations beside it; CPU and values that are not whole KiB keep
// their own form.
func TestReadable(t *testing.T) {
	storage := resource.MustParse("20Gi")
	th, err := evictionThreshold(resource.MustParse("8Gi"), storage, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name corev1.ResourceName
		q    resource.Quantity
		want string
	}{
		{corev1.ResourceEphemeralStorage, th[corev1.ResourceEphemeralStorage], "2Gi"},
		{corev1.ResourceMemory, th[corev1.ResourceMemory], "100Mi"},
		{corev1.ResourceEphemeralStorage, resource.MustParse("2.147483648e+09"), "2Gi"},
		{corev1.ResourceEphemeralStorage, resource.MustParse("1000"), "1k"},
		{corev1.ResourceCPU, resource.MustParse("2048"), "2048"},
		{corev1.ResourceCPU, resource.MustParse("100m"), "100m"},
		{"hugepages-2Mi", resource.MustParse("4194304"), "4Mi"},
		{corev1.ResourceEphemeralStorage, resource.MustParse("250G"), "250G"},
		{corev1.ResourceMemory, resource.MustParse("4096"), "4096"},
	} {
		got := Readable(c.name, c.q)
		if s := got.String(); s != c.want {
			t.Errorf("Readable(%s, %s) = %s, want %s", c.name, c.q.String(), s, c.want)
		}
		if got.Cmp(c.q) != 0 {
			t.Errorf("Readable(%s, %s) changed the value", c.name, c.q.String())
		}
	}
}
