package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodepool"
)

// TestPlanCostGuard holds the provider's share of a real plan (`make bench`
// variant R: a class on one alias with readiness reads, its pools, the
// 1,363-type catalogue) to figures that do not depend on the machine:
// allocations per PlanResourceChange and the instance types whose image a
// pool's plan matches. Each bound says why it is where it is; a change that
// puts per-pool work back (work that depends only on the class or the
// catalogue, done again for every pool) fails here before it shows as CPU
// in a plan.
func TestPlanCostGuard(t *testing.T) {
	fl := realisticFleet(t)
	renamed := func(v tftypes.Value, name string) tftypes.Value {
		var m map[string]tftypes.Value
		if err := v.As(&m); err != nil {
			t.Fatal(err)
		}
		out := map[string]tftypes.Value{}
		for k, a := range m {
			out[k] = a
		}
		out["name"] = tftypes.NewValue(tftypes.String, name)
		return tftypes.NewValue(v.Type(), out)
	}

	// Work count. The first pool of a requirement set and class images
	// matches each admitted type once (the wide pool admits hundreds); a
	// second pool with the same requirements on a class with the same
	// images (the bench's 60 pools, every fleet on one alias) matches none:
	// the answer depends only on the catalogue's admitted types and the
	// class's images, not on the pool.
	for _, name := range []string{"families", "wide"} {
		pool := fl.pools[name]
		before := nodepool.TypesMatched()
		fl.plan(t, "karpenter_nodepool", renamed(pool, "first-"+name))
		first := nodepool.TypesMatched() - before
		before = nodepool.TypesMatched()
		fl.plan(t, "karpenter_nodepool", renamed(pool, "second-"+name))
		if again := nodepool.TypesMatched() - before; again != 0 {
			t.Errorf("pool %s: a second pool with the same requirements and class images matched %d instance types again (the first matched %d): per-pool work that depends only on the class and the catalogue", name, again, first)
		}
	}

	// Allocations per PlanResourceChange, warm caches (every resource of a
	// plan after the first), the test's own encoding of the request
	// included. Measured when the guard was written: class 16.1k, pool
	// (families) 11.9k, pool (wide) 18.2k; the wide pool's extra over the
	// families pool is its two more requirements (framework conversions,
	// CRD and CEL validation of each), not its admitted types. When each
	// pool matched its admitted types' images again (before imagesOf's
	// memo) the wide pool made 19.6k. The bounds leave about 5 % for a
	// change that adds a check: above them, profile first
	// (KARPENTER_TF_CPUPROFILE, BENCHMARKS.md).
	for _, c := range []struct {
		label, name string
		cfg         tftypes.Value
		max         float64
	}{
		{"EC2NodeClass", "karpenter_ec2nodeclass", fl.class, 17000},
		{"NodePool (three families)", "karpenter_nodepool", fl.pools["families"], 12500},
		{"NodePool (wide: hundreds of admitted types)", "karpenter_nodepool", fl.pools["wide"], 19000},
	} {
		fl.plan(t, c.name, c.cfg)
		got := testing.AllocsPerRun(20, func() { fl.planResponse(t, c.name, c.cfg) })
		t.Logf("%s: %.0f allocations per PlanResourceChange", c.label, got)
		if got > c.max {
			t.Errorf("%s: %.0f allocations per PlanResourceChange, above the guard's %.0f", c.label, got, c.max)
		}
	}
}
