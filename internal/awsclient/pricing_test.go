package awsclient_test

import (
	"context"
	"strings"
	"testing"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
)

func pricingCache(t *testing.T, deny []string, withPrices bool, endpoints func(url string) awsclient.Endpoints) (*awsclient.Cache, *awsemu.Server) {
	t.Helper()
	f, err := awsemu.DefaultFixtures()
	if err != nil {
		t.Fatal(err)
	}
	if withPrices {
		if err := f.AddPricing(); err != nil {
			t.Fatal(err)
		}
	}
	url, srv := awsemutest.StartWith(t, f, awsemu.Options{Deny: deny})
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	return awsclient.NewCache(awsclient.NewClients(awsclient.Config{Region: "us-east-1", Endpoints: endpoints(url), MaxRetries: 0})), srv
}

func allEndpoints(url string) awsclient.Endpoints {
	return awsclient.Endpoints{EC2: url, Pricing: url}
}

// TestPricesLive: Karpenter's pricing provider, run on the emulator's
// answers: on-demand from GetProducts (the Linux shared product, not the
// Windows, unused-reservation or dedicated ones), spot per zone from the
// latest Linux/UNIX record; read once per process.
func TestPricesLive(t *testing.T) {
	c, srv := pricingCache(t, nil, true, allEndpoints)
	p, err := c.Prices(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !p.OnDemand.Live || !p.Spot.Live || p.OnDemand.Err != nil || p.Spot.Err != nil {
		t.Fatalf("reads: %+v %+v", p.OnDemand, p.Spot)
	}
	if v, ok := p.Provider.OnDemandPrice("m5.large"); !ok || v != 0.1008 {
		t.Errorf("m5.large on-demand %v %v, want the Pricing API's 0.1008", v, ok)
	}
	if v, ok := p.Provider.OnDemandPrice("m5.metal"); !ok || v != 4.8384 {
		t.Errorf("m5.metal (bare metal product) %v %v", v, ok)
	}
	if v, ok := p.Provider.SpotPrice("m5.large", "us-east-1a"); !ok || v != 0.029 {
		t.Errorf("m5.large spot in us-east-1a %v %v, want the latest record's 0.029", v, ok)
	}
	if _, ok := p.Provider.SpotPrice("m5.large", "us-east-1z"); ok {
		t.Error("a zone without a record has a spot price")
	}
	// GetProducts twice (shared, bare metal), DescribeSpotPriceHistory once.
	if p.Requests != 3 {
		t.Errorf("%d requests, want 3", p.Requests)
	}
	if _, err := c.Prices(context.Background()); err != nil {
		t.Fatal(err)
	}
	stats := srv.Stats()
	if n := stats["pricing:GetProducts"] + stats["ec2:DescribeSpotPriceHistory"]; n != 3 {
		t.Errorf("the second read went to AWS: %v", stats)
	}
}

// TestPricesDeniedOrNotServed: AWS denying either read, or an endpoint
// that does not serve prices, leaves that half on the static table, with
// the error that says which.
func TestPricesDeniedOrNotServed(t *testing.T) {
	c, _ := pricingCache(t, []string{"pricing:GetProducts", "ec2:DescribeSpotPriceHistory"}, true, allEndpoints)
	p, err := c.Prices(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]awsclient.PriceRead{"pricing:GetProducts": p.OnDemand, "ec2:DescribeSpotPriceHistory": p.Spot} {
		if action, ok := awsclient.Denied(r.Err); r.Live || !ok || action != name {
			t.Errorf("%s: %+v, denied %q %v", name, r, action, ok)
		}
	}
	if v, _ := p.Provider.OnDemandPrice("m5.large"); v != 0.096 {
		t.Errorf("denied: m5.large %v, want the static table's 0.096", v)
	}
	if v, _ := p.Provider.SpotPrice(ec2types.InstanceType("m5.large"), "us-east-1a"); v != 0.096 {
		t.Errorf("denied: spot %v, want the on-demand figure of the table", v)
	}

	c, _ = pricingCache(t, nil, false, allEndpoints)
	if p, err = c.Prices(context.Background()); err != nil {
		t.Fatal(err)
	}
	if p.OnDemand.Live || p.Spot.Live || !strings.Contains(p.OnDemand.Err.Error(), awsemu.NotServedCode) {
		t.Errorf("not served: %+v %+v", p.OnDemand, p.Spot)
	}
}

// TestPricesIsolated: an EC2 endpoint overridden without a Pricing one
// is taken as Karpenter's --isolated-vpc: on-demand stays static and the
// Pricing API is not called; spot still comes from EC2.
func TestPricesIsolated(t *testing.T) {
	c, srv := pricingCache(t, nil, true, func(url string) awsclient.Endpoints { return awsclient.Endpoints{EC2: url} })
	t.Setenv("AWS_ENDPOINT_URL", "")
	t.Setenv("AWS_ENDPOINT_URL_PRICING", "")
	p, err := c.Prices(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if p.OnDemand.Live || p.OnDemand.Skipped == "" || !p.Spot.Live || srv.Stats()["pricing:GetProducts"] != 0 {
		t.Errorf("isolated: %+v %+v %v", p.OnDemand, p.Spot, srv.Stats())
	}
	if v, _ := p.Provider.OnDemandPrice("m5.large"); v != 0.096 {
		t.Errorf("m5.large %v, want the static 0.096", v)
	}
}
