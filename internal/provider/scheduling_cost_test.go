package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
)

// pricedEmulator is the emulator with the catalogue's prices, every
// endpoint the pricing one included; deny as awsemu -deny.
func pricedEmulator(t *testing.T, deny ...string) (string, *awsemu.Server) {
	t.Helper()
	f, err := awsemu.DefaultFixtures()
	if err != nil {
		t.Fatal(err)
	}
	if err := f.AddPricing(); err != nil {
		t.Fatal(err)
	}
	url, srv := awsemutest.StartWith(t, f, awsemu.Options{Deny: deny})
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	return fmt.Sprintf(`
provider "karpenter" {
  region      = "us-east-1"
  max_retries = 0
  cluster { name = "demo" }
  endpoints {
    ec2     = %[1]q
    ssm     = %[1]q
    eks     = %[1]q
    sts     = %[1]q
    iam     = %[1]q
    pricing = %[1]q
  }
}
`, url), srv
}

var schedCost = tfjsonpath.New("cost")

// pinnedPool is a pool of one instance type and capacity type.
func pinnedPool(name, instanceType, capacityType string) string {
	return schedPool(name, "", "      requirements:\n        - key: node.kubernetes.io/instance-type\n          operator: In\n          values: ["+instanceType+
		"]\n        - key: karpenter.sh/capacity-type\n          operator: In\n          values: ["+capacityType+"]\n")
}

// TestAccSchedulingCost: a pool pinned to one on-demand type prices its
// NodeClaim at Karpenter's static table price for us-east-1 when the
// Pricing API is not reachable (an EC2 endpoint without a pricing one),
// and at the Pricing API's answer with it; spot is a range; the pool's
// and the total cost add the NodeClaims up.
func TestAccSchedulingCost(t *testing.T) {
	src, _ := schedData("x", []string{pinnedPool("default", "m5.large", "on-demand"), pinnedPool("spot", "m5.large", "spot")},
		[]string{schedDeployment("web", 1, "500m", "      nodeSelector:\n        karpenter.sh/nodepool: default\n"),
			schedDeployment("batch", 1, "500m", "      nodeSelector:\n        karpenter.sh/nodepool: spot\n")}, "")
	claim := func(i int, attr string) tfjsonpath.Path {
		return tfjsonpath.New("node_claims").AtSliceIndex(i).AtMapKey(attr)
	}
	contains := func(s string) knownvalue.Check {
		return knownvalue.StringRegexp(regexp.MustCompile(regexp.QuoteMeta(s)))
	}
	static := emulatorProvider(t, `cluster { name = "demo" }`)
	live, _ := pricedEmulator(t)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: static + src,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.karpenter_scheduling.x", claim(0, "node_pool"), knownvalue.StringExact("default")),
					statecheck.ExpectKnownValue("data.karpenter_scheduling.x", claim(0, "hourly_price"), knownvalue.Float64Exact(0.096)),
					statecheck.ExpectKnownValue("data.karpenter_scheduling.x", claim(1, "hourly_price"), knownvalue.Float64Exact(0.096)),
					statecheck.ExpectKnownValue("data.karpenter_scheduling.x", schedCost.AtMapKey("hourly"), knownvalue.Float64Exact(0.192)),
					statecheck.ExpectKnownValue("data.karpenter_scheduling.x", schedCost.AtMapKey("monthly"), knownvalue.Float64Exact(140.16)),
					statecheck.ExpectKnownValue("data.karpenter_scheduling.x", schedCost.AtMapKey("node_pools").AtMapKey("default"),
						knownvalue.ObjectExact(map[string]knownvalue.Check{"hourly": knownvalue.Float64Exact(0.096), "hourly_max": knownvalue.Float64Exact(0.096),
							"monthly": knownvalue.Float64Exact(70.08), "monthly_max": knownvalue.Float64Exact(70.08), "node_claims": knownvalue.Int64Exact(1)})),
					statecheck.ExpectKnownValue("data.karpenter_scheduling.x", schedCost.AtMapKey("source"), contains("static price table (karpenter-provider-aws v1.14.1, generated 2026-07-06)")),
					statecheck.ExpectKnownValue("data.karpenter_scheduling.x", schedCost.AtMapKey("source"), contains("Savings Plans")),
				},
			},
			{
				Config: live + src,
				ConfigStateChecks: []statecheck.StateCheck{
					// The Price List API's m5.large (the fixtures' table price + 5 %).
					statecheck.ExpectKnownValue("data.karpenter_scheduling.x", claim(0, "hourly_price"), knownvalue.Float64Exact(0.1008)),
					statecheck.ExpectKnownValue("data.karpenter_scheduling.x", claim(0, "hourly_price_max"), knownvalue.Float64Exact(0.1008)),
					// Spot: the latest price of the three subnet zones, cheapest to dearest.
					statecheck.ExpectKnownValue("data.karpenter_scheduling.x", claim(1, "hourly_price"), knownvalue.Float64Exact(0.029)),
					statecheck.ExpectKnownValue("data.karpenter_scheduling.x", claim(1, "hourly_price_max"), knownvalue.Float64Exact(0.0343)),
					statecheck.ExpectKnownValue("data.karpenter_scheduling.x", schedCost.AtMapKey("hourly"), knownvalue.Float64Exact(0.1298)),
					statecheck.ExpectKnownValue("data.karpenter_scheduling.x", schedCost.AtMapKey("hourly_max"), knownvalue.Float64Exact(0.1351)),
					statecheck.ExpectKnownValue("data.karpenter_scheduling.x", schedCost.AtMapKey("source"), contains("On-demand: the AWS Price List API")),
					statecheck.ExpectKnownValue("data.karpenter_scheduling.x", schedCost.AtMapKey("source"), contains("Spot: ec2:DescribeSpotPriceHistory")),
				},
			},
		},
	})
}

// TestSchedulingPriceReadDenied: AWS denying both price reads is one
// price-read-denied warning per read and plan (two data sources read
// them), the plan goes on, and the source says the table is used.
func TestSchedulingPriceReadDenied(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	prov, srv := pricedEmulator(t, "pricing:GetProducts", "ec2:DescribeSpotPriceHistory")
	one, _ := schedData("a", []string{pinnedPool("default", "m5.large", "on-demand")}, []string{schedDeployment("web", 1, "500m", "")}, "")
	two, _ := schedData("b", []string{pinnedPool("default", "m5.large", "on-demand")}, []string{schedDeployment("api", 2, "500m", "")}, "")
	diags := planDiagnostics(t, prov+one+two+`
output "source" { value = data.karpenter_scheduling.a.cost.source }
`)
	if errs := errorsOf(diags); len(errs) > 0 {
		t.Fatalf("errors:\n%s", formatDiags(errs))
	}
	got := onlyRule(diags, "warning", "price-read-denied")
	if len(got) != 2 || !strings.Contains(got[0].Detail+got[1].Detail, "pricing:GetProducts") ||
		!strings.Contains(got[0].Detail+got[1].Detail, "ec2:DescribeSpotPriceHistory") {
		t.Errorf("want one warning per denied read:\n%s", formatDiags(diags))
	}
	// Read once per process: each denied call was made once.
	if st := srv.Stats(); st["pricing:GetProducts"] > 2 || st["ec2:DescribeSpotPriceHistory"] != 1 {
		t.Errorf("price reads: %v", st)
	}
}

// TestAccNodePrice: karpenter_node's hourly_price is its capacity type's
// and zone's: the static table without the Pricing API (spot at the
// on-demand figure), the emulator's answers with it (spot per zone; the
// cheapest zone's with zone unset), reserved a ten-millionth of on-demand.
func TestAccNodePrice(t *testing.T) {
	static := emulatorProvider(t, `cluster { name = "demo" }`)
	live, _ := pricedEmulator(t)
	class := nodeClassYAML("al2023@latest", "")
	data := func(name, capacityType, zone string) string {
		args := "  instance_type = \"m5.large\"\n  capacity_type = \"" + capacityType + "\""
		if zone != "" {
			args += "\n  zone = \"" + zone + "\""
		}
		return nodeData(name, nodePoolYAML("general", ""), class, args)
	}
	nodes := data("od", "on-demand", "us-east-1b") + data("spot", "spot", "us-east-1b") + data("anyzone", "spot", "")
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: static + nodes,
			ConfigStateChecks: []statecheck.StateCheck{
				nodeAttr("od", "hourly_price", knownvalue.Float64Exact(0.096)),
				nodeAttr("spot", "hourly_price", knownvalue.Float64Exact(0.096)),
			},
		}, {
			Config: live + nodes,
			ConfigStateChecks: []statecheck.StateCheck{
				nodeAttr("od", "hourly_price", knownvalue.Float64Exact(0.1008)),
				nodeAttr("spot", "hourly_price", knownvalue.Float64Exact(0.0343)),
				// us-east-1a's 0.029 is the cheapest of the zones offering it.
				nodeAttr("anyzone", "hourly_price", knownvalue.Float64Exact(0.029)),
			},
		}},
	})
}
