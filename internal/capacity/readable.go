package capacity

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Readable is q as people read a quantity of name: bytes (memory,
// ephemeral storage, huge pages) that are whole KiB print in Ki, Mi or Gi
// as Karpenter's own reservations do ("2Gi", not "2147483648"); a
// threshold computed through a float ("2.147483648e+09") prints in full.
// The value is unchanged; only its format is.
func Readable(name corev1.ResourceName, q resource.Quantity) resource.Quantity {
	bytes := name == corev1.ResourceMemory || name == corev1.ResourceEphemeralStorage || strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix)
	if bytes && q.Format != resource.BinarySI && q.MilliValue()%1000 == 0 && q.Value()%1024 == 0 {
		return *resource.NewQuantity(q.Value(), resource.BinarySI)
	}
	if q.Format == resource.DecimalExponent {
		return *resource.NewMilliQuantity(q.MilliValue(), resource.DecimalSI)
	}
	return q
}
