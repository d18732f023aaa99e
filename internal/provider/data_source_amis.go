package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

var (
	_ datasource.DataSourceWithConfigure      = (*amisDataSource)(nil)
	_ datasource.DataSourceWithValidateConfig = (*amisDataSource)(nil)
)

// NewAMIsDataSource is the factory of karpenter_amis.
func NewAMIsDataSource() datasource.DataSource { return &amisDataSource{} }

type amisDataSource struct{ configuredDataSource }

type amisModel struct {
	Terms             types.List   `tfsdk:"ami_selector_terms"`
	Family            types.String `tfsdk:"ami_family"`
	KubernetesVersion types.String `tfsdk:"kubernetes_version"`
	AMIs              types.Map    `tfsdk:"amis"`
	Skipped           types.Map    `tfsdk:"skipped"`
}

var amiAttrTypes = map[string]attr.Type{
	"id":            types.StringType,
	"name":          types.StringType,
	"architecture":  types.StringType,
	"variant":       types.StringType,
	"deprecated":    types.BoolType,
	"creation_date": types.StringType,
	"owner_id":      types.StringType,
	"requirements":  types.ListType{ElemType: types.ObjectType{AttrTypes: requirementAttrTypes}},
}

// skippedAttrTypes is a skipped image; its id is its key.
var skippedAttrTypes = map[string]attr.Type{
	"name": types.StringType, "state": types.StringType, "reason": types.StringType,
}

func (d *amisDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_amis"
}

func (d *amisDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "What Karpenter would put in an EC2NodeClass's `status.amis` for these selector terms: aliases resolved through " +
			"the public SSM parameters, other terms through ec2:DescribeImages, only `available` images, a deprecated one only where no other qualifies, one image " +
			"per requirement set, keyed by architecture and variant as the EC2NodeClass's `amis`. `skipped` lists every image a selector matched that Karpenter would not use, with the reason, keyed by image id.",
		Attributes: amisAttributes(),
		Blocks:     amisBlocks(),
	}
}

// amisBlocks are the selector terms of both AMI data sources: blocks, so
// Terraform rejects a misspelled field at its line.
func amisBlocks() map[string]schema.Block {
	return map[string]schema.Block{
		"ami_selector_terms": schema.ListNestedBlock{
			Description:  descTerms + " One block per term; at least one.",
			NestedObject: schema.NestedBlockObject{Attributes: termAttributesDS()},
		},
	}
}

func amisAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"ami_family": schema.StringAttribute{
			Optional: true, Computed: true,
			Description: "The EC2NodeClass `amiFamily`. Optional here; when unset it is the alias's family. It does not change which images non-alias terms find.",
		},
		"kubernetes_version": schema.StringAttribute{
			Optional: true, Computed: true,
			Description: "Kubernetes minor the alias is resolved for, e.g. `1.32`. Defaults to the provider's `cluster.kubernetes_version` (or eks:DescribeCluster of `cluster.name`).",
		},
		"amis": schema.MapNestedAttribute{
			Computed: true,
			Description: "The images Karpenter would use, keyed as the EC2NodeClass's `amis`: `\"<architecture>/<variant>\"` for an alias " +
				"(`amd64/standard`, `arm64/nvidia`, ...), `\"<architecture>\"` for other terms, with `#1`, `#2` ... when one key has several " +
				"requirement sets. The keys do not change when a release replaces the images, so a bump diffs as changed ids and names. " +
				"Karpenter tries the images newest `creation_date` first, deprecated ones last (`status.amis` order).",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"id":            schema.StringAttribute{Computed: true, Description: "Image id."},
				"name":          schema.StringAttribute{Computed: true, Description: "Image name."},
				"architecture":  schema.StringAttribute{Computed: true, Description: "`amd64` or `arm64`."},
				"variant":       schema.StringAttribute{Computed: true, Description: "`standard`, `nvidia` or `neuron` for aliases; empty for other terms (Karpenter infers only architecture)."},
				"deprecated":    schema.BoolAttribute{Computed: true, Description: "Whether the image is past its deprecation time (used only when nothing newer qualifies)."},
				"creation_date": schema.StringAttribute{Computed: true, Description: "Image creation date (RFC 3339)."},
				"owner_id":      schema.StringAttribute{Computed: true, Description: "Owner account id."},
				"requirements":  requirementsAttributeDS(),
			}},
		},
		"skipped": schema.MapNestedAttribute{
			Computed: true, Description: "Images a selector matched but Karpenter would not use, keyed by image id: not `available` (pending, failed, disabled, ...), unsupported architecture, or superseded by a preferred image of the same requirement set.",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"name":   schema.StringAttribute{Computed: true, Description: "Image name."},
				"state":  schema.StringAttribute{Computed: true, Description: "EC2 image state."},
				"reason": schema.StringAttribute{Computed: true, Description: "Why Karpenter would not use it."},
			}},
		},
	}
}

func (d *amisDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var m amisModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	validateSelection(m.Terms, m.Family, m.KubernetesVersion, providerDataOrDefault(d.data), &resp.Diagnostics)
}

// validateSelection runs the literal checks shared by both AMI data sources.
func validateSelection(termsList types.List, family, k8s types.String, pd *ProviderData, diags *diag.Diagnostics) {
	terms, ok := termsFromList(termsList)
	if ok {
		appendFindings(diags, path.Empty(), errorsOnly(ami.ValidateTerms(terms, pd.Karpenter)))
		appendFindings(diags, path.Empty(), errorsOnly(ami.ValidateFamily(family.ValueString(), !family.IsUnknown(), terms, pd.Karpenter, false)))
	}
	if s, known := knownString(k8s); known {
		v, err := parseKubernetes(s)
		if err != nil {
			addRuleDiag(diags, path.Root("kubernetes_version"), ruleKubernetesVersionInvalid, err.Error())
			return
		}
		// An alias the family does not publish for this Kubernetes version
		// (AL2 on 1.33+, Windows Server 2025 below 1.35) is decidable now.
		if i, isAlias := ami.AliasTerm(terms); ok && isAlias {
			p := ami.TermsPath.Index(i).Attr("alias")
			if a, fs := ami.ParseAlias(terms[i].Alias, pd.Karpenter, p); !fs.HasErrors() {
				_, fs := ami.SSMParameters(a, v, pd.Karpenter, p)
				for _, f := range fs {
					if f.Severity == rules.Error {
						appendFindings(diags, path.Empty(), rules.Findings{f})
					}
				}
			}
		}
	}
}

func (d *amisDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m amisModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	pd := providerDataOrDefault(d.data)
	defer func() { resp.Diagnostics = pd.oncePerPlan(dropAcknowledged(resp.Diagnostics, pd.Acknowledged), true) }()
	terms, _ := termsFromList(m.Terms)
	// ValidateConfig reported the errors of the default release; the read
	// reports every finding of the configured one, warnings included, once.
	kv := pd.Karpenter
	appendFindings(&resp.Diagnostics, path.Empty(), append(ami.ValidateTerms(terms, kv), ami.ValidateFamily(m.Family.ValueString(), !m.Family.IsUnknown(), terms, kv, false)...))
	if resp.Diagnostics.HasError() {
		return
	}
	res, err := resolveAMIs(ctx, pd, terms, m.KubernetesVersion, path.Root("kubernetes_version"), &resp.Diagnostics)
	if err != nil {
		addDeferredError(err, &resp.Diagnostics)
		return
	}
	appendFindings(&resp.Diagnostics, path.Empty(), res.result.Findings)
	if resp.Diagnostics.HasError() {
		return
	}
	m.Family = resolvedFamilyValue(m.Family, terms, pd)
	m.KubernetesVersion = kubernetesValue(res)
	var diags diag.Diagnostics
	m.AMIs, diags = amisValue(res.result.AMIs)
	resp.Diagnostics.Append(diags...)
	m.Skipped, diags = skippedValue(res.result.Skipped)
	resp.Diagnostics.Append(diags...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// addDeferredError explains to a data source, which cannot defer, that an
// input is unknown during plan.
func addDeferredError(err error, diags *diag.Diagnostics) {
	if err == errDeferred {
		addRuleDiag(diags, path.Empty(), ruleInputsUnknown,
			"The Kubernetes version or the provider's AWS configuration is not known until apply (it comes from a resource created in the same run). "+
				"Data sources are read during plan, so set `kubernetes_version` (and the provider's region/endpoints) from known values, "+
				"or use the karpenter_ec2nodeclass resource, which defers resolution to apply.")
	}
}

func resolvedFamilyValue(cur types.String, terms []ami.Term, pd *ProviderData) types.String {
	if !cur.IsNull() && !cur.IsUnknown() {
		return cur
	}
	if f, ok := ami.ResolvedFamily("", terms, pd.Karpenter); ok {
		return types.StringValue(string(f))
	}
	return types.StringNull()
}

func kubernetesValue(r resolution) types.String {
	if !r.kubernetesSet {
		return types.StringNull()
	}
	return types.StringValue(r.kubernetes.String())
}

// amisValue is the data source's amis, keyed as the class's (amiKeys).
func amisValue(amis []ami.AMI) (types.Map, diag.Diagnostics) {
	var diags diag.Diagnostics
	elems := make(map[string]attr.Value, len(amis))
	for i, k := range amiKeys(amis) {
		o, d := amiObject(amis[i])
		diags.Append(d...)
		elems[k] = o
	}
	m, d := types.MapValue(types.ObjectType{AttrTypes: amiAttrTypes}, elems)
	diags.Append(d...)
	return m, diags
}

func amiObject(a ami.AMI) (types.Object, diag.Diagnostics) {
	reqs, diags := requirementsValue(a.Requirements)
	o, d := types.ObjectValue(amiAttrTypes, map[string]attr.Value{
		"id": types.StringValue(a.ID), "name": types.StringValue(a.Name), "architecture": types.StringValue(a.Architecture),
		"variant": types.StringValue(string(a.Variant)), "deprecated": types.BoolValue(a.Deprecated),
		"creation_date": types.StringValue(a.CreationDate), "owner_id": types.StringValue(a.OwnerID), "requirements": reqs,
	})
	diags.Append(d...)
	return o, diags
}

// skippedValue is skipped keyed by image id: an image appears once, and a
// new one does not shift the others.
func skippedValue(sk []ami.Skipped) (types.Map, diag.Diagnostics) {
	var diags diag.Diagnostics
	elems := make(map[string]attr.Value, len(sk))
	for _, s := range sk {
		o, d := types.ObjectValue(skippedAttrTypes, map[string]attr.Value{
			"name": types.StringValue(s.Name), "state": types.StringValue(s.State), "reason": types.StringValue(s.Reason),
		})
		diags.Append(d...)
		elems[s.ID] = o
	}
	m, d := types.MapValue(types.ObjectType{AttrTypes: skippedAttrTypes}, elems)
	diags.Append(d...)
	return m, diags
}

// The rules the checks of this file emit.
var (
	ruleInputsUnknown = rules.Register(rules.Rule{
		ID: "data-source-inputs-unknown", Severity: rules.Error, Category: categoryProvider,
		Title:     "a data source's inputs are not known when Terraform reads it",
		Behaviour: "Terraform reads a data source during plan when its arguments are known, and otherwise defers it to apply; a selector or version that stays unknown (e.g. from a resource created in the same run) leaves nothing to resolve.",
		Source:    "Terraform data source lifecycle (developer.hashicorp.com/terraform/language/data-sources)",
		Bad:       "data \"karpenter_amis\" \"default\" {\n  kubernetes_version = aws_eks_cluster.new.version\n  ami_selector_terms {\n    alias = \"al2023@latest\"\n  }\n}\n",
		Good:      "data \"karpenter_amis\" \"default\" {\n  kubernetes_version = var.kubernetes_version\n  ami_selector_terms {\n    alias = \"al2023@latest\"\n  }\n}\n",
	})
)
