package provider

import (
	"context"
	"errors"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/checks"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodeclass"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling"
)

var (
	_ datasource.DataSourceWithConfigure      = (*schedulingDataSource)(nil)
	_ datasource.DataSourceWithValidateConfig = (*schedulingDataSource)(nil)
)

// NewSchedulingDataSource is the factory of karpenter_scheduling.
func NewSchedulingDataSource() datasource.DataSource { return &schedulingDataSource{} }

type schedulingDataSource struct{ configuredDataSource }

func (d *schedulingDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_scheduling"
}

func (d *schedulingDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs, _ := dataSourceAttributes(schedulingAttributes())
	resp.Schema = schema.Schema{
		Description: schedulingDescription + "Terraform reads a data source at plan only when everything it reads is known " +
			"and unchanged: when a NodePool or EC2NodeClass it reads changes in the same run, it is read during apply, " +
			"after the plan was approved. For pools and classes managed in the same configuration use the " +
			"`karpenter_scheduling` resource, which decides at every plan; the data source is for inputs that are only " +
			"files (a GitOps repository, rendered Helm charts).",
		Attributes: attrs,
	}
}

// ValidateConfig reports the documents that cannot be read (terraform
// validate), among the elements already known.
func (d *schedulingDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	validateScheduling(ctx, req.Config, &resp.Diagnostics)
}

func (d *schedulingDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m schedulingModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	in, known := m.input(&resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if !known {
		addDeferredError(errDeferred, &resp.Diagnostics)
		return
	}
	pd := providerDataOrDefault(d.data)
	defer func() { resp.Diagnostics = dropAcknowledged(resp.Diagnostics, pd.Acknowledged) }()
	out := decide(ctx, pd, in)
	resp.Diagnostics.Append(out.diags...)
	if out.deferred {
		addDeferredError(errDeferred, &resp.Diagnostics)
	}
	if out.dec == nil {
		return
	}
	resp.Diagnostics.Append(m.setDecision(ctx, out.dec)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// catalogues caches the decision's instance types per provider cache:
// every karpenter_scheduling of a plan reads the same region.
var catalogues sync.Map // *awsclient.Cache -> *catalogueEntry

type catalogueEntry struct {
	once sync.Once
	c    *scheduling.Catalogue
	err  error
}

func catalogueFor(ctx context.Context, cache *awsclient.Cache) (*scheduling.Catalogue, error) {
	v, _ := catalogues.LoadOrStore(cache, &catalogueEntry{})
	e, _ := v.(*catalogueEntry) // catalogues holds only *catalogueEntry
	e.once.Do(func() { e.c, e.err = readCatalogue(ctx, cache) })
	return e.c, e.err
}

func readCatalogue(ctx context.Context, cache *awsclient.Cache) (*scheduling.Catalogue, error) {
	region, err := cache.Clients().Region(ctx)
	if err != nil {
		return nil, err
	}
	return scheduling.ReadCatalogue(ctx, region, cache)
}

// schedulingFacts reads the decision's AWS facts: the catalogue, and each
// class's status predicted as the resources predict it (images, subnets,
// security groups, instance profile, capacity reservations).
//
// deferred is set when the provider's AWS configuration is not known
// until apply: nothing was decided, and nothing is wrong.
func schedulingFacts(ctx context.Context, pd *ProviderData, p *scheduling.Parsed, diags *diag.Diagnostics) (_ scheduling.Facts, ok, deferred bool) {
	cat, err := catalogueFor(ctx, pd.AWS)
	if errors.Is(err, awsclient.ErrUnknownConfig) {
		return scheduling.Facts{}, false, true
	}
	if err != nil {
		addRuleDiag(diags, path.Empty(), ruleAWSRequestFailed, awsErrorDetail(err))
		return scheduling.Facts{}, false, false
	}
	f := scheduling.Facts{Catalogue: cat, Classes: map[string]scheduling.ClassStatus{}, Settings: pd.Controller, Karpenter: pd.Karpenter,
		NodeOverlayGate: pd.NodeOverlayGate}
	// The prices are read while the classes are (a first read pages
	// through the region's price list).
	var priceDiags diag.Diagnostics
	var prices *scheduling.PriceSource
	pricesRead := make(chan struct{})
	go func() {
		defer close(pricesRead)
		prices = decisionPrices(ctx, pd, cat.Region, &priceDiags)
	}()

	type pending struct {
		name  string
		wait  func() classReadiness
		terms []ami.Term
	}
	var all []pending
	for _, c := range p.Classes {
		nc := nodeclass.FromManifest(c.Manifest)
		all = append(all, pending{name: nc.Name, wait: startClassReadiness(ctx, pd, nc), terms: nc.Terms})
	}
	deniedSeen := map[string]bool{}
	for _, c := range all {
		notReady, ok, later := amisNotReady(ctx, pd, c.terms, diags)
		r := c.wait()
		deferred = deferred || later
		if !ok {
			continue
		}
		st, read := checks.ClassStatus(r.ClassReadiness, notReady)
		if !read {
			r.report(pd, diags)
			continue
		}
		if r.State == checks.Read {
			for _, d := range r.Denied {
				if !deniedSeen[d.Action] {
					deniedSeen[d.Action] = true
					appendFindings(diags, path.Empty(), rules.Findings{pd.readDenied(d.Action, d.Err)})
				}
			}
		}
		f.Classes[c.name] = st
	}
	<-pricesRead
	f.Prices = prices
	diags.Append(priceDiags...)
	return f, !diags.HasError() && !deferred, deferred
}

// amisNotReady resolves a class's images: "" when they resolve, else why
// not (Karpenter's AMIsReady False). ok is false when the resolution
// could not be made (its diagnostics say why, or deferred is set: what it
// needs is known at apply).
func amisNotReady(ctx context.Context, pd *ProviderData, terms []ami.Term, diags *diag.Diagnostics) (notReady string, ok, deferred bool) {
	res, err := resolveAMIs(ctx, pd, terms, types.StringNull(), path.Empty(), diags)
	if errors.Is(err, errDeferred) {
		return "", false, true
	}
	if err != nil {
		return "", false, false
	}
	return scheduling.ImagesNotReady(res.result), true, false
}

func workloadsValue(ws []scheduling.WorkloadResult) (types.Map, diag.Diagnostics) {
	var diags diag.Diagnostics
	elems := make(map[string]attr.Value, len(ws))
	for _, w := range ws {
		pools := make(map[string]attr.Value, len(w.NodePools))
		for p, n := range w.NodePools {
			pools[p] = types.Int64Value(int64(n))
		}
		pm, d := types.MapValue(types.Int64Type, pools)
		diags.Append(d...)
		o, d := types.ObjectValue(workloadAttrTypes, map[string]attr.Value{
			"pods": types.Int64Value(int64(w.Pods)), "node_pools": pm,
			"unschedulable": types.Int64Value(int64(w.Unschedulable)), "reason": types.StringValue(w.Reason),
		})
		diags.Append(d...)
		elems[w.Key] = o
	}
	m, d := types.MapValue(types.ObjectType{AttrTypes: workloadAttrTypes}, elems)
	diags.Append(d...)
	return m, diags
}

func nodeClaimsValue(ncs []scheduling.NodeClaim) (types.List, diag.Diagnostics) {
	var diags diag.Diagnostics
	strs := func(vs []string) types.List {
		elems := make([]attr.Value, len(vs))
		for i, v := range vs {
			elems[i] = types.StringValue(v)
		}
		l, d := types.ListValue(types.StringType, elems)
		diags.Append(d...)
		return l
	}
	elems := make([]attr.Value, 0, len(ncs))
	for _, nc := range ncs {
		o, d := types.ObjectValue(nodeClaimAttrTypes, map[string]attr.Value{
			"node_pool": types.StringValue(nc.NodePool), "instance_types": strs(nc.InstanceTypes), "pods": strs(nc.Pods),
			"zones": strs(nc.Zones), "capacity_types": strs(nc.CapacityTypes), "architectures": strs(nc.Architectures),
			"hourly_price": priceValue(nc.Price, nc.Price.Hourly), "hourly_price_max": priceValue(nc.Price, nc.Price.HourlyMax),
		})
		diags.Append(d...)
		elems = append(elems, o)
	}
	l, d := types.ListValue(types.ObjectType{AttrTypes: nodeClaimAttrTypes}, elems)
	diags.Append(d...)
	return l, diags
}
