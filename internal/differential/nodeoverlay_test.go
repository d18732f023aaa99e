package differential

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/apis/v1alpha1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/cloudprovider/overlay"
	karpoverlay "sigs.k8s.io/karpenter/pkg/controllers/nodeoverlay"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
	coreoptions "sigs.k8s.io/karpenter/pkg/operator/options"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/capacity"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodeoverlay"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling/schedulingtest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

func nodeOverlayDoc(name, spec string) string {
	return fmt.Sprintf("apiVersion: karpenter.sh/v1alpha1\nkind: NodeOverlay\nmetadata:\n  name: %s\nspec:\n%s", name, spec)
}

// overlayScenarios: price and priceAdjustment (absolute and percent) by
// capacity type, zone and family, capacity by architecture and pool, weight
// order, the lighter overlay's resources the heavier leaves alone, a
// conflict of equal weights, and an overlay Karpenter's runtime validation
// refuses.
var overlayScenarios = map[string][]string{
	"savings plan and spot discount": {
		nodeOverlayDoc("sp", "  priceAdjustment: \"-28%\"\n  requirements:\n    - key: karpenter.sh/capacity-type\n      operator: In\n      values: [on-demand]\n"),
		nodeOverlayDoc("spot-zone", "  priceAdjustment: \"-0.005\"\n  requirements:\n    - key: karpenter.sh/capacity-type\n      operator: In\n      values: [spot]\n    - key: topology.kubernetes.io/zone\n      operator: In\n      values: [us-east-1b]\n"),
		nodeOverlayDoc("fixed-m5", "  weight: 50\n  price: \"0.01\"\n  requirements:\n    - key: karpenter.k8s.aws/instance-family\n      operator: In\n      values: [m5]\n"),
	},
	"capacity by architecture and pool, weights": {
		nodeOverlayDoc("fuse-arm", "  weight: 5\n  capacity:\n    smarter-devices/fuse: \"20\"\n    example.com/dev: \"1\"\n  requirements:\n    - key: kubernetes.io/arch\n      operator: In\n      values: [arm64]\n"),
		nodeOverlayDoc("fuse-heavy", "  weight: 30\n  capacity:\n    smarter-devices/fuse: \"2\"\n  requirements:\n    - key: karpenter.k8s.aws/instance-cpu\n      operator: Gt\n      values: [\"4\"]\n"),
		nodeOverlayDoc("only-batch", "  capacity:\n    example.com/batch: \"1\"\n  requirements:\n    - key: karpenter.sh/nodepool\n      operator: In\n      values: [batch]\n"),
	},
	"conflict and runtime refusal": {
		nodeOverlayDoc("a-price", "  weight: 10\n  price: \"0.2\"\n  requirements:\n    - key: karpenter.k8s.aws/instance-category\n      operator: In\n      values: [c, m]\n"),
		nodeOverlayDoc("b-price", "  weight: 10\n  price: \"0.3\"\n  requirements:\n    - key: karpenter.k8s.aws/instance-family\n      operator: In\n      values: [c5]\n"),
		nodeOverlayDoc("bad-ct", "  price: \"0\"\n  requirements:\n    - key: karpenter.sh/capacity-type\n      operator: In\n      values: [Spot]\n"),
	},
}

// TestNodeOverlaysMatchKarpenter: the instance types of two pools with the
// overlays applied, as the decision applies them (the project's catalogue,
// internal/nodeoverlay.Apply), equal what Karpenter serves its scheduler:
// karpenter-provider-aws's cloud provider on the emulator, its NodeOverlay
// controller reconciled against a fake API server holding the pools and
// overlays, and the overlay decorator with the NodeOverlay gate on. Every
// instance type's capacity and available offerings' prices are compared,
// and the overlays Karpenter sets aside. Types Karpenter cannot launch
// (no available offering: a1 on AL2023, p4d nowhere offered) are left out:
// the decision builds no offering for them, so an overlay never matches
// them, while Karpenter still adds capacity to them.
func TestNodeOverlaysMatchKarpenter(t *testing.T) {
	e := schedulingtest.Start(t, nil)
	class := nodeClass("c", "al2023@latest", "")
	pools := []string{nodePool("general", "c", "", ""), nodePool("batch", "c", "", "")}
	for name, docs := range overlayScenarios {
		t.Run(name, func(t *testing.T) {
			k := newKarpenter(t, e.URL)
			opts := *coreoptions.FromContext(k.ctx)
			opts.FeatureGates.NodeOverlay = true
			ctx := coreoptions.ToContext(k.ctx, &opts)
			kube := fakeKube()
			undecorated := k.cloudProvider(kube)
			k.reconcileClass(t, kube, undecorated, []byte(class))
			var kpools []*karpv1.NodePool
			for _, doc := range pools {
				np := &karpv1.NodePool{}
				mustDecode(t, []byte(doc), np)
				must(t, kube.Create(ctx, np))
				kpools = append(kpools, np)
			}
			var overlays []v1alpha1.NodeOverlay
			for _, doc := range docs {
				o := &v1alpha1.NodeOverlay{}
				mustDecode(t, []byte(doc), o)
				overlays = append(overlays, *o.DeepCopy())
				must(t, kube.Create(ctx, o))
			}
			store := karpoverlay.NewInstanceTypeStore()
			ctrl := karpoverlay.NewController(k.clk, kube, undecorated, store, state.NewCluster(k.clk, kube, undecorated))
			if _, err := ctrl.Reconcile(ctx, reconcile.Request{}); err != nil {
				t.Fatal(err)
			}
			decorated := overlay.Decorate(undecorated, kube, store)

			var m manifest.EC2NodeClass
			mustDecode(t, []byte(class), &m)
			list, err := e.Catalogue.InstanceTypes(m, e.Status(t, m), capacity.DefaultSettings(), versions.DefaultKarpenter)
			if err != nil {
				t.Fatal(err)
			}
			its := map[string][]*cloudprovider.InstanceType{}
			for _, np := range kpools {
				its[np.Name] = list
			}
			got, outcomes, err := nodeoverlay.Apply(ctx, overlays, kpools, its)
			if err != nil {
				t.Fatal(err)
			}
			changed := 0
			for _, np := range kpools {
				want, err := decorated.GetInstanceTypes(ctx, np)
				if err != nil {
					t.Fatal(err)
				}
				byName := map[string]*cloudprovider.InstanceType{}
				for _, it := range got[np.Name] {
					byName[it.Name] = it
				}
				if len(want) != len(got[np.Name]) {
					t.Errorf("%s: %d instance types, Karpenter %d", np.Name, len(got[np.Name]), len(want))
				}
				for _, w := range want {
					if len(w.Offerings.Available()) == 0 {
						// The decision builds available offerings only
						// (scheduling.Catalogue): an overlay matches a type
						// through its offerings, so Karpenter may add
						// capacity to a type it can never launch and the
						// decision does not. No scheduling or price sees it.
						continue
					}
					g := byName[w.Name]
					if g == nil {
						t.Errorf("%s %s: missing", np.Name, w.Name)
						continue
					}
					if a, b := resourcesString(g.Capacity), resourcesString(w.Capacity); a != b {
						t.Errorf("%s %s capacity %s, Karpenter %s", np.Name, w.Name, a, b)
					}
					if a, b := offeringsString(g.Offerings), offeringsString(w.Offerings); a != b {
						t.Errorf("%s %s offerings:\n %s\nKarpenter:\n %s", np.Name, w.Name, a, b)
					}
					if w.IsCapacityOverlayApplied() || slices.ContainsFunc(w.Offerings, func(o *cloudprovider.Offering) bool { return o.IsPriceOverlaid() }) {
						changed++
					}
				}
			}
			if changed == 0 {
				t.Error("Karpenter applied no overlay: the comparison compares nothing")
			}
			var kept, setAside []string
			for _, o := range overlays {
				stored := &v1alpha1.NodeOverlay{}
				must(t, kube.Get(ctx, client.ObjectKeyFromObject(&o), stored))
				cond := stored.StatusConditions().Get(v1alpha1.ConditionTypeValidationSucceeded)
				if cond != nil && cond.IsFalse() {
					setAside = append(setAside, o.Name+" ("+cond.Reason)
				} else {
					kept = append(kept, o.Name)
				}
			}
			var ours []string
			for _, c := range nodeoverlay.Conflicts(outcomes) {
				ours = append(ours, strings.TrimSuffix(c, ")"))
			}
			slices.Sort(setAside)
			slices.Sort(ours)
			if strings.Join(ours, ",") != strings.Join(setAside, ",") {
				t.Errorf("set aside: %v, Karpenter %v (applied %v)", ours, setAside, kept)
			}
			if want := map[string]int{"conflict and runtime refusal": 2}[name]; len(setAside) != want {
				t.Errorf("Karpenter set aside %v, the scenario means %d", setAside, want)
			}
		})
	}
}
