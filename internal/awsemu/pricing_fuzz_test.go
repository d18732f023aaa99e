package awsemu

import (
	"testing"
	"testing/fstest"
)

// FuzzPricingFixtures: any pricing-products.json or spot-price-history.json
// is read or refused with an error, never a panic, and a PriceList the
// loader accepts is one GetProducts can filter.
func FuzzPricingFixtures(f *testing.F) {
	f.Add([]byte(`{"PriceList": ["{\"product\":{\"productFamily\":\"Compute Instance\",\"attributes\":{\"instanceType\":\"m5.large\"}}}"]}`),
		[]byte(`{"SpotPriceHistory": [{"InstanceType": "m5.large", "SpotPrice": "0.03", "Timestamp": "2026-11-27T06:00:00+00:00"}]}`))
	f.Add([]byte(`{"PriceList": [{"product": {"attributes": {"instanceType": "m5.large"}}}]}`), []byte(`{}`))
	f.Add([]byte(`{"PriceList": ["not json"]}`), []byte(`{"SpotPriceHistory": "x"}`))
	f.Fuzz(func(t *testing.T, products, spot []byte) {
		fx, err := loadFixtures(fstest.MapFS{PricingProductsFile: {Data: products}, SpotPriceHistoryFile: {Data: spot}}, "fuzz")
		if err != nil {
			return
		}
		s := New(fx, Options{})
		if s.productsErr != nil {
			t.Fatalf("a PriceList the loader accepted does not index: %v", s.productsErr)
		}
		if _, e := s.getProducts([]byte(`{"ServiceCode":"AmazonEC2","Filters":[{"Type":"TERM_MATCH","Field":"instanceType","Value":"m5.large"}]}`)); e != nil {
			t.Fatalf("GetProducts: %v", e.message)
		}
	})
}
