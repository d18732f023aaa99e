package nodeoverlay

import (
	"context"
	"math"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/apis/v1alpha1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/scheduling"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules/rulestest"
)

func overlay(name string, weight int32, spec v1alpha1.NodeOverlaySpec) v1alpha1.NodeOverlay {
	if weight != 0 {
		spec.Weight = &weight
	}
	return v1alpha1.NodeOverlay{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec}
}

func ptr[T any](v T) *T { return &v }

func pool(name string) *v1.NodePool {
	return &v1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: name}}
}

// instanceType is an amd64 Linux type offered spot and on-demand in two
// zones, on-demand at price, spot at 30 % of it.
func instanceType(name string, price float64) *cloudprovider.InstanceType {
	var offs cloudprovider.Offerings
	for _, zone := range []string{"zone-a", "zone-b"} {
		for ct, p := range map[string]float64{"on-demand": price, "spot": price * 0.3} {
			offs = append(offs, &cloudprovider.Offering{Available: true, Price: p, Requirements: scheduling.NewLabelRequirements(map[string]string{
				v1.CapacityTypeLabelKey: ct, corev1.LabelTopologyZone: zone,
			})})
		}
	}
	return &cloudprovider.InstanceType{
		Name: name,
		// As a cloud provider builds them: the offerings' keys are the
		// type's requirements too.
		Requirements: scheduling.NewRequirements(
			scheduling.NewRequirement(corev1.LabelInstanceTypeStable, corev1.NodeSelectorOpIn, name),
			scheduling.NewRequirement(corev1.LabelArchStable, corev1.NodeSelectorOpIn, "amd64"),
			scheduling.NewRequirement(corev1.LabelOSStable, corev1.NodeSelectorOpIn, "linux"),
			scheduling.NewRequirement(v1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, "on-demand", "spot"),
			scheduling.NewRequirement(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, "zone-a", "zone-b"),
		),
		Offerings: offs,
		Capacity:  corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("16Gi"), corev1.ResourcePods: resource.MustParse("58")},
		Overhead:  &cloudprovider.InstanceTypeOverhead{},
	}
}

// catalogue is two instance types shared by the pools named.
func catalogue(pools ...string) map[string][]*cloudprovider.InstanceType {
	its := []*cloudprovider.InstanceType{instanceType("small", 0.1), instanceType("large", 0.4)}
	out := map[string][]*cloudprovider.InstanceType{}
	for _, p := range pools {
		out[p] = its
	}
	return out
}

func find(its []*cloudprovider.InstanceType, name string) *cloudprovider.InstanceType {
	for _, it := range its {
		if it.Name == name {
			return it
		}
	}
	return nil
}

func ct(o *cloudprovider.Offering) string { return o.Requirements.Get(v1.CapacityTypeLabelKey).Any() }

func onDemand() []v1alpha1.NodeSelectorRequirement {
	return []v1alpha1.NodeSelectorRequirement{{Key: v1.CapacityTypeLabelKey, Operator: corev1.NodeSelectorOpIn, Values: []string{"on-demand"}}}
}

func TestApplyPriceAndCapacity(t *testing.T) {
	its := catalogue("general")
	out, outcomes, err := Apply(context.Background(), []v1alpha1.NodeOverlay{
		overlay("savings", 0, v1alpha1.NodeOverlaySpec{Requirements: onDemand(), PriceAdjustment: ptr("-50%")}),
		overlay("fuse", 0, v1alpha1.NodeOverlaySpec{
			Requirements: []v1alpha1.NodeSelectorRequirement{{Key: corev1.LabelInstanceTypeStable, Operator: corev1.NodeSelectorOpIn, Values: []string{"large"}}},
			Capacity:     corev1.ResourceList{"smarter-devices/fuse": resource.MustParse("2")},
		}),
	}, []*v1.NodePool{pool("general")}, its)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range outcomes {
		if !o.Applied {
			t.Errorf("%s not applied: %s %s", o.Name, o.Reason, o.Message)
		}
	}
	for _, name := range []string{"small", "large"} {
		before, after := find(its["general"], name), find(out["general"], name)
		for i, of := range after.Offerings {
			want := before.Offerings[i].Price
			if ct(of) == "on-demand" {
				want /= 2
			}
			if math.Abs(of.Price-want) > 1e-9 {
				t.Errorf("%s %s offering %d: price %v, want %v", name, ct(of), i, of.Price, want)
			}
		}
		q, ok := after.Capacity["smarter-devices/fuse"]
		if (name == "large") != ok || (ok && q.Value() != 2) {
			t.Errorf("%s: fuse capacity %v (present %v)", name, q.String(), ok)
		}
	}
	if _, ok := find(its["general"], "large").Capacity["smarter-devices/fuse"]; ok {
		t.Error("the input instance type was modified")
	}
}

// The heavier overlay wins a resource or an offering's price; the lighter
// one still adds what the heavier does not set.
func TestApplyWeightOrder(t *testing.T) {
	its := catalogue("general")
	out, outcomes, err := Apply(context.Background(), []v1alpha1.NodeOverlay{
		overlay("light", 10, v1alpha1.NodeOverlaySpec{Price: ptr("9"), Capacity: corev1.ResourceList{"example.com/a": resource.MustParse("1"), "example.com/b": resource.MustParse("1")}}),
		overlay("heavy", 20, v1alpha1.NodeOverlaySpec{Requirements: onDemand(), Price: ptr("1.5"), Capacity: corev1.ResourceList{"example.com/a": resource.MustParse("5")}}),
	}, []*v1.NodePool{pool("general")}, its)
	if err != nil {
		t.Fatal(err)
	}
	if len(Conflicts(outcomes)) > 0 {
		t.Fatalf("conflicts: %v", Conflicts(outcomes))
	}
	it := find(out["general"], "small")
	for _, of := range it.Offerings {
		want := 9.0
		if ct(of) == "on-demand" {
			want = 1.5
		}
		if of.Price != want {
			t.Errorf("%s: price %v, want %v", ct(of), of.Price, want)
		}
	}
	a, b := it.Capacity["example.com/a"], it.Capacity["example.com/b"]
	if a.Value() != 5 || b.Value() != 1 {
		t.Errorf("capacity a=%s b=%s, want 5 and 1", a.String(), b.String())
	}
}

// Two overlays of the same weight on the same resource of the same
// instance type: Karpenter keeps the first by name (descending) and marks
// the other Conflict, applying none of it.
func TestApplyConflict(t *testing.T) {
	its := catalogue("general")
	out, outcomes, err := Apply(context.Background(), []v1alpha1.NodeOverlay{
		overlay("a-fuse", 10, v1alpha1.NodeOverlaySpec{Capacity: corev1.ResourceList{"smarter-devices/fuse": resource.MustParse("1")}}),
		overlay("b-fuse", 10, v1alpha1.NodeOverlaySpec{Capacity: corev1.ResourceList{"smarter-devices/fuse": resource.MustParse("3")}, Price: ptr("0.01")}),
	}, []*v1.NodePool{pool("general")}, its)
	if err != nil {
		t.Fatal(err)
	}
	got := Conflicts(outcomes)
	if len(got) != 1 || !strings.HasPrefix(got[0], "a-fuse (Conflict") {
		t.Fatalf("conflicts %v, want a-fuse", got)
	}
	it := find(out["general"], "small")
	if q := it.Capacity["smarter-devices/fuse"]; q.Value() != 3 {
		t.Errorf("fuse %s, want b-fuse's 3", q.String())
	}
	if it.Offerings[0].Price != 0.01 {
		t.Errorf("price %v, want b-fuse's 0.01", it.Offerings[0].Price)
	}
}

// An overlay that names a pool changes that pool's instance types only.
func TestApplyPoolRequirement(t *testing.T) {
	its := catalogue("a", "b")
	out, _, err := Apply(context.Background(), []v1alpha1.NodeOverlay{
		overlay("only-a", 0, v1alpha1.NodeOverlaySpec{
			Requirements: []v1alpha1.NodeSelectorRequirement{{Key: v1.NodePoolLabelKey, Operator: corev1.NodeSelectorOpIn, Values: []string{"a"}}},
			Capacity:     corev1.ResourceList{"example.com/dev": resource.MustParse("1")},
		}),
	}, []*v1.NodePool{pool("a"), pool("b")}, its)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := find(out["a"], "small").Capacity["example.com/dev"]; !ok {
		t.Error("pool a lacks the overlay's capacity")
	}
	if _, ok := find(out["b"], "small").Capacity["example.com/dev"]; ok {
		t.Error("pool b got the overlay's capacity")
	}
}

func TestApplyRuntimeInvalidIsSetAside(t *testing.T) {
	its := catalogue("general")
	out, outcomes, err := Apply(context.Background(), []v1alpha1.NodeOverlay{
		overlay("bad", 0, v1alpha1.NodeOverlaySpec{
			Requirements: []v1alpha1.NodeSelectorRequirement{{Key: v1.CapacityTypeLabelKey, Operator: corev1.NodeSelectorOpIn, Values: []string{"Spot"}}},
			Price:        ptr("0"),
		}),
	}, []*v1.NodePool{pool("general")}, its)
	if err != nil {
		t.Fatal(err)
	}
	if len(outcomes) != 1 || outcomes[0].Applied || outcomes[0].Reason != "RuntimeValidation" {
		t.Fatalf("outcomes %+v", outcomes)
	}
	if find(out["general"], "small").Offerings[0].Price == 0 {
		t.Error("an overlay Karpenter refuses changed a price")
	}
}

func obj(spec map[string]any) map[string]any {
	return map[string]any{"apiVersion": APIVersion, "kind": Kind, "metadata": map[string]any{"name": "x"}, "spec": spec}
}

func TestParseFeatureGates(t *testing.T) {
	for in, want := range map[string]bool{"NodeOverlay=true": true, "NodeOverlay=false": false, "": false, "SpotToSpotConsolidation=true,NodeOverlay=true": true} {
		g, err := ParseFeatureGates(in)
		if err != nil || g.NodeOverlay != want {
			t.Errorf("%q: %v %v", in, g.NodeOverlay, err)
		}
	}
	for _, in := range []string{"NodeOverlays=true", "NodeOverlay=yes"} {
		if _, err := ParseFeatureGates(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}

// The rules' docs examples are HCL as terraform fmt writes it, with
// blocks for blocks.
func TestRuleExamples(t *testing.T) {
	if n := rulestest.CheckExamples(t, Category); n != 3 {
		t.Errorf("%d rules in %s", n, Category)
	}
}
