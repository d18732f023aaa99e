package scheduling_test

import (
	"context"
	"strings"
	"testing"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling/schedulingtest"
)

// fakePrices answer as Karpenter's pricing provider does after its
// updates: on-demand per type, spot per type and zone, nothing else.
type fakePrices struct {
	onDemand map[string]float64
	spot     map[string]map[string]float64
}

func (f fakePrices) OnDemandPrice(it ec2types.InstanceType) (float64, bool) {
	p, ok := f.onDemand[string(it)]
	return p, ok
}

func (f fakePrices) SpotPrice(it ec2types.InstanceType, zone string) (float64, bool) {
	p, ok := f.spot[string(it)][zone]
	return p, ok
}

func decidePriced(t *testing.T, e *schedulingtest.Emulator, in scheduling.Input, prices *scheduling.PriceSource) *scheduling.Decision {
	t.Helper()
	p := scheduling.Parse(in)
	f := e.Facts(t, p)
	f.Prices = prices
	d, err := p.Decide(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func pinned(capacityTypes string, types ...string) string {
	return "      requirements:\n        - key: node.kubernetes.io/instance-type\n          operator: In\n          values: [" + strings.Join(types, ", ") + "]\n" +
		"        - key: karpenter.sh/capacity-type\n          operator: In\n          values: [" + capacityTypes + "]\n"
}

// TestCostStaticOnDemand: a pool pinned to one on-demand type prices its
// NodeClaim at Karpenter's static table price for that type and region;
// the pool and the total are the sum of its NodeClaims, the month 730 h;
// the source names the table and its date and what no figure includes.
func TestCostStaticOnDemand(t *testing.T) {
	e := schedulingtest.Start(t, nil)
	anti := "      affinity:\n        podAntiAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n" +
		"            - topologyKey: kubernetes.io/hostname\n              labelSelector:\n                matchLabels:\n                  app: web\n"
	d := e.Decide(t, scheduling.Input{
		NodePools:   []string{schedulingtest.Pool("default", "", pinned("on-demand", "m5.large"))},
		NodeClasses: []string{schedulingtest.Class},
		Workloads:   []string{schedulingtest.Deployment("web", 3, "500m", anti)},
	})
	want, ok := scheduling.PricesFor("us-east-1").OnDemand("m5.large")
	if !ok || want != 0.096 {
		t.Fatalf("the table's m5.large: %v %v", want, ok)
	}
	if len(d.NodeClaims) != 3 {
		t.Fatalf("NodeClaims: %+v", d.NodeClaims)
	}
	for _, nc := range d.NodeClaims {
		if p := nc.Price; !p.Known || p.CapacityType != "on-demand" || p.Hourly != want || p.HourlyMax != want || p.IsRange() {
			t.Errorf("NodeClaim price %+v, want on-demand %v", p, want)
		}
	}
	pc := d.Cost.NodePools["default"]
	if pc.Hourly != 0.288 || pc.NodeClaims != 3 || d.Cost.Hourly != 0.288 || d.Cost.HourlyMax != 0.288 || d.Cost.Monthly() != 210.24 {
		t.Errorf("cost %+v, pool %+v, monthly %v", d.Cost, pc, d.Cost.Monthly())
	}
	for _, s := range []string{"static price table", scheduling.StaticTableDate, "us-east-1", "Savings Plans", "EBS", "EKS cluster fee", "data transfer"} {
		if !strings.Contains(d.Cost.Source, s) {
			t.Errorf("source does not say %q: %s", s, d.Cost.Source)
		}
	}
}

// TestCostLivePrices: with the pricing provider's answers, on-demand is
// its price (not the table's), spot is a range from the cheapest to the
// dearest admitted spot offering, and a zone without a spot price has no
// spot offering (Karpenter's BaseResolver).
func TestCostLivePrices(t *testing.T) {
	e := schedulingtest.Start(t, nil)
	live := fakePrices{
		onDemand: map[string]float64{"m5.large": 0.1, "m5.xlarge": 0.2},
		spot: map[string]map[string]float64{
			"m5.large":  {"us-east-1a": 0.031, "us-east-1b": 0.042, "us-east-1c": 0.037},
			"m5.xlarge": {"us-east-1a": 0.07},
		},
	}
	src := &scheduling.PriceSource{Pricer: live, Source: "live"}
	in := func(capacityTypes string, types ...string) scheduling.Input {
		return scheduling.Input{
			NodePools:   []string{schedulingtest.Pool("default", "", pinned(capacityTypes, types...))},
			NodeClasses: []string{schedulingtest.Class},
			Workloads:   []string{schedulingtest.Deployment("web", 1, "500m", "")},
		}
	}
	d := decidePriced(t, e, in("on-demand", "m5.large"), src)
	if len(d.NodeClaims) != 1 || d.NodeClaims[0].Price.Hourly != 0.1 || d.Cost.Hourly != 0.1 || d.Cost.Source != "live" {
		t.Fatalf("on-demand: %+v, cost %+v", d.NodeClaims, d.Cost)
	}
	d = decidePriced(t, e, in("spot", "m5.large", "m5.xlarge"), src)
	if len(d.NodeClaims) != 1 {
		t.Fatalf("spot: %+v", d.NodeClaims)
	}
	nc := d.NodeClaims[0]
	if p := nc.Price; p.CapacityType != "spot" || p.Hourly != 0.031 || p.HourlyMax != 0.07 || !p.IsRange() {
		t.Errorf("spot price %+v, want 0.031 to 0.07", p)
	}
	if strings.Join(nc.Zones, ",") != "us-east-1a,us-east-1b,us-east-1c" {
		t.Errorf("zones %v: us-east-1d has no spot price, so no spot offering", nc.Zones)
	}
	if d.Cost.Hourly != 0.031 || d.Cost.HourlyMax != 0.07 || d.Cost.MonthlyMax() != 51.1 {
		t.Errorf("cost %+v", d.Cost)
	}
	// Spot and on-demand allowed: Karpenter launches spot, and its launch
	// filter drops spot offerings dearer than the cheapest on-demand one.
	d = decidePriced(t, e, in("spot, on-demand", "m5.large", "m5.xlarge"), src)
	if p := d.NodeClaims[0].Price; p.CapacityType != "spot" || p.Hourly != 0.031 || p.HourlyMax != 0.07 {
		t.Errorf("mixed: %+v", p)
	}
	cheap := fakePrices{onDemand: map[string]float64{"m5.large": 0.05, "m5.xlarge": 0.2}, spot: live.spot}
	d = decidePriced(t, e, in("spot, on-demand", "m5.large", "m5.xlarge"), &scheduling.PriceSource{Pricer: cheap})
	if p := d.NodeClaims[0].Price; p.CapacityType != "spot" || p.Hourly != 0.031 || p.HourlyMax != 0.042 {
		t.Errorf("mixed, spot above the cheapest on-demand (0.05) filtered: %+v", p)
	}
}

// TestCostReserved: a NodeClaim in a capacity reservation costs
// Karpenter's reserved price, a ten-millionth of on-demand; the pods the
// pods of the other pool go to an on-demand NodeClaim, and each pool's
// cost is its own.
func TestCostReserved(t *testing.T) {
	e := schedulingtest.Start(t, nil)
	class := strings.Replace(schedulingtest.Class, "name: default", "name: reserved", 1) +
		"  capacityReservationSelectorTerms:\n    - tags:\n        karpenter.sh/discovery: demo\n"
	reserved := strings.Replace(schedulingtest.Pool("reserved", "  weight: 50\n", pinned("reserved", "m5.large")), "name: default\n", "name: reserved\n", 1)
	d := e.Decide(t, scheduling.Input{
		NodePools:   []string{reserved, schedulingtest.Pool("default", "", pinned("on-demand", "m5.large"))},
		NodeClasses: []string{class, schedulingtest.Class},
		Workloads: []string{schedulingtest.Deployment("web", 2, "1500m", ""),
			schedulingtest.Deployment("api", 1, "1500m", "      nodeSelector:\n        karpenter.sh/nodepool: default\n")},
	})
	od, _ := scheduling.PricesFor("us-east-1").OnDemand("m5.large")
	var ct []string
	for _, nc := range d.NodeClaims {
		ct = append(ct, nc.NodePool+":"+nc.Price.CapacityType)
		want := od
		if nc.NodePool == "reserved" {
			want = od / 10_000_000
		}
		if nc.Price.Hourly != want {
			t.Errorf("%s NodeClaim: %+v, want %v", nc.NodePool, nc.Price, want)
		}
	}
	if strings.Join(ct, " ") != "default:on-demand reserved:reserved reserved:reserved" {
		t.Fatalf("NodeClaims: %v", ct)
	}
	if r, def := d.Cost.NodePools["reserved"], d.Cost.NodePools["default"]; r.NodeClaims != 2 || r.Hourly != 0 || def.Hourly != od || d.Cost.Hourly != od {
		t.Errorf("per pool: %+v; total %+v", d.Cost.NodePools, d.Cost)
	}
}

// TestCostSub: the difference of two decisions' costs, per pool (a pool
// on one side only counts zero on the other) and in total.
func TestCostSub(t *testing.T) {
	before := scheduling.Cost{Hourly: 0.384, HourlyMax: 0.384, NodeClaims: 2, Source: "old",
		NodePools: map[string]scheduling.PoolCost{"general": {Hourly: 0.192, HourlyMax: 0.192, NodeClaims: 1}, "gpu": {Hourly: 0.192, HourlyMax: 0.192, NodeClaims: 1}}}
	after := scheduling.Cost{Hourly: 0.5, HourlyMax: 0.7, NodeClaims: 3, Source: "new",
		NodePools: map[string]scheduling.PoolCost{"general": {Hourly: 0.1, HourlyMax: 0.1, NodeClaims: 1}, "spot": {Hourly: 0.4, HourlyMax: 0.6, NodeClaims: 2}}}
	d := after.Sub(before)
	if d.Hourly != 0.116 || d.HourlyMax != 0.316 || d.NodeClaims != 1 || d.Source != "new" || d.Monthly() != 84.68 {
		t.Errorf("total %+v", d)
	}
	want := map[string]scheduling.PoolCost{"general": {Hourly: -0.092, HourlyMax: -0.092}, "gpu": {Hourly: -0.192, HourlyMax: -0.192, NodeClaims: -1},
		"spot": {Hourly: 0.4, HourlyMax: 0.6, NodeClaims: 2}}
	if len(d.NodePools) != len(want) {
		t.Fatalf("pools %+v", d.NodePools)
	}
	for name, w := range want {
		if d.NodePools[name] != w {
			t.Errorf("%s: %+v, want %+v", name, d.NodePools[name], w)
		}
	}
	if z := after.Sub(after); z.Hourly != 0 || z.NodePools["spot"] != (scheduling.PoolCost{}) {
		t.Errorf("a cost less itself: %+v", z)
	}
}
