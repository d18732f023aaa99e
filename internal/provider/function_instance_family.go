package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype"
)

var _ function.Function = (*instanceFamilyFunction)(nil)

// NewInstanceFamilyFunction is the factory of instance_family.
func NewInstanceFamilyFunction() function.Function { return &instanceFamilyFunction{} }

type instanceFamilyFunction struct{}

var instanceFamilyAttrTypes = map[string]attr.Type{
	"architecture":     types.StringType,
	"gpu_manufacturer": types.StringType,
	"accelerator":      types.StringType,
}

func (f *instanceFamilyFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "instance_family"
}

func (f *instanceFamilyFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "Architecture, GPU manufacturer and accelerator of an EC2 instance family",
		MarkdownDescription: fmt.Sprintf("Returns the facts Karpenter's labels carry for every type of an instance family, from the "+
			"provider's embedded table (%d families; pure and offline): `architecture` (`amd64` or `arm64`), `gpu_manufacturer` "+
			"(`nvidia`, `amd`, or `\"\"` without a GPU) and `accelerator` (`neuron` for Inferentia/Trainium, `\"\"` otherwise). "+
			"An unknown family (or an instance type name such as `g5g.xlarge`, or a Mac family Karpenter never offers) is an argument error; "+
			"the provider does not guess facts for families it does not know.", len(instancetype.FamilyNames())),
		Parameters: []function.Parameter{
			function.StringParameter{Name: "family", Description: "Instance family, e.g. `g5g`, `m7i-flex`, `u7i-12tb`."},
		},
		Return: function.ObjectReturn{AttributeTypes: instanceFamilyAttrTypes},
	}
}

func (f *instanceFamilyFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var name string
	resp.Error = function.ConcatFuncErrors(resp.Error, req.Arguments.Get(ctx, &name))
	if resp.Error != nil {
		return
	}
	fam, err := instancetype.LookupFamily(name)
	if err != nil {
		resp.Error = function.NewArgumentFuncError(0, err.Error())
		return
	}
	obj, diags := types.ObjectValue(instanceFamilyAttrTypes, map[string]attr.Value{
		"architecture":     types.StringValue(fam.Architecture),
		"gpu_manufacturer": types.StringValue(fam.GPUManufacturer),
		"accelerator":      types.StringValue(fam.Accelerator),
	})
	resp.Error = function.ConcatFuncErrors(resp.Error, function.FuncErrorFromDiags(ctx, diags))
	if resp.Error != nil {
		return
	}
	resp.Error = function.ConcatFuncErrors(resp.Error, resp.Result.Set(ctx, obj))
}
