package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling"
)

// decisionPrices are the prices a decision is made and costed with:
// Karpenter's pricing provider after its updates (read once per
// process), each half that AWS would not give on Karpenter's static
// table. A denied read is one price-read-denied warning per plan; any
// other failure is said in the source only, as Karpenter only logs it.
func decisionPrices(ctx context.Context, pd *ProviderData, region string, diags *diag.Diagnostics) *scheduling.PriceSource {
	p, err := pd.AWS.Prices(ctx)
	if err != nil {
		src := scheduling.StaticSource(region, "the prices could not be read ("+err.Error()+")")
		return &src
	}
	read := func(action string, r awsclient.PriceRead) scheduling.PriceRead {
		why, denied := r.Status(action)
		if denied != "" && (pd.reported == nil || pd.reported.claim("price-read-denied:"+denied)) {
			appendFindings(diags, path.Empty(), rules.Findings{scheduling.PriceReadDenied(denied, r.Err)})
		}
		return scheduling.PriceRead{Live: r.Live, Why: why}
	}
	src := scheduling.LiveSource(p.Provider, p.Region, read("pricing:GetProducts", p.OnDemand), read("ec2:DescribeSpotPriceHistory", p.Spot))
	return &src
}
