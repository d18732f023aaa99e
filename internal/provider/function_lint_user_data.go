package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata/lint"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

var _ function.Function = (*lintUserDataFunction)(nil)

// NewLintUserDataFunction is the factory of lint_user_data.
func NewLintUserDataFunction() function.Function { return &lintUserDataFunction{} }

type lintUserDataFunction struct{}

var findingObjectType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"rule": types.StringType, "severity": types.StringType, "message": types.StringType,
}}

func (f *lintUserDataFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "lint_user_data"
}

func (f *lintUserDataFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "Check EC2NodeClass userData the way karpenter_ec2nodeclass does",
		MarkdownDescription: fmt.Sprintf("Returns the findings the provider reports for `user_data` on an EC2NodeClass with `ami_family`, "+
			"as Karpenter %s treats it (functions cannot see the provider configuration, so `karpenter_version` does not apply): "+
			"bootstrap.sh options written `--opt=value`, broken `--kubelet-extra-args` quoting, taints and labels the kubelet rejects, "+
			"Custom userData that does not register `karpenter.sh/unregistered:NoExecute`, AL2023 NodeConfig flags that override "+
			"Karpenter's taints, Bottlerocket TOML Karpenter drops or rejects, malformed MIME, the 16 KB limit and more. Each finding is "+
			"`{rule, severity, message}` with `severity` `\"error\"` or `\"warning\"`; rule ids are listed in the rules guide. An empty "+
			"list means nothing was found. An unknown `ami_family` is an argument error.", versions.DefaultKarpenter),
		Parameters: []function.Parameter{
			function.StringParameter{Name: "ami_family", Description: "AL2, AL2023, Bottlerocket, Windows2019, Windows2022, Windows2025 or Custom."},
			function.StringParameter{Name: "user_data", Description: "The userData as written in the EC2NodeClass (not base64).", AllowNullValue: true},
		},
		Return: function.ListReturn{ElementType: findingObjectType},
	}
}

func (f *lintUserDataFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var family string
	var ud types.String
	resp.Error = function.ConcatFuncErrors(resp.Error, req.Arguments.Get(ctx, &family, &ud))
	if resp.Error != nil {
		return
	}
	fam, err := amifamily.ParseError(family)
	if err != nil {
		resp.Error = function.NewArgumentFuncError(0, err.Error())
		return
	}
	fs := lint.UserData(fam, ud.ValueString(), versions.DefaultKarpenter)
	elems := make([]attr.Value, 0, len(fs))
	for _, fi := range fs {
		o, diags := types.ObjectValue(findingObjectType.AttrTypes, map[string]attr.Value{
			"rule": types.StringValue(fi.Rule.ID), "severity": types.StringValue(fi.Severity.String()), "message": types.StringValue(fi.Detail),
		})
		if diags.HasError() {
			resp.Error = function.FuncErrorFromDiags(ctx, diags)
			return
		}
		elems = append(elems, o)
	}
	list, diags := types.ListValue(findingObjectType, elems)
	if diags.HasError() {
		resp.Error = function.FuncErrorFromDiags(ctx, diags)
		return
	}
	resp.Error = function.ConcatFuncErrors(resp.Error, resp.Result.Set(ctx, list))
}
