package scheduling

import (
	"bufio"
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

//go:generate go run ./internal/pricegen prices.txt

// prices.txt is the static on-demand price table karpenter-provider-aws
// ships (pkg/providers/pricing zz_generated.pricing_*.go), written by
// internal/pricegen. Karpenter starts from it and replaces it with the
// Pricing API's answers and spot price history at run time; a plan cannot
// know those, so the prediction orders instance types by the static table,
// with spot priced as on-demand, as Karpenter does until its first spot
// price update (pricing.go populateInitialSpotPricing).
//
//go:embed prices.txt
var pricesText string

var priceTables = sync.OnceValue(func() map[string]map[string]float64 {
	t, err := parsePrices(pricesText)
	if err != nil {
		panic(err) // the embedded file is part of the build; tests cover it
	}
	return t
})

func parsePrices(text string) (map[string]map[string]float64, error) {
	out := map[string]map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for line := 1; sc.Scan(); line++ {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if len(f) != 3 {
			return nil, fmt.Errorf("prices.txt:%d: want <region> <type> <price>", line)
		}
		p, err := strconv.ParseFloat(f[2], 64)
		if err != nil {
			return nil, fmt.Errorf("prices.txt:%d: %w", line, err)
		}
		if out[f[0]] == nil {
			out[f[0]] = map[string]float64{}
		}
		out[f[0]][f[1]] = p
	}
	return out, sc.Err()
}

// Prices are the on-demand prices of one region.
type Prices struct {
	Region string
	table  map[string]float64
}

// PricesFor is the static table of a region; a region without one gets
// us-east-1's, as Karpenter's pricing provider does (Reset).
func PricesFor(region string) Prices {
	t, ok := priceTables()[region]
	if !ok {
		return Prices{Region: "us-east-1", table: priceTables()["us-east-1"]}
	}
	return Prices{Region: region, table: t}
}

// OnDemand is a type's on-demand price; a type without one has no
// offering Karpenter can launch.
func (p Prices) OnDemand(instanceType string) (float64, bool) {
	v, ok := p.table[instanceType]
	return v, ok
}
