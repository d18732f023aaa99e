package capacity

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Readable is q as people read a quantity of name: a bare count of bytes
// (memory, ephemeral storage, huge pages) that is whole MiB prints in Mi or Gi
// as Karpenter's own reservations do ("2Gi", not "2147483648"); a
// threshold computed through a float ("2.147483648e+09") prints in full.
// The value is unchanged; only its format is.
func Readable(name corev1.ResourceName, q resource.Quantity) resource.Quantity {
	bytes := name == corev1.ResourceMemory || name == corev1.ResourceEphemeralStorage || strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix)
	// Only a bare count of bytes is rewritten ("250G" is read as written),
	// and only into whole MiB or more (never "244140625Ki").
	plain := q.Format == resource.DecimalExponent || strings.Trim(q.String(), "0123456789") == ""
	if bytes && plain && q.MilliValue()%1000 == 0 && q.Value()%(1<<20) == 0 {
		return *resource.NewQuantity(q.Value(), resource.BinarySI)
	}
	if q.Format == resource.DecimalExponent {
		return *resource.NewMilliQuantity(q.MilliValue(), resource.DecimalSI)
	}
	return q
}
