package scheduling

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/apis/v1alpha1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/crd"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodeoverlay"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// ListNodeOverlays is the data source's argument of NodeOverlay manifests.
const ListNodeOverlays = "node_overlays"

// overlay is a NodeOverlay of the input, as the API server would store it.
type overlay struct {
	list  string
	input int
	pos   Position
	o     v1alpha1.NodeOverlay
}

// isOverlay reports whether o is a NodeOverlay, in any version.
func isOverlay(o object) bool {
	return o.gvk.Group == groupKarpenter && o.gvk.Kind == nodeoverlay.Kind
}

// readOverlay decodes a NodeOverlay of list; one the API server would
// refuse (its CRD and CEL rules) never reaches Karpenter and is an input
// error, as is a name given twice.
func readOverlay(o object, list string, seen map[string]Position) (*overlay, *inputError) {
	fail := func(msg string) (*overlay, *inputError) {
		return nil, &inputError{input: o.input, pos: o.pos, what: o.describe(), key: o.key(), err: msg}
	}
	if !isOverlay(o) || o.gvk.GroupVersion().String() != nodeoverlay.APIVersion {
		return fail(fmt.Sprintf("%s holds NodeOverlay objects only (apiVersion: %s, kind: %s); this document is apiVersion %s, kind %s",
			list, nodeoverlay.APIVersion, nodeoverlay.Kind, o.gvk.GroupVersion(), o.gvk.Kind))
	}
	var obj map[string]any
	if err := json.Unmarshal(o.raw, &obj); err != nil {
		return fail("it is not a JSON object: " + err.Error())
	}
	res, err := crd.NodeOverlay.Validate(context.Background(), obj)
	if err != nil {
		return fail(err.Error())
	}
	if len(res.Errors) > 0 {
		var msgs []string
		for _, e := range res.Errors {
			msgs = append(msgs, e.Text)
		}
		return fail(fmt.Sprintf("the API server would refuse it (CRD of karpenter-provider-aws %s): %s", crd.KarpenterVersion, strings.Join(msgs, "; ")))
	}
	stored, err := json.Marshal(res.Object)
	if err != nil {
		return fail(err.Error())
	}
	ov, err := nodeoverlay.Decode(stored)
	if err != nil {
		return fail("a field has the wrong type: " + err.Error())
	}
	if p, dup := seen[ov.Name]; dup {
		return fail(fmt.Sprintf("NodeOverlay %q is defined twice (first in %s); NodeOverlays are cluster-scoped, so the second replaces the first", ov.Name, p))
	}
	seen[ov.Name] = o.pos
	return &overlay{list: list, input: o.input, pos: o.pos, o: ov}, nil
}

// readOverlays decodes the node_overlays input.
func readOverlays(inputs []string) ([]overlay, []inputError) {
	var out []overlay
	seen := map[string]Position{}
	errs := readList(inputs, func(o object) *inputError {
		ov, err := readOverlay(o, ListNodeOverlays, seen)
		if ov != nil {
			out = append(out, *ov)
		}
		return err
	})
	return out, errs
}

// applyOverlays is Karpenter's overlay decorator on the pools' instance
// types: with the NodeOverlay gate on, the overlays of the input applied
// by Karpenter's own controller (internal/nodeoverlay.Apply); with it off,
// a warning per overlay that Karpenter ignores it. facts' lists follow.
func (p *Parsed) applyOverlays(ctx context.Context, f Facts, d *Decision, pools []*v1.NodePool, its map[string][]*cloudprovider.InstanceType, facts []poolFacts) map[string][]*cloudprovider.InstanceType {
	if len(p.overlays) == 0 {
		return its
	}
	at := func(ov overlay, fnd rules.Finding) Finding {
		fnd.Path = rules.Root(ov.list).Index(ov.input)
		return Finding{Finding: fnd, List: ov.list, Input: ov.input, Position: ov.pos, Object: "/NodeOverlay/" + ov.o.Name}
	}
	if !f.NodeOverlayGate {
		for _, ov := range p.overlays {
			d.Findings = append(d.Findings, at(ov, nodeoverlay.GateOff(ov.o.Name, p.gateHow)))
		}
		return its
	}
	list := make([]v1alpha1.NodeOverlay, len(p.overlays))
	for i, ov := range p.overlays {
		list[i] = ov.o
	}
	out, outcomes, err := nodeoverlay.Apply(ctx, list, pools, its)
	if err != nil {
		d.Findings = append(d.Findings, at(p.overlays[0], rules.New(nodeoverlay.RuleConflict, rules.Path{}, "%v; the decision is made without the NodeOverlays", err).AsWarning()))
		return its
	}
	for i, oc := range outcomes {
		if oc.Applied {
			continue
		}
		// The decision goes on without it, as Karpenter's does.
		d.Findings = append(d.Findings, at(p.overlays[i], nodeoverlay.NotApplied(oc).AsWarning()))
	}
	for i := range facts {
		byName := map[string]*cloudprovider.InstanceType{}
		for _, it := range out[facts[i].pool.Name] {
			byName[it.Name] = it
		}
		facts[i].its = out[facts[i].pool.Name]
		for j, it := range facts[i].admitted {
			if o, ok := byName[it.Name]; ok {
				facts[i].admitted[j] = o
			}
		}
	}
	return out
}
