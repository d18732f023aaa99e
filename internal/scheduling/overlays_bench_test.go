package scheduling

import (
	"context"
	"testing"
)

// BenchmarkOverlays times applying three NodeOverlays (a Savings Plans
// discount on every on-demand offering, an extended resource on arm64,
// a fixed price on one family) to the benchmark's 10 pools on the
// 1,363-type catalogue with Karpenter's overlay controller: what the gate
// adds to a decision.
func BenchmarkOverlays(b *testing.B) {
	facts := benchFacts(b)
	facts.NodeOverlayGate = true
	in := benchInput()
	in.NodeOverlays = []string{
		"apiVersion: karpenter.sh/v1alpha1\nkind: NodeOverlay\nmetadata:\n  name: sp\nspec:\n  priceAdjustment: \"-28%\"\n  requirements:\n    - key: karpenter.sh/capacity-type\n      operator: In\n      values: [on-demand]\n",
		"apiVersion: karpenter.sh/v1alpha1\nkind: NodeOverlay\nmetadata:\n  name: fuse\nspec:\n  capacity:\n    smarter-devices/fuse: \"20\"\n  requirements:\n    - key: kubernetes.io/arch\n      operator: In\n      values: [arm64]\n",
		"apiVersion: karpenter.sh/v1alpha1\nkind: NodeOverlay\nmetadata:\n  name: m7i\nspec:\n  weight: 20\n  price: \"0.05\"\n  requirements:\n    - key: karpenter.k8s.aws/instance-family\n      operator: In\n      values: [m7i]\n",
	}
	p := Parse(in)
	if fs := p.Findings(); len(fs) > 0 {
		b.Fatal(fs)
	}
	ctx := decisionContext(context.Background())
	d := &Decision{}
	pools, its, facts2 := p.admitPools(ctx, facts, d)
	b.ReportAllocs()
	for b.Loop() {
		d := &Decision{}
		p.applyOverlays(ctx, facts, d, pools, its, facts2)
		if len(d.Findings) > 0 {
			b.Fatal(d.Findings)
		}
	}
}
