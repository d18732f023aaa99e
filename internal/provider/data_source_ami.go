package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/suggest"
)

var (
	_ datasource.DataSourceWithConfigure      = (*amiDataSource)(nil)
	_ datasource.DataSourceWithValidateConfig = (*amiDataSource)(nil)
)

// NewAMIDataSource is the factory of karpenter_ami.
func NewAMIDataSource() datasource.DataSource { return &amiDataSource{} }

type amiDataSource struct{ configuredDataSource }

type amiModel struct {
	Terms             types.List   `tfsdk:"ami_selector_terms"`
	Family            types.String `tfsdk:"ami_family"`
	KubernetesVersion types.String `tfsdk:"kubernetes_version"`
	InstanceType      types.String `tfsdk:"instance_type"`
	Architecture      types.String `tfsdk:"architecture"`
	Accelerator       types.String `tfsdk:"accelerator"`
	ID                types.String `tfsdk:"id"`
	Name              types.String `tfsdk:"name"`
	Variant           types.String `tfsdk:"variant"`
	Deprecated        types.Bool   `tfsdk:"deprecated"`
	CreationDate      types.String `tfsdk:"creation_date"`
	Requirements      types.List   `tfsdk:"requirements"`
}

func (d *amiDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_ami"
}

func (d *amiDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := amisAttributes()
	delete(attrs, "amis")
	delete(attrs, "skipped")
	attrs["instance_type"] = schema.StringAttribute{
		Optional:    true,
		Description: "The instance type to answer for, e.g. `g5g.xlarge`. Its architecture, GPU and accelerator come from ec2:DescribeInstanceTypes when AWS is configured, else from the embedded family facts. Exactly one of `instance_type` and `architecture`.",
	}
	attrs["architecture"] = schema.StringAttribute{
		Optional: true, Computed: true,
		Description: "`amd64` or `arm64`: answer for a hypothetical instance of that architecture (with `accelerator`). Computed from `instance_type` when that is given.",
	}
	attrs["accelerator"] = schema.StringAttribute{
		Optional:    true,
		Description: "With `architecture`: `none` (default), `nvidia` (an instance with a GPU) or `neuron` (Inferentia/Trainium).",
	}
	attrs["id"] = schema.StringAttribute{Computed: true, Description: "Id of the image the instance gets."}
	attrs["name"] = schema.StringAttribute{Computed: true, Description: "Name of the image."}
	attrs["variant"] = schema.StringAttribute{Computed: true, Description: "`standard`, `nvidia` or `neuron` for aliases; empty otherwise."}
	attrs["deprecated"] = schema.BoolAttribute{Computed: true, Description: "Whether the image is deprecated."}
	attrs["creation_date"] = schema.StringAttribute{Computed: true, Description: "Image creation date (RFC 3339)."}
	attrs["requirements"] = requirementsAttributeDS()
	resp.Schema = schema.Schema{
		Description: "The image one instance type gets: the first entry of what Karpenter would put in `status.amis` whose requirements the " +
			"instance satisfies, matched strictly as Karpenter does since 1.4 (karpenter#7925). A GPU instance gets the `nvidia` variant, a " +
			"Neuron instance the `neuron` variant, others `standard`; without an alias only the architecture counts. When no image fits " +
			"(e.g. `g5g.xlarge` with `al2@latest`, which has no arm64 GPU image) the read fails with the missing variant and the way out.",
		Attributes: attrs,
		Blocks:     amisBlocks(),
	}
}

func (d *amiDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var m amiModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	validateSelection(m.Terms, m.Family, m.KubernetesVersion, providerDataOrDefault(d.data), &resp.Diagnostics)
	validateInstanceQuery(m, &resp.Diagnostics)
	if s, ok := knownString(m.InstanceType); ok {
		if _, _, ok := instancetype.SplitType(s); !ok {
			addRuleDiag(&resp.Diagnostics, path.Root("instance_type"), ruleInstanceTypeInvalid,
				fmt.Sprintf("%q is not an instance type name; write family.size, e.g. \"g5g.xlarge\".", s))
		}
	}
}

func (d *amiDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m amiModel
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
	in, ok := d.instance(ctx, pd, m, &resp.Diagnostics)
	if !ok {
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
	family, _ := ami.ResolvedFamily(m.Family.ValueString(), terms, pd.Karpenter)
	chosen, fs := ami.ForInstance(res.result, in, ami.Mapping{Family: family, Kubernetes: res.kubernetes, Karpenter: pd.Karpenter})
	appendFindings(&resp.Diagnostics, path.Empty(), atInstance(fs, m))
	if resp.Diagnostics.HasError() {
		return
	}
	m.Family = resolvedFamilyValue(m.Family, terms, pd)
	m.KubernetesVersion = kubernetesValue(res)
	m.Architecture = types.StringValue(in.Architecture)
	m.ID, m.Name = types.StringValue(chosen.ID), types.StringValue(chosen.Name)
	m.Variant, m.Deprecated = types.StringValue(string(chosen.Variant)), types.BoolValue(chosen.Deprecated)
	m.CreationDate = types.StringValue(chosen.CreationDate)
	var diags diag.Diagnostics
	m.Requirements, diags = requirementsValue(chosen.Requirements)
	resp.Diagnostics.Append(diags...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// atInstance points the findings about the instance's fit at the attribute
// that names the instance: the images are what the class has, the
// instance is what this data source asks about.
func atInstance(fs rules.Findings, m amiModel) rules.Findings {
	at := rules.Root("instance_type")
	if m.InstanceType.IsNull() {
		at = rules.Root("architecture")
		if !m.Accelerator.IsNull() && m.Accelerator.ValueString() != "none" {
			at = rules.Root("accelerator")
		}
	}
	out := make(rules.Findings, len(fs))
	for i, f := range fs {
		if f.Severity == rules.Error {
			f.Path = at
		}
		out[i] = f
	}
	return out
}

// instance describes the instance the question is about.
func (d *amiDataSource) instance(ctx context.Context, pd *ProviderData, m amiModel, diags *diag.Diagnostics) (ami.Instance, bool) {
	if m.InstanceType.IsNull() {
		in := ami.Instance{Architecture: m.Architecture.ValueString()}
		switch m.Accelerator.ValueString() {
		case "nvidia":
			in.GPUManufacturer = "nvidia"
			in.Name = "an " + in.Architecture + " NVIDIA GPU instance"
		case "neuron":
			in.AcceleratorName = "neuron"
			in.Name = "an " + in.Architecture + " Neuron instance"
		default:
			in.Name = "an " + in.Architecture + " instance"
		}
		return in, true
	}
	name := m.InstanceType.ValueString()
	cat, err := instancetype.Load(ctx, pd.AWS)
	if err != nil {
		addAWSFailure(diags, path.Root("instance_type"), err, "")
		return ami.Instance{}, false
	}
	t, ok := cat.Type(name)
	if !ok {
		addRuleDiag(diags, path.Root("instance_type"), ruleInstanceTypeInvalid, unknownTypeDetail(cat, name))
		return ami.Instance{}, false
	}
	return ami.InstanceFromType(t), true
}

func unknownTypeDetail(cat *instancetype.Catalogue, name string) string {
	fam, size, ok := instancetype.SplitType(name)
	if !ok {
		return fmt.Sprintf("%q is not an instance type name; write family.size, e.g. \"g5g.xlarge\".", name)
	}
	src := "ec2:DescribeInstanceTypes of the provider's region (only the HVM x86_64/arm64 types Karpenter can launch)"
	if cat.Source == instancetype.SourceEmbedded {
		src = "the embedded instance facts (" + cat.Note + ")"
	}
	if f, ok := cat.Family(fam); ok && len(f.Sizes) > 0 {
		return fmt.Sprintf("%q is not an instance type in %s: family %s has no size %q; its sizes are %s.", name, src, fam, size, strings.Join(f.Sizes, ", "))
	}
	names := make([]string, 0, len(cat.Types()))
	for _, t := range cat.Types() {
		names = append(names, t.Name)
	}
	return fmt.Sprintf("%q is not an instance type in %s%s.", name, src, suggest.Hint(name, names))
}

// validateInstanceQuery: exactly one of instance_type and architecture, an
// accelerator only with architecture, and the values each takes. Unknown
// values are judged at plan, when they are known.
func validateInstanceQuery(m amiModel, diags *diag.Diagnostics) {
	if m.InstanceType.IsUnknown() || m.Architecture.IsUnknown() {
		return
	}
	it, arch := !m.InstanceType.IsNull(), !m.Architecture.IsNull()
	switch {
	case it && arch:
		addRuleDiag(diags, path.Root("architecture"), ruleAMIQueryArguments,
			"Both instance_type and architecture are set; the instance type's facts already give its architecture. Remove architecture (or instance_type, to ask for a hypothetical instance).")
	case !it && !arch:
		addRuleDiag(diags, path.Empty(), ruleAMIQueryArguments,
			"Neither instance_type nor architecture is set. Write instance_type = \"g5g.xlarge\", or architecture = \"arm64\" with accelerator = \"nvidia\" for a hypothetical GPU instance.")
	}
	if s, ok := knownString(m.Architecture); ok && s != "amd64" && s != "arm64" {
		hint := ""
		switch s {
		case "x86_64", "x86-64", "amd":
			hint = " (EC2 calls it x86_64; Karpenter's kubernetes.io/arch label says amd64)"
		case "aarch64", "arm":
			hint = " (Karpenter's kubernetes.io/arch label says arm64)"
		}
		addRuleDiag(diags, path.Root("architecture"), ruleAMIQueryArguments,
			fmt.Sprintf("architecture = %q is not a value of kubernetes.io/arch that Karpenter launches%s; write \"amd64\" or \"arm64\".", s, hint))
	}
	if s, ok := knownString(m.Accelerator); ok {
		if it {
			addRuleDiag(diags, path.Root("accelerator"), ruleAMIQueryArguments,
				"accelerator is set with instance_type; the instance type's facts say whether it has a GPU or Neuron accelerator. Remove accelerator, or use architecture instead of instance_type.")
		} else if s != "none" && s != "nvidia" && s != "neuron" {
			addRuleDiag(diags, path.Root("accelerator"), ruleAMIQueryArguments,
				fmt.Sprintf("accelerator = %q is not one of \"none\", \"nvidia\" (an NVIDIA GPU) or \"neuron\" (Inferentia/Trainium); Karpenter picks the alias variant by these.%s", s, suggest.Hint(s, []string{"none", "nvidia", "neuron"})))
		}
	}
}

// The rules the checks of this file emit.
var (
	ruleInstanceTypeInvalid = rules.Register(rules.Rule{
		ID: "instance-type-invalid", Severity: rules.Error, Category: categoryProvider,
		Title:     "instance_type is not an EC2 instance type of this region",
		Behaviour: "Karpenter only launches instance types that ec2:DescribeInstanceTypes lists in the region; a name that is not family.size, or a type the region does not offer, is never launched.",
		Source:    "aws/karpenter-provider-aws pkg/providers/instancetype (DescribeInstanceTypes)",
		Bad:       "data \"karpenter_ami\" \"gpu\" {\n  instance_type = \"g5g-xlarge\"\n  ami_selector_terms {\n    alias = \"al2023@latest\"\n  }\n}\n",
		Good:      "data \"karpenter_ami\" \"gpu\" {\n  instance_type = \"g5g.xlarge\"\n  ami_selector_terms {\n    alias = \"al2023@latest\"\n  }\n}\n",
	})
	ruleAMIQueryArguments = rules.Register(rules.Rule{
		ID: "ami-query-arguments-invalid", Severity: rules.Error, Category: categoryProvider,
		Title:     "karpenter_ami needs exactly one of instance_type and architecture",
		Behaviour: "karpenter_ami answers which image one instance gets: Karpenter matches the instance's architecture and accelerator against each image's requirements. It needs either an instance type (its facts give both) or an architecture (`amd64` or `arm64`) with an optional accelerator (`none`, `nvidia`, `neuron`); `accelerator` with `instance_type` would contradict the type's own facts.",
		Source:    "aws/karpenter-provider-aws pkg/providers/amifamily/resolver.go (requirements per image, matched against the instance type)",
		Bad:       "data \"karpenter_ami\" \"gpu\" {\n  instance_type = \"g5g.xlarge\"\n  accelerator   = \"nvidia\"\n  ami_selector_terms {\n    alias = \"al2023@latest\"\n  }\n}\n",
		Good:      "data \"karpenter_ami\" \"gpu\" {\n  architecture = \"arm64\"\n  accelerator  = \"nvidia\"\n  ami_selector_terms {\n    alias = \"al2023@latest\"\n  }\n}\n",
	})
)
