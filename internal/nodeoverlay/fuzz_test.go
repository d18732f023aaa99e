package nodeoverlay

import (
	"context"
	"encoding/json"
	"math"
	"testing"

	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/apis/v1alpha1"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/crd"
)

// FuzzApply: any overlay the API server would store is checked and applied
// without a panic (Karpenter's price arithmetic trusts the CRD's patterns),
// prices stay numbers, and every finding has a rule and a message.
func FuzzApply(f *testing.F) {
	f.Add("", "-28%", "karpenter.sh/capacity-type", "In", "on-demand", "", "", int64(10))
	f.Add("0.05", "", "kubernetes.io/arch", "Exists", "", "smarter-devices/fuse", "20", int64(0))
	f.Add("", "+1.5", "karpenter.k8s.aws/instance-cpu", "Gt", "4", "example.com/x", "1k", int64(10000))
	f.Add("", "-100%", "node.kubernetes.io/instance-type", "NotIn", "small", "hugepages-2Mi", "1Gi", int64(1))
	f.Fuzz(func(t *testing.T, price, adj, key, op, value, capName, capQty string, weight int64) {
		spec := map[string]any{}
		r := map[string]any{"key": key, "operator": op}
		if value != "" {
			r["values"] = []any{value}
		}
		spec["requirements"] = []any{r}
		if price != "" {
			spec["price"] = price
		}
		if adj != "" {
			spec["priceAdjustment"] = adj
		}
		if capName != "" {
			spec["capacity"] = map[string]any{capName: capQty}
		}
		if weight != 0 {
			spec["weight"] = weight
		}
		o := obj(spec)
		ctx := context.Background()
		// The findings of every step (checks.NodeOverlay orders them).
		_, found := crd.NodeOverlay.Findings(ctx, o)
		if raw, err := json.Marshal(o); err == nil {
			if ov, err := Decode(raw); err == nil {
				found = append(found, RuntimeFindings(ctx, ov)...)
			}
		}
		for _, fnd := range append(found, GateOff("x", GateHow(FrontEndCLI))) {
			if fnd.Rule == nil || fnd.Detail == "" {
				t.Fatalf("finding without rule or message: %+v", fnd)
			}
		}
		res, err := crd.NodeOverlay.Validate(ctx, o)
		if err != nil || len(res.Errors) > 0 {
			return
		}
		raw, err := json.Marshal(res.Object)
		if err != nil {
			t.Fatal(err)
		}
		ov, err := Decode(raw)
		if err != nil {
			return
		}
		out, _, err := Apply(ctx, []v1alpha1.NodeOverlay{ov}, []*v1.NodePool{pool("p")}, catalogue("p"))
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range out["p"] {
			for _, of := range it.Offerings {
				if math.IsNaN(of.Price) || math.IsInf(of.Price, 0) || of.Price < 0 {
					t.Fatalf("%s: price %v", it.Name, of.Price)
				}
			}
		}
	})
}
