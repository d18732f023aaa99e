package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/crd"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifestcheck"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

var _ function.Function = (*validateManifestFunction)(nil)

// NewValidateManifestFunction is the factory of validate_manifest.
func NewValidateManifestFunction() function.Function { return &validateManifestFunction{} }

type validateManifestFunction struct{}

var manifestFindingType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"rule": types.StringType, "severity": types.StringType, "path": types.StringType, "message": types.StringType,
	"object": types.StringType, "file": types.StringType, "line": types.Int64Type, "column": types.Int64Type,
}}

func (f *validateManifestFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "validate_manifest"
}

func (f *validateManifestFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "Check EC2NodeClass, NodePool and NodeOverlay manifests kept in YAML or JSON with the provider's offline rules",
		MarkdownDescription: fmt.Sprintf("Returns the findings the provider's offline rules make on existing EC2NodeClass "+
			"(`karpenter.k8s.aws/v1`), NodePool (`karpenter.sh/v1`) and NodeOverlay (`karpenter.sh/v1alpha1`) manifests, as Karpenter %s treats them (functions cannot "+
			"see the provider configuration, so `karpenter_version` does not apply): Karpenter's CRD schema and CEL rules as the API "+
			"server applies them (CRDs of karpenter-provider-aws %s), Karpenter's runtime validation, AMI selector terms and "+
			"family, userData lint, requirements against the embedded instance-family facts, and the NodePool/EC2NodeClass "+
			"cross-checks when the class is in the same input. A NodeOverlay also gets `nodeoverlay-feature-gate-off`, a warning that "+
			"Karpenter ignores it unless its NodeOverlay feature gate is on, which a function cannot know: leave that rule out when "+
			"the cluster runs with the gate on. `manifest` is one YAML or JSON document or several YAML documents "+
			"separated by `---` lines. Each finding is `{rule, severity, object, path, file, line, column, message}`: `severity` is "+
			"`\"error\"` or `\"warning\"`; `object` the document's `<kind>/<name>` (`NodePool/general`, `\"\"` for a document "+
			"that is not an object); `path` the manifest field (`spec.template.spec.requirements[0].minValues`, `\"\"` for the "+
			"whole document); `line` and `column` the position of that field in `manifest` (1-based; a missing field is located "+
			"at its nearest parent). A document under a `# Source: <file>` comment line, as `helm template` writes them, has "+
			"`file` set to that file and `line` counted within the rendered document from the line after the comment (a later "+
			"document without a comment of its own continues the same file); `file` is `\"\"` otherwise. A document that is not YAML or not an object is one `manifest-malformed` finding; "+
			"documents of other kinds are skipped without a finding. The annotation `lint.karpenter-tf.io/ignore: "+
			"\"<rule>[,<rule>]: <reason>\"` in an object's `metadata.annotations` leaves those rules' findings on it out of the "+
			"result. Checks that need AWS (image resolution, subnets, security groups, the instance profile, live instance types) "+
			"are not made (the `karpenter-lint` command makes them with `--region`). An empty list means nothing was found.",
			versions.DefaultKarpenter, crd.KarpenterVersion),
		Parameters: []function.Parameter{
			function.StringParameter{
				Name:               "manifest",
				Description:        "YAML or JSON text: one or more EC2NodeClass, NodePool and NodeOverlay documents, e.g. file(\"nodepool.yaml\").",
				AllowUnknownValues: true,
			},
		},
		Return: function.ListReturn{ElementType: manifestFindingType},
	}
}

func (f *validateManifestFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var m types.String
	resp.Error = function.ConcatFuncErrors(resp.Error, req.Arguments.Get(ctx, &m))
	if resp.Error != nil {
		return
	}
	if m.IsUnknown() {
		// Known at apply; the findings are then computed.
		resp.Error = resp.Result.Set(ctx, types.ListUnknown(manifestFindingType))
		return
	}
	fs := manifestcheck.Check(ctx, m.ValueString(), versions.DefaultKarpenter)
	elems := make([]attr.Value, 0, len(fs))
	for _, fi := range fs {
		file, line := fi.Where()
		o, diags := types.ObjectValue(manifestFindingType.AttrTypes, map[string]attr.Value{
			"rule": types.StringValue(fi.Rule.ID), "severity": types.StringValue(fi.Severity.String()),
			"path": types.StringValue(fi.Path), "message": types.StringValue(fi.Message),
			"object": types.StringValue(fi.Object), "file": types.StringValue(file),
			"line": types.Int64Value(int64(line)), "column": types.Int64Value(int64(fi.Column)),
		})
		if diags.HasError() {
			resp.Error = function.FuncErrorFromDiags(ctx, diags)
			return
		}
		elems = append(elems, o)
	}
	list, diags := types.ListValue(manifestFindingType, elems)
	if diags.HasError() {
		resp.Error = function.FuncErrorFromDiags(ctx, diags)
		return
	}
	resp.Error = function.ConcatFuncErrors(resp.Error, resp.Result.Set(ctx, list))
}
