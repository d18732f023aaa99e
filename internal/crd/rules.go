package crd

import (
	"context"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// KarpenterVersion is the release of github.com/aws/karpenter-provider-aws
// whose CRDs are embedded (go.mod pins it; a test keeps the two equal).
const KarpenterVersion = "v1.14.1"

// Category is the docs section of the CRD rules.
const Category = "CRD"

const source = "github.com/aws/karpenter-provider-aws " + KarpenterVersion + " pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml and karpenter.sh_nodepools.yaml (embedded as apis.EC2NodeClassCRD, apis.NodePoolCRD), evaluated with k8s.io/apiextensions-apiserver as the API server does on create"

var (
	ruleValidation = rules.Register(rules.Rule{
		ID: "crd-validation", Severity: rules.Error, Category: Category,
		Title:     "the API server would reject the manifest (Karpenter CRD)",
		Behaviour: "The rendered EC2NodeClass or NodePool breaks a rule of Karpenter's CRD: an OpenAPI type, pattern, enum or limit, or an x-kubernetes-validations (CEL) rule. `kubectl apply` (or any GitOps tool) fails with `The EC2NodeClass \"x\" is invalid: <field>: <message>`; nothing is stored and the cluster keeps the previous version. The diagnostic quotes the API server's message verbatim. Transition rules (oldSelf) are not evaluated, as on a create.",
		Source:    source,
		Bad: `resource "karpenter_ec2nodeclass" "x" {
  name = "default"
  role = "KarpenterNodeRole"

  ami_selector_terms { alias = "al2023@latest" }
  ami_selector_terms { id = "ami-0123456789abcdef0" }
  subnet_selector_terms { tags = { "karpenter.sh/discovery" = "my-cluster" } }
  security_group_selector_terms { tags = { "karpenter.sh/discovery" = "my-cluster" } }
}`,
		Good: `resource "karpenter_ec2nodeclass" "x" {
  name = "default"
  role = "KarpenterNodeRole"

  ami_selector_terms { alias = "al2023@latest" }
  subnet_selector_terms { tags = { "karpenter.sh/discovery" = "my-cluster" } }
  security_group_selector_terms { tags = { "karpenter.sh/discovery" = "my-cluster" } }
}`,
	})
	ruleUnknownField = rules.Register(rules.Rule{
		ID: "crd-unknown-field", Severity: rules.Error, Category: Category,
		Title:     "the rendered manifest has a field the Karpenter CRD does not know",
		Behaviour: "The API server prunes every field its structural schema does not list: with the default field validation the object is stored without it (a warning at most) and the setting silently vanishes; with kubectl's strict field validation the apply fails (`unknown field \"spec.x\"`). The resources' attributes map one to one onto fields of the embedded CRD, so a configuration should never trigger this: it guards the renderer against drifting from the CRD (a model change, or a Karpenter bump that drops a field, as the typed spec.kubelet will be replaced after v1.14) and is a provider bug to report.",
		Source:    source + "; k8s.io/apiextensions-apiserver pkg/apiserver/schema/pruning PruneWithOptions",
		Bad: `# a provider build whose renderer still wrote the v1beta1 spec.template.spec.kubelet
resource "karpenter_nodepool" "x" {
  name       = "default"
  node_class = { name = "default" }

  requirements {
    key      = "kubernetes.io/arch"
    operator = "In"
    values   = ["arm64"]
  }
}`,
		Good: `# kubelet settings belong to the EC2NodeClass since Karpenter v1
resource "karpenter_ec2nodeclass" "x" {
  name = "default"
  role = "KarpenterNodeRole"

  ami_selector_terms { alias = "al2023@latest" }
  subnet_selector_terms { tags = { "karpenter.sh/discovery" = "my-cluster" } }
  security_group_selector_terms { tags = { "karpenter.sh/discovery" = "my-cluster" } }
  kubelet { max_pods = 110 }
}`,
	})
)

// ValidateEC2NodeClass validates a rendered EC2NodeClass (manifest.Object of
// a manifest.EC2NodeClass) against the CRD and returns the object as the API
// server would store it, with findings on karpenter_ec2nodeclass attributes.
func ValidateEC2NodeClass(ctx context.Context, obj map[string]any) (map[string]any, rules.Findings) {
	return EC2NodeClass.Findings(ctx, obj)
}

// ValidateNodePool is ValidateEC2NodeClass for NodePools and
// karpenter_nodepool attributes.
func ValidateNodePool(ctx context.Context, obj map[string]any) (map[string]any, rules.Findings) {
	return NodePool.Findings(ctx, obj)
}

// Findings runs Validate and reports crd-validation for each error and
// crd-unknown-field for each pruned field, at the Terraform attribute.
// The defaulted object is nil when validation could not run.
func (k *Kind) Findings(ctx context.Context, obj map[string]any) (map[string]any, rules.Findings) {
	res, err := k.Validate(ctx, obj)
	if err != nil {
		// A provider bug (the embedded CRD does not build, or the renderer
		// produced non-JSON); failing the plan beats skipping the check.
		return nil, rules.Findings{rules.New(ruleValidation, rules.Path{}, "Could not validate the %s against the CRD of karpenter-provider-aws %s: %v", k.name, KarpenterVersion, err)}
	}
	var fs rules.Findings
	for _, e := range res.Errors {
		f := rules.New(ruleValidation, k.TerraformPath(e.Field), "The API server would reject the %s: %s (CRD of karpenter-provider-aws %s)", k.name, e.Text, KarpenterVersion)
		if e.Field == "" && e.Detail == RulesNotChecked {
			// Not a rejection of its own: the errors beside it are. It says
			// more may follow once those are fixed.
			f = rules.New(ruleValidation, rules.Path{}, "The API server would also say: %s (CRD of karpenter-provider-aws %s)", RulesNotChecked, KarpenterVersion).AsWarning()
		}
		fs = append(fs, f)
	}
	for _, u := range res.Unknown {
		fs = append(fs, rules.New(ruleUnknownField, k.TerraformPath(u),
			"The %s CRD of karpenter-provider-aws %s has no field %s: the API server would drop it and the setting would vanish (kubectl's strict field validation rejects it: unknown field %q)",
			k.name, KarpenterVersion, u, u))
	}
	return res.Object, fs
}

// RuleValidation is crd-validation, for the front ends that report the API
// server's errors themselves (karpenter-lint's per-field findings).
var RuleValidation = ruleValidation

// RuleUnknownField guards the provider's renderer; a manifest's own
// unknown field is another rule's (manifest-unknown-field).
var RuleUnknownField = ruleUnknownField
