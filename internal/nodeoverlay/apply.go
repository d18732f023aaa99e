package nodeoverlay

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/apis/v1alpha1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	karpoverlay "sigs.k8s.io/karpenter/pkg/controllers/nodeoverlay"
	"sigs.k8s.io/karpenter/pkg/controllers/state"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// Outcome is what Karpenter's controller made of one overlay: the
// ValidationSucceeded condition it sets. An overlay that is not Applied
// changes nothing.
type Outcome struct {
	Name string
	// Applied is ValidationSucceeded=True.
	Applied bool
	// Reason and Message are the False condition's ("RuntimeValidation",
	// "Conflict").
	Reason, Message string
}

// Apply returns the instance types of each NodePool (its keyed by pool
// name) with the overlays applied as Karpenter v1.14 applies them with the
// NodeOverlay gate on: its nodeoverlay controller reconciles the overlays
// and pools in-process (overlays ordered by weight, then name; each
// overlay's requirements matched against the pool's name and template
// labels and each instance type's requirements and offerings; price or
// priceAdjustment per offering, capacity entries added; an overlay of the
// same weight as one already applied to the same price or resource of an
// instance type is set aside as a Conflict), and the instance-type store
// it fills is applied to every pool's list, as the cloud provider's overlay
// decorator does. its is not modified; instance types no overlay touches
// are shared.
func Apply(ctx context.Context, overlays []v1alpha1.NodeOverlay, pools []*v1.NodePool, its map[string][]*cloudprovider.InstanceType) (map[string][]*cloudprovider.InstanceType, []Outcome, error) {
	if len(overlays) == 0 {
		return its, nil, nil
	}
	ctx = log.IntoContext(ctx, logr.Discard())
	k := &overlayClient{statuses: map[string]v1alpha1.NodeOverlay{}}
	for _, o := range overlays {
		k.overlays = append(k.overlays, *o.DeepCopy())
	}
	for _, p := range pools {
		k.pools = append(k.pools, *p.DeepCopy())
	}
	cp := &poolTypes{its: its}
	store := karpoverlay.NewInstanceTypeStore()
	clk := clock.RealClock{}
	c := karpoverlay.NewController(clk, k, cp, store, state.NewCluster(clk, k, cp))
	if _, err := c.Reconcile(ctx, reconcile.Request{}); err != nil {
		return nil, nil, fmt.Errorf("applying the NodeOverlays with Karpenter's controller: %w", err)
	}
	out := make(map[string][]*cloudprovider.InstanceType, len(its))
	for _, p := range pools {
		list, err := store.ApplyAll(p.Name, its[p.Name])
		if err != nil {
			return nil, nil, fmt.Errorf("applying the NodeOverlays to NodePool %q: %w", p.Name, err)
		}
		out[p.Name] = list
	}
	var outcomes []Outcome
	for _, o := range overlays {
		oc := Outcome{Name: o.Name, Applied: true}
		if st, ok := k.statuses[o.Name]; ok {
			if cond := st.StatusConditions().Get(v1alpha1.ConditionTypeValidationSucceeded); cond != nil && cond.IsFalse() {
				oc = Outcome{Name: o.Name, Reason: cond.Reason, Message: cond.Message}
			}
		}
		outcomes = append(outcomes, oc)
	}
	return out, outcomes, nil
}

// overlayClient is the API server the controller asks: the overlays and
// pools to List, and the status it writes, kept. Anything else the
// controller does not call; the embedded nil interface would panic.
type overlayClient struct {
	client.Client
	overlays []v1alpha1.NodeOverlay
	pools    []v1.NodePool
	statuses map[string]v1alpha1.NodeOverlay
}

func (k *overlayClient) List(_ context.Context, list client.ObjectList, _ ...client.ListOption) error {
	switch l := list.(type) {
	case *v1alpha1.NodeOverlayList:
		l.Items = slices.Clone(k.overlays)
	case *v1.NodePoolList:
		l.Items = slices.Clone(k.pools)
	default:
		return fmt.Errorf("the NodeOverlay controller listed %T, which the prediction does not hold", list)
	}
	return nil
}

func (k *overlayClient) Status() client.SubResourceWriter { return statusWriter{k} }

type statusWriter struct{ k *overlayClient }

func (w statusWriter) Create(context.Context, client.Object, client.Object, ...client.SubResourceCreateOption) error {
	return fmt.Errorf("status create is not part of the prediction")
}

func (w statusWriter) Update(context.Context, client.Object, ...client.SubResourceUpdateOption) error {
	return fmt.Errorf("status update is not part of the prediction")
}

func (w statusWriter) Patch(_ context.Context, obj client.Object, _ client.Patch, _ ...client.SubResourcePatchOption) error {
	o, ok := obj.(*v1alpha1.NodeOverlay)
	if !ok {
		return fmt.Errorf("status patch of %T is not part of the prediction", obj)
	}
	w.k.statuses[o.Name] = *o.DeepCopy()
	return nil
}

func (w statusWriter) Apply(context.Context, runtime.ApplyConfiguration, ...client.SubResourceApplyOption) error {
	return fmt.Errorf("status apply is not part of the prediction")
}

// poolTypes is the undecorated cloud provider the controller asks for each
// pool's instance types.
type poolTypes struct {
	cloudprovider.CloudProvider
	its map[string][]*cloudprovider.InstanceType
}

func (p *poolTypes) GetInstanceTypes(_ context.Context, np *v1.NodePool) ([]*cloudprovider.InstanceType, error) {
	return p.its[np.Name], nil
}

// NotApplied is the finding on an overlay Karpenter's controller set
// aside: RuleRuntime for a runtime validation failure, RuleConflict for a
// conflict.
func NotApplied(o Outcome) rules.Finding {
	if o.Reason == "RuntimeValidation" {
		return rules.New(RuleRuntime, rules.Path{}, "NodeOverlay %q: Karpenter's runtime validation refuses it (ValidationSucceeded=False, RuntimeValidation: %s), so none of its price or capacity changes is made.", o.Name, o.Message)
	}
	return rules.New(RuleConflict, rules.Path{},
		"NodeOverlay %q: Karpenter sets it aside (ValidationSucceeded=False, %s: %s): an overlay of the same weight, applied before it (Karpenter orders equal weights by name, last name first), already sets the price or a capacity resource of an instance type it matches, so none of its changes is made. Give one of them another weight, or narrow their requirements so they match different instance types.",
		o.Name, o.Reason, o.Message)
}

// Conflicts names, for the findings, the overlays Karpenter set aside.
func Conflicts(outcomes []Outcome) []string {
	var out []string
	for _, o := range outcomes {
		if !o.Applied {
			out = append(out, o.Name+" ("+strings.TrimSpace(o.Reason)+")")
		}
	}
	return out
}

// The rule the checks of this file emit.
var (
	// RuleConflict: Karpenter sets aside an overlay whose changes collide
	// with one of the same weight.
	RuleConflict = rules.Register(rules.Rule{
		ID: "nodeoverlay-conflict", Severity: rules.Warning, Category: Category,
		Title: "two NodeOverlays of the same weight set the same price or resource of an instance type; Karpenter drops one",
		Behaviour: "Karpenter applies overlays heaviest first and equal weights by name, last name first. When an overlay sets the price of an " +
			"offering, or a capacity resource, that an overlay of the same weight already set for the same NodePool and instance type, " +
			"Karpenter marks it ValidationSucceeded=False (reason Conflict) and applies none of it, on any instance type. Which one loses " +
			"depends on the names, which rarely is the intent. The provider finds it when it applies the overlays to a scheduling decision " +
			"(feature gate on).",
		Source: source,
		Bad: `# both in node_overlays of data "karpenter_scheduling", with the gate on
resource "karpenter_nodeoverlay" "sp_compute" {
  name             = "sp-compute"
  price_adjustment = "-20%"

  requirements {
    key      = "karpenter.sh/capacity-type"
    operator = "In"
    values   = ["on-demand"]
  }
}

resource "karpenter_nodeoverlay" "sp_ec2" {
  name             = "sp-ec2"
  price_adjustment = "-30%"

  requirements {
    key      = "karpenter.k8s.aws/instance-family"
    operator = "In"
    values   = ["m7g"]
  }
}`,
		Good: `resource "karpenter_nodeoverlay" "sp_compute" {
  name             = "sp-compute"
  price_adjustment = "-20%"

  requirements {
    key      = "karpenter.sh/capacity-type"
    operator = "In"
    values   = ["on-demand"]
  }
}

resource "karpenter_nodeoverlay" "sp_ec2" {
  name             = "sp-ec2"
  weight           = 20 # the EC2 Instance Savings Plan wins where both apply
  price_adjustment = "-30%"

  requirements {
    key      = "karpenter.k8s.aws/instance-family"
    operator = "In"
    values   = ["m7g"]
  }
}`,
	})
)
