package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/requirements"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

var (
	_ datasource.DataSourceWithConfigure      = (*instanceTypesDataSource)(nil)
	_ datasource.DataSourceWithValidateConfig = (*instanceTypesDataSource)(nil)
)

// NewInstanceTypesDataSource is the factory of karpenter_instance_types.
func NewInstanceTypesDataSource() datasource.DataSource { return &instanceTypesDataSource{} }

type instanceTypesDataSource struct{ configuredDataSource }

type instanceTypesModel struct {
	Requirements  types.List   `tfsdk:"requirements"`
	InstanceTypes types.Map    `tfsdk:"instance_types"`
	Families      types.List   `tfsdk:"families"`
	Architectures types.List   `tfsdk:"architectures"`
	Source        types.String `tfsdk:"source"`
}

// instanceTypeAttrTypes is an admitted instance type; its name is its key.
var instanceTypeAttrTypes = map[string]attr.Type{
	"family":            types.StringType,
	"architecture":      types.StringType,
	"vcpu":              types.Int64Type,
	"memory_mib":        types.Int64Type,
	"gpu_count":         types.Int64Type,
	"gpu_manufacturer":  types.StringType,
	"gpu_name":          types.StringType,
	"accelerator_count": types.Int64Type,
	"accelerator_name":  types.StringType,
}

func (d *instanceTypesDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_instance_types"
}

func (d *instanceTypesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, Description: desc}
	}
	num := func(desc string) schema.Int64Attribute {
		return schema.Int64Attribute{Computed: true, Description: desc}
	}
	resp.Schema = schema.Schema{
		Description: "The instance types, families and architectures a set of NodePool requirements lets Karpenter launch, with " +
			"Karpenter's requirement semantics (In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte, min_values) over its well-known " +
			"labels. With AWS configured (a region, profile or endpoint in the provider block, or AWS_REGION / AWS_DEFAULT_REGION / " +
			"AWS_PROFILE / AWS_ENDPOINT_URL(_EC2)) it asks ec2:DescribeInstanceTypes once per run; otherwise it answers from the " +
			"provider's embedded family facts, where requirements on per-type values (vCPU, memory, GPU count, ...) count as " +
			"\"may match\" (with a warning) and `instance_types` is empty. Zone, region, capacity type and other offering labels are " +
			"not evaluated. The requirements are validated as the NodePool CRD and Karpenter would.",
		Blocks: map[string]schema.Block{
			"requirements": schema.ListNestedBlock{
				Description: "NodePool requirements, one block each, as in `karpenter_nodepool`. Requirements on the same key are intersected. " +
					"Omitted or empty: every instance type Karpenter can use.",
				NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
					"key":      schema.StringAttribute{Required: true, Description: "Label key, e.g. `karpenter.k8s.aws/instance-family`."},
					"operator": schema.StringAttribute{Required: true, Description: "`In`, `NotIn`, `Exists`, `DoesNotExist`, `Gt`, `Lt`, or (Karpenter ≥ 1.9) `Gte`, `Lte`."},
					"values":   schema.ListAttribute{ElementType: types.StringType, Optional: true, Description: "Values; one non-negative integer for `Gt`/`Lt`/`Gte`/`Lte`, none for `Exists`/`DoesNotExist`."},
					"min_values": schema.Int64Attribute{Optional: true,
						Description: "Minimum number of distinct values of the key the admitted instance types must cover (1 to 50)."},
				}},
			},
		},
		Attributes: map[string]schema.Attribute{
			"instance_types": schema.MapNestedAttribute{
				Computed: true,
				Description: "The admitted instance types keyed by name (e.g. `g5g.xlarge`), with the label values Karpenter gives them: " +
					"a type AWS adds shows in a plan as one new key, not as every later entry renamed. Empty when `source` is `embedded`.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"family":            str("Instance family (`karpenter.k8s.aws/instance-family`)."),
					"architecture":      str("`amd64` or `arm64` (`kubernetes.io/arch`)."),
					"vcpu":              num("Default vCPUs (`karpenter.k8s.aws/instance-cpu`)."),
					"memory_mib":        num("Memory in MiB (`karpenter.k8s.aws/instance-memory`)."),
					"gpu_count":         num("GPUs (`karpenter.k8s.aws/instance-gpu-count`); 0 without GPU labels. Fractional GPUs (g6f) report 0 with a manufacturer."),
					"gpu_manufacturer":  str("`nvidia`, `amd`, ... (`karpenter.k8s.aws/instance-gpu-manufacturer`); empty without a GPU."),
					"gpu_name":          str("GPU model, e.g. `t4g` (`karpenter.k8s.aws/instance-gpu-name`); empty without a GPU."),
					"accelerator_count": num("Accelerators (`karpenter.k8s.aws/instance-accelerator-count`): Neuron devices or inference accelerators; 0 without."),
					"accelerator_name":  str("Accelerator, e.g. `inferentia2`, `trainium` (`karpenter.k8s.aws/instance-accelerator-name`); empty without."),
				}},
			},
			"families":      schema.ListAttribute{ElementType: types.StringType, Computed: true, Description: "Admitted instance families, sorted."},
			"architectures": schema.ListAttribute{ElementType: types.StringType, Computed: true, Description: "Admitted architectures (`amd64`, `arm64`), sorted."},
			"source": schema.StringAttribute{Computed: true,
				Description: "Which facts answered: `live` (ec2:DescribeInstanceTypes of the provider's region) or `embedded` (offline family facts)."},
		},
	}
}

// ValidateConfig checks literal requirements against the default Karpenter
// release (the provider is not configured during validate); Read adds what
// the configured release changes.
func (d *instanceTypesDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var m instanceTypesModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	specs, ok := requirementSpecs(m.Requirements)
	if !ok {
		return
	}
	appendFindings(&resp.Diagnostics, path.Empty(), errorsOnly(requirements.Validate(specs, versions.DefaultKarpenter)))
}

func (d *instanceTypesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m instanceTypesModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	specs, ok := requirementSpecs(m.Requirements)
	if !ok {
		addDeferredError(errDeferred, &resp.Diagnostics)
		return
	}
	pd := providerDataOrDefault(d.data)
	defer func() { resp.Diagnostics = pd.oncePerPlan(dropAcknowledged(resp.Diagnostics, pd.Acknowledged), true) }()
	appendFindings(&resp.Diagnostics, path.Empty(), requirements.Validate(specs, pd.Karpenter))
	if resp.Diagnostics.HasError() {
		return
	}
	cat, err := instancetype.Load(ctx, pd.AWS)
	if err != nil {
		addAWSFailure(&resp.Diagnostics, path.Root("requirements"), err, "")
		return
	}
	adm := instancetype.Admit(specs, cat)
	appendFindings(&resp.Diagnostics, path.Empty(), adm.Findings())
	if resp.Diagnostics.HasError() {
		return
	}
	var diags diag.Diagnostics
	m.InstanceTypes, diags = instanceTypesValue(adm.Types)
	resp.Diagnostics.Append(diags...)
	m.Families, diags = types.ListValueFrom(ctx, types.StringType, nonNil(adm.Families))
	resp.Diagnostics.Append(diags...)
	m.Architectures, diags = types.ListValueFrom(ctx, types.StringType, nonNil(adm.Architectures))
	resp.Diagnostics.Append(diags...)
	m.Source = types.StringValue(string(adm.Source))
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func instanceTypesValue(ts []instancetype.Type) (types.Map, diag.Diagnostics) {
	var diags diag.Diagnostics
	elems := make(map[string]attr.Value, len(ts))
	for _, t := range ts {
		o, d := types.ObjectValue(instanceTypeAttrTypes, map[string]attr.Value{
			"family":            types.StringValue(t.Family),
			"architecture":      types.StringValue(t.Architecture),
			"vcpu":              types.Int64Value(t.VCPU),
			"memory_mib":        types.Int64Value(t.MemoryMiB),
			"gpu_count":         types.Int64Value(t.GPUCount),
			"gpu_manufacturer":  types.StringValue(t.GPUManufacturer),
			"gpu_name":          types.StringValue(t.GPUName),
			"accelerator_count": types.Int64Value(t.AcceleratorCount),
			"accelerator_name":  types.StringValue(t.AcceleratorName),
		})
		diags.Append(d...)
		elems[t.Name] = o
	}
	m, d := types.MapValue(types.ObjectType{AttrTypes: instanceTypeAttrTypes}, elems)
	diags.Append(d...)
	return m, diags
}

// requirementSpecs converts a `requirements` list attribute
// ({key, operator, values, min_values}, as in the NodePool resource) to
// specs, marking unknown parts. ok is false when the list itself is unknown.
// A null list is no requirements.
func requirementSpecs(l types.List) (specs []requirements.Spec, ok bool) {
	if l.IsUnknown() {
		return nil, false
	}
	for _, e := range l.Elements() {
		o, isObj := e.(types.Object)
		if !isObj || o.IsNull() {
			continue
		}
		var s requirements.Spec
		if o.IsUnknown() {
			s.Unknown = requirements.Unknown{Key: true, Operator: true, Values: true, MinValues: true}
			specs = append(specs, s)
			continue
		}
		attrs := o.Attributes()
		key, op := stringAttr(attrs["key"]), stringAttr(attrs["operator"])
		s.Key, s.Unknown.Key = key.ValueString(), key.IsUnknown()
		s.Operator, s.Unknown.Operator = op.ValueString(), op.IsUnknown()
		if vl, isList := attrs["values"].(types.List); isList {
			s.Unknown.Values = vl.IsUnknown()
			for _, v := range vl.Elements() {
				if v.IsUnknown() {
					s.Unknown.Values = true
				} else if sv, isStr := v.(types.String); isStr && !sv.IsNull() {
					s.Values = append(s.Values, sv.ValueString())
				}
			}
		}
		if mv, isInt := attrs["min_values"].(types.Int64); isInt {
			s.Unknown.MinValues = mv.IsUnknown()
			if !mv.IsNull() && !mv.IsUnknown() {
				n := int(mv.ValueInt64())
				s.MinValues = &n
			}
		}
		specs = append(specs, s)
	}
	return specs, true
}
