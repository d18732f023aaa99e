package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

var _ function.Function = (*amiSSMParametersFunction)(nil)

// NewAMISSMParametersFunction is the factory of ami_ssm_parameters.
func NewAMISSMParametersFunction() function.Function { return &amiSSMParametersFunction{} }

type amiSSMParametersFunction struct{}

func (f *amiSSMParametersFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "ami_ssm_parameters"
}

func (f *amiSSMParametersFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "The SSM parameters Karpenter reads to resolve an AMI alias",
		MarkdownDescription: fmt.Sprintf("Returns the public SSM parameter names Karpenter %[1]s queries for `alias` on `kubernetes_version`, keyed "+
			"`\"<arch>/<variant>\"` (`amd64`/`arm64` × `standard`/`nvidia`/`neuron`): the parameter whose image an instance of that "+
			"architecture and accelerator gets. Combinations that do not exist are absent (AL2 has no arm64 GPU image, no family has an "+
			"arm64 Neuron image, Windows has no arm64 image); the AL2 GPU image serves both `nvidia` and `neuron`, Bottlerocket's "+
			"standard x86_64 image also serves `neuron`, and Windows' one image serves every amd64 variant. A malformed alias or an "+
			"unsupported family/Kubernetes pair (AL2 on 1.33+, Windows Server 2025 below 1.35) is an argument error. Pure and offline.\n\n"+
			"Functions cannot read the provider's `karpenter_version`, so the answer is always Karpenter %[1]s's query set. Older releases "+
			"query less: before 1.4 no AL2023 `arm64/nvidia` parameter, before 1.3 no Bottlerocket `amd64/neuron` (1.0 maps Neuron to the "+
			"NVIDIA image). For another release, the `karpenter_amis` data source resolves the alias with the provider's `karpenter_version` "+
			"and shows, per image, the variant it serves.",
			versions.DefaultKarpenter),
		Parameters: []function.Parameter{
			function.StringParameter{Name: "alias", Description: "An alias, e.g. `al2023@latest` or `bottlerocket@1.51.0`."},
			function.StringParameter{Name: "kubernetes_version", Description: "Kubernetes minor, e.g. `1.32`."},
		},
		Return: function.MapReturn{ElementType: types.StringType},
	}
}

func (f *amiSSMParametersFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var alias, k8s string
	resp.Error = function.ConcatFuncErrors(resp.Error, req.Arguments.Get(ctx, &alias, &k8s))
	if resp.Error != nil {
		return
	}
	kv := versions.DefaultKarpenter
	a, fs := ami.ParseAlias(alias, kv, rules.Path{})
	if fs.HasErrors() {
		resp.Error = function.NewArgumentFuncError(0, findingsMessage(fs))
		return
	}
	v, err := versions.ParseKubernetes(k8s)
	if err != nil {
		resp.Error = function.NewArgumentFuncError(1, err.Error())
		return
	}
	qs, fs := ami.SSMParameters(a, v, kv, rules.Path{})
	if fs.HasErrors() {
		resp.Error = function.NewArgumentFuncError(1, findingsMessage(fs))
		return
	}
	resp.Error = function.ConcatFuncErrors(resp.Error, resp.Result.Set(ctx, ami.ParameterMap(qs)))
}

// findingsMessage renders error findings for a function error.
func findingsMessage(fs rules.Findings) string {
	var parts []string
	for _, f := range fs {
		if f.Severity == rules.Error {
			parts = append(parts, f.Summary()+": "+f.Detail)
		}
	}
	return strings.Join(parts, "\n")
}
