package differential

import (
	"os"
	"strings"
	"testing"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/aws/karpenter-provider-aws/pkg/providers/pricing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling"
)

// TestPriceTableIsKarpenters: the static prices the scheduling decision
// orders instance types by are the pinned module's tables, entry for entry
// (go generate ./internal/scheduling rewrites them), and a region without a
// table gets us-east-1's, as Karpenter's pricing provider gives it.
func TestPriceTableIsKarpenters(t *testing.T) {
	n := 0
	for _, tables := range []map[string]map[ec2types.InstanceType]float64{pricing.InitialOnDemandPricesAWS,
		pricing.InitialOnDemandPricesUSGov, pricing.InitialOnDemandPricesCN} {
		for region, prices := range tables {
			p := scheduling.PricesFor(region)
			if p.Region != region {
				t.Errorf("%s: no table", region)
				continue
			}
			for it, want := range prices {
				if got, ok := p.OnDemand(string(it)); !ok || got != want {
					t.Errorf("%s %s: %v (%v), Karpenter %v", region, it, got, ok, want)
				}
				n++
			}
		}
	}
	text, err := os.ReadFile("../scheduling/prices.txt")
	if err != nil {
		t.Fatal(err)
	}
	lines := 0
	for _, l := range strings.Split(string(text), "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			lines++
		}
	}
	if lines != n {
		t.Errorf("prices.txt has %d entries, Karpenter's tables %d: run go generate ./internal/scheduling", lines, n)
	}
	if p := scheduling.PricesFor("eu-west-3"); p.Region != "us-east-1" {
		t.Errorf("a region without a table gets %s's", p.Region)
	}
	t.Logf("%d prices", n)
}
