package main

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/aws/karpenter-provider-aws/pkg/providers/pricing"
)

// The prices of the catalogue (testdata/pricing/, a fixture set of its own
// that tests and `awsemu -pricing` add to the others).
//
// On-demand: the static table karpenter-provider-aws ships for us-east-1,
// 5 % up (a later price list than the table: live and static figures must
// differ for tests to tell them apart); a type the table lacks gets none.
// Products Karpenter's filters must leave out sit next to them: Windows,
// an unused capacity reservation, and a Dedicated product of a type that
// is not metal. Metal types are Dedicated "Compute Instance (bare metal)"
// products, as Karpenter asks for them.
//
// Spot: each offered zone of every type that supports spot, at 25-75 %
// of the on-demand figure (a hash of type and zone), twice: an older
// price a day earlier and the current one; plus a Windows price that
// Karpenter's product filter leaves out.

const (
	pricingProductsPath = "testdata/pricing/pricing-products.json"
	spotHistoryPath     = "testdata/pricing/spot-price-history.json"
	priceListDate       = "2026-11-01T00:00:00Z"
)

// spotUpdated is when the current spot prices were set.
var spotUpdated = time.Date(2026, 11, 27, 6, 0, 0, 0, time.UTC)

func livePrice(static float64) float64 { return math.Round(static*1.05*1e6) / 1e6 }

// pricingProducts is the PriceList GetProducts answers, each entry a JSON
// document as the API returns it.
func pricingProducts() ([]string, error) {
	static := pricing.InitialOnDemandPricesAWS[region]
	var out []string
	add := func(it string, tenancy, family, os, capacityStatus string, price float64) error {
		sku := strings.ToUpper(hexOf("sku", it+tenancy+family+os+capacityStatus, 14))
		doc := map[string]any{
			"product": map[string]any{
				"productFamily": family,
				"attributes": map[string]string{
					"instanceType": it, "regionCode": region, "location": "US East (N. Virginia)", "servicecode": "AmazonEC2",
					"tenancy": tenancy, "operatingSystem": os, "preInstalledSw": "NA", "capacitystatus": capacityStatus,
					"marketoption": "OnDemand", "licenseModel": "No License required",
				},
				"sku": sku,
			},
			"serviceCode": "AmazonEC2",
			"terms": map[string]any{"OnDemand": map[string]any{sku + ".JRTCKXETXF": map[string]any{
				"sku": sku, "effectiveDate": priceListDate, "offerTermCode": "JRTCKXETXF",
				"priceDimensions": map[string]any{sku + ".JRTCKXETXF.6YS6EN2CT7": map[string]any{
					"unit": "Hrs", "description": "$" + strconv.FormatFloat(price, 'f', -1, 64) + " per " + os + " " + it + " Instance Hour",
					"pricePerUnit": map[string]string{"USD": strconv.FormatFloat(price, 'f', 10, 64)},
				}},
			}}},
			"version":         "20261101000000",
			"publicationDate": priceListDate,
		}
		b, err := json.Marshal(doc)
		out = append(out, string(b))
		return err
	}
	for _, info := range instanceTypes() {
		it := string(info.InstanceType)
		p, ok := static[info.InstanceType]
		if !ok {
			continue
		}
		tenancy, family := "Shared", "Compute Instance"
		if strings.HasSuffix(it, ".metal") {
			tenancy, family = "Dedicated", "Compute Instance (bare metal)"
		}
		if err := add(it, tenancy, family, "Linux", "Used", livePrice(p)); err != nil {
			return nil, err
		}
	}
	// What Karpenter's filters leave out.
	for _, e := range []struct {
		it, tenancy, family, os, status string
		price                           float64
	}{
		{"m5.large", "Shared", "Compute Instance", "Windows", "Used", 0.188},
		{"m5.large", "Shared", "Compute Instance", "Linux", "UnusedCapacityReservation", 0.1008},
		{"m5.large", "Dedicated", "Compute Instance", "Linux", "Used", 0.1058},
	} {
		if err := add(e.it, e.tenancy, e.family, e.os, e.status, e.price); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// spotHistory is DescribeSpotPriceHistory's records.
func spotHistory() []ec2types.SpotPrice {
	static := pricing.InitialOnDemandPricesAWS[region]
	offered := map[string][]string{}
	for _, o := range offerings() {
		offered[string(o.InstanceType)] = append(offered[string(o.InstanceType)], *o.Location)
	}
	var out []ec2types.SpotPrice
	for _, info := range instanceTypes() {
		it := string(info.InstanceType)
		od, ok := static[info.InstanceType]
		if !ok || !slices.Contains(info.SupportedUsageClasses, ec2types.UsageClassTypeSpot) {
			continue
		}
		for _, zone := range offered[it] {
			f := 0.25 + 0.5*float64(binary.BigEndian.Uint16(digest("spot", it+"/"+zone)))/65535
			price := math.Round(od*f*1e4) / 1e4
			rec := func(p float64, at time.Time, product ec2types.RIProductDescription) ec2types.SpotPrice {
				return ec2types.SpotPrice{AvailabilityZone: ptr(zone), InstanceType: info.InstanceType, ProductDescription: product,
					SpotPrice: ptr(strconv.FormatFloat(p, 'f', 6, 64)), Timestamp: ptr(at)}
			}
			out = append(out, rec(price, spotUpdated.Add((timeOfDay(it+zone) / 24).Truncate(time.Second)), "Linux/UNIX"),
				rec(math.Round(price*1.2*1e4)/1e4, spotUpdated.Add(-24*time.Hour), "Linux/UNIX"))
			if zone == "us-east-1a" {
				out = append(out, rec(math.Round(od*1.5*1e4)/1e4, spotUpdated, "Windows"))
			}
		}
	}
	return out
}
