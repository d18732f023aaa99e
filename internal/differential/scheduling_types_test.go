package differential

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	kscheduling "sigs.k8s.io/karpenter/pkg/scheduling"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/capacity"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling/schedulingtest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// TestSchedulingInstanceTypesMatchKarpenter: for classes of every family
// and the settings that change an instance type (kubelet, block devices,
// instance store, network interfaces, capacity reservations), the instance
// types the decision hands the scheduler equal those karpenter-provider-
// aws's instance-type provider lists for the class Karpenter's reconcilers
// made Ready: every requirement, capacity, overhead, and the available
// offerings (capacity type, zone, zone id, reservation, price).
func TestSchedulingInstanceTypesMatchKarpenter(t *testing.T) {
	e := schedulingtest.Start(t, nil)
	classes := map[string]string{
		"al2023":       nodeClass("c", "al2023@latest", ""),
		"bottlerocket": nodeClass("c", "bottlerocket@latest", "  kubelet:\n    maxPods: 110\n    systemReserved:\n      cpu: 200m\n      memory: 300Mi\n"),
		"al2":          nodeClass("c", "al2@latest", "  kubelet:\n    podsPerCore: 4\n    evictionHard:\n      memory.available: 5%\n"),
		"windows":      nodeClass("c", "windows2022@latest", ""),
		"raid0":        nodeClass("c", "al2023@latest", "  instanceStorePolicy: RAID0\n  blockDeviceMappings:\n    - deviceName: /dev/xvda\n      rootVolume: true\n      ebs:\n        volumeSize: 80Gi\n"),
		"reserved":     nodeClass("c", "al2023@latest", "  capacityReservationSelectorTerms:\n    - tags:\n        karpenter.sh/discovery: demo\n"),
		"efa":          nodeClass("c", "al2023@latest", "  networkInterfaces:\n    - networkCardIndex: 0\n      deviceIndex: 0\n      interfaceType: interface\n    - networkCardIndex: 0\n      deviceIndex: 1\n      interfaceType: efa-only\n"),
	}
	for name, doc := range classes {
		t.Run(name, func(t *testing.T) {
			// Fresh providers for each class: karpenter-provider-aws
			// caches offerings by instance type, zones, capacity types,
			// subnets and network interfaces, not by the family or CPU
			// options whose compatibility decides Available, so one
			// provider would hand an AL2 class the a1 offerings it made
			// unavailable for an AL2023 class on the same subnets.
			k := newKarpenter(t, e.URL)
			kube := fakeKube()
			nc := k.reconcileClass(t, kube, k.cloudProvider(kube), []byte(doc))
			want, err := k.instanceTypes.List(k.ctx, nc)
			if err != nil {
				t.Fatal(err)
			}
			var m manifest.EC2NodeClass
			mustDecode(t, []byte(doc), &m)
			got, err := e.Catalogue.InstanceTypes(m, e.Status(t, m), capacity.DefaultSettings(), versions.DefaultKarpenter)
			if err != nil {
				t.Fatal(err)
			}
			byName := map[string]*cloudprovider.InstanceType{}
			for _, it := range got {
				byName[it.Name] = it
			}
			if len(got) != len(want) {
				t.Errorf("%d instance types, Karpenter %d", len(got), len(want))
			}
			offered := 0
			for _, w := range want {
				g, ok := byName[w.Name]
				if !ok {
					t.Errorf("%s: missing", w.Name)
					continue
				}
				if a, b := requirementsString(g.Requirements), requirementsString(w.Requirements); a != b {
					t.Errorf("%s requirements:\n %s\nKarpenter:\n %s", w.Name, a, b)
				}
				if a, b := resourcesString(g.Capacity), resourcesString(w.Capacity); a != b {
					t.Errorf("%s capacity %s, Karpenter %s", w.Name, a, b)
				}
				if a, b := resourcesString(g.Overhead.Total()), resourcesString(w.Overhead.Total()); a != b {
					t.Errorf("%s overhead %s, Karpenter %s", w.Name, a, b)
				}
				if a, b := offeringsString(g.Offerings), offeringsString(w.Offerings); a != b {
					t.Errorf("%s offerings:\n %s\nKarpenter:\n %s", w.Name, a, b)
				}
				offered += len(w.Offerings.Available())
			}
			if offered == 0 {
				t.Error("no available offering: the comparison compares nothing")
			}
		})
	}
}

func requirementsString(r kscheduling.Requirements) string {
	var out []string
	for _, key := range slices.Sorted(slices.Values(r.Keys().UnsortedList())) {
		req := r.Get(key)
		values := req.Values()
		slices.Sort(values)
		out = append(out, fmt.Sprintf("%s %s %v", key, req.Operator(), values))
	}
	return strings.Join(out, "\n ")
}

func resourcesString(l corev1.ResourceList) string {
	var out []string
	for name, q := range l {
		out = append(out, string(name)+"="+q.String())
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}

func offeringsString(os cloudprovider.Offerings) string {
	var out []string
	for _, o := range os.Available() {
		out = append(out, fmt.Sprintf("%s/%s/%s/%s price=%g capacity=%d", o.CapacityType(), o.Zone(),
			o.Requirements.Get("topology.k8s.aws/zone-id").Any(), o.ReservationID(), o.Price, o.ReservationCapacity))
	}
	slices.Sort(out)
	return strings.Join(out, "\n ")
}
