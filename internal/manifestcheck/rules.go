package manifestcheck

import (
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/crd"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// Category is the rules guide section of the manifest rules.
const Category = "Manifests"

// example is a rule's docs example: validate_manifest on a YAML heredoc,
// the way the function is called from a check block or a module.
func example(yaml string) string {
	return "locals {\n  findings = provider::karpenter::validate_manifest(<<-EOT\n" + indent(yaml, "    ") + "  EOT\n  )\n}"
}

// nodePool is a NodePool document whose spec.template.spec is spec.
func nodePool(spec string) string {
	return "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: default\nspec:\n  template:\n    spec:\n" + spec
}

const nodeClassRef = "      nodeClassRef:\n        group: karpenter.k8s.aws\n        kind: EC2NodeClass\n        name: default\n"

// familyRequirement asks for three instance families with the field
// named minValues (or a misspelling of it).
func familyRequirement(minValues string) string {
	return "      requirements:\n        - key: karpenter.k8s.aws/instance-family\n          operator: Exists\n          " + minValues + ": 3\n"
}

var (
	ruleMalformed = rules.Register(rules.Rule{
		ID: "manifest-malformed", Severity: rules.Error, Category: Category,
		Title:     "the document is not a YAML or JSON object",
		Behaviour: "`kubectl apply`, Helm and Argo CD decode each document of a stream as a Kubernetes object: a document that is not YAML (a tab in the indentation, an unclosed quote, an unrendered Helm template), that repeats a key in one mapping (kubectl's strict decoding: `mapping key \"x\" already defined`), or that is a list or a scalar instead of an object is refused before any object reaches the API server, and nothing of the stream after it is applied by kubectl. validate_manifest reports it once for the document, with the line in the whole input, and checks the other documents.",
		Source:    "sigs.k8s.io/yaml YAMLToJSONStrict (what kubectl and the API server decode YAML with); k8s.io/apimachinery pkg/util/yaml NewYAMLReader (the `---` document separator)",
		Bad:       example(nodePool("      requirements: []\n      requirements: []\n")),
		Good:      example(nodePool("      requirements: []\n" + nodeClassRef)),
	})
	ruleAPIVersion = rules.Register(rules.Rule{
		ID: "manifest-api-version-unsupported", Severity: rules.Error, Category: Category,
		Title:     "the Karpenter object is not karpenter.sh/v1 NodePool or karpenter.k8s.aws/v1 EC2NodeClass",
		Behaviour: "The CRDs of current Karpenter releases serve NodePool only as `karpenter.sh/v1` and EC2NodeClass only as `karpenter.k8s.aws/v1`; the v1beta1 versions were served by the v1.0 conversion webhooks only, and v0.32 renamed Provisioner (karpenter.sh/v1alpha5) to NodePool and AWSNodeTemplate (karpenter.k8s.aws/v1alpha1) to EC2NodeClass. `kubectl apply` of another version fails with `no matches for kind \"NodePool\" in version \"karpenter.sh/v1beta1\"`. The v1 objects moved and renamed fields (e.g. `spec.template.spec.kubelet` moved to the EC2NodeClass, `amiSelectorTerms` became required, `consolidationPolicy: WhenUnderutilized` became `WhenEmptyOrUnderutilized`, `expireAfter` moved to `spec.template.spec`), so a document must be migrated, not only relabelled; validate_manifest does not check the old versions' fields.",
		Source:    "github.com/aws/karpenter-provider-aws v1.14.1 pkg/apis/crds/karpenter.sh_nodepools.yaml and karpenter.k8s.aws_ec2nodeclasses.yaml (versions: v1 only); karpenter.sh docs upgrading/v1-migration and v1beta1-migration",
		Bad: example(`apiVersion: karpenter.sh/v1beta1
kind: NodePool
metadata:
  name: default
spec:
  template:
    spec:
      nodeClassRef:
        name: default
`),
		Good: example(nodePool("      requirements: []\n" + nodeClassRef)),
	})
	ruleKind = rules.Register(rules.Rule{
		ID: "manifest-kind-unknown", Severity: rules.Error, Category: Category,
		Title:     "the kind is a misspelling of NodePool or EC2NodeClass",
		Behaviour: "Kinds are case-sensitive. `kubectl apply` of `kind: EC2Nodeclass` in karpenter.k8s.aws/v1 fails with `no matches for kind \"EC2Nodeclass\"`; a GitOps tool reports the resource as unknown and never syncs it. Documents of other kinds (Deployments, ConfigMaps, NodeClaims, ...) are not Karpenter configuration and are skipped without a finding.",
		Source:    "Kubernetes API discovery (kinds are matched exactly); github.com/aws/karpenter-provider-aws v1.14.1 pkg/apis/crds (names.kind)",
		Bad: example(`apiVersion: karpenter.k8s.aws/v1
kind: EC2Nodeclass
metadata:
  name: default
`),
		Good: example(`apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  role: KarpenterNodeRole-demo
  amiSelectorTerms:
    - alias: al2023@v20251209
  subnetSelectorTerms:
    - tags:
        karpenter.sh/discovery: demo
  securityGroupSelectorTerms:
    - tags:
        karpenter.sh/discovery: demo
`),
	})
	ruleUnknownField = rules.Register(rules.Rule{
		ID: "manifest-unknown-field", Severity: rules.Error, Category: Category,
		Title:     "the manifest has a field the Karpenter CRD does not know",
		Behaviour: "The API server prunes every field the CRD's structural schema does not list. With kubectl's default strict field validation (kubectl 1.27+) the apply fails with `unknown field \"spec.amiSelectorTerm\"`; with `--validate=false`, Helm or a client that does not ask for strict validation, the object is stored without the field and the setting silently vanishes (a misspelled `minValues` constrains nothing, a `kubelet` left in the NodePool from v1beta1 configures nothing). The finding names the nearest known field when the unknown one looks like a misspelling of it.",
		Source:    crd.KarpenterVersion + " CRDs of github.com/aws/karpenter-provider-aws (pkg/apis/crds), pruned with k8s.io/apiextensions-apiserver pkg/apiserver/schema/pruning as the API server does",
		Bad:       example(nodePool(familyRequirement("minValue") + nodeClassRef)),
		Good:      example(nodePool(familyRequirement("minValues") + nodeClassRef)),
	})
)
