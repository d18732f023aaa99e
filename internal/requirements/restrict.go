package requirements

import (
	"fmt"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/suggest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// legacyKubernetesAllowed are the kubernetes.io keys the ≤1.8 CRD rule lists
// explicitly (hack/validation/requirements.sh before kubernetes-sigs/karpenter#2586).
var legacyKubernetesAllowed = map[string]bool{
	"beta.kubernetes.io/instance-type":         true,
	"failure-domain.beta.kubernetes.io/region": true,
	"beta.kubernetes.io/os":                    true,
	"beta.kubernetes.io/arch":                  true,
	"failure-domain.beta.kubernetes.io/zone":   true,
	LabelZone:                                  true,
	LabelRegion:                                true,
	LabelInstanceType:                          true,
	LabelArch:                                  true,
	LabelOS:                                    true,
	LabelWindowsBuild:                          true,
}

// celDomain is what the CRD's CEL takes as the domain:
// key.find("^([^/]+)"), i.e. the whole key when it has no "/".
func celDomain(key string) string {
	d, _, _ := strings.Cut(key, "/")
	return d
}

// CheckKey reports the restrictions the NodePool CRD (of Karpenter v) and
// Karpenter's runtime validation put on a requirement key; p is the key's
// attribute path.
func CheckKey(key string, v versions.Karpenter, p rules.Path) rules.Findings {
	var fs rules.Findings
	d := celDomain(key)
	switch {
	case key == LabelNodePool:
		fs = append(fs, rules.New(ruleNodePoolKey, p,
			"%q is set by Karpenter on every node of the pool; the CRD rejects it as a requirement (\"label \\\"karpenter.sh/nodepool\\\" is restricted\") and so does the runtime (\"invalid key: %q in requirements, restricted\"). Remove the requirement; pods select the pool with a nodeSelector on this label instead.", key, key))
	case key != LabelCapacityType && strings.HasSuffix(d, "karpenter.sh"):
		fs = append(fs, rules.New(ruleKarpenterDomain, p,
			"%q is in the domain %q, which the CRD reserves (\"label domain \\\"karpenter.sh\\\" is restricted\"; the check is a suffix match on the domain). The only usable karpenter.sh key is %q%s; use a domain of your own (e.g. example.com/%s) for custom labels.", key, d, LabelCapacityType, suggest.Hint(key, []string{LabelCapacityType}), strings.TrimPrefix(key, d+"/")))
	case key == LabelHostname:
		fs = append(fs, rules.New(ruleHostname, p,
			"%q is restricted (\"label \\\"kubernetes.io/hostname\\\" is restricted\"): node names are not known before launch. Constrain topology.kubernetes.io/zone or a custom label instead.", key))
	case strings.HasSuffix(d, "karpenter.k8s.aws"):
		fs = append(fs, checkAWSKey(key, v, p)...)
	}
	if !v.AtLeast(9, 0) && key != LabelHostname {
		if f, bad := legacyDomainFinding(key, d, v, p); bad {
			fs = append(fs, f)
		}
	}
	return fs
}

func checkAWSKey(key string, v versions.Karpenter, p rules.Path) rules.Findings {
	if key == LabelNodeClass {
		return rules.Findings{rules.New(ruleNodeClassKey, p,
			"%q passes the CRD allow-list but is not a well-known label, so Karpenter's runtime validation rejects it (\"using label %s is not allowed as it might interfere with the internal provisioning logic\") and the NodePool gets ValidationSucceeded=False. The pool's EC2NodeClass is chosen by its nodeClassRef, not by a requirement; remove it.", key, key)}
	}
	info, known := wellKnown[key]
	if known && info.sinceMinor <= v.Minor {
		return nil
	}
	var why string
	switch {
	case key == "karpenter.k8s.aws/instance-pods":
		why = "it is listed in Karpenter's scheduling docs but is not a label in any release (no instance type carries it). Constrain pods through karpenter.k8s.aws/instance-cpu or -memory instead, or set kubelet.maxPods on the EC2NodeClass"
	case known:
		why = fmt.Sprintf("the label exists from Karpenter 1.%d and the checks run against Karpenter %s; upgrade Karpenter or drop the requirement", info.sinceMinor, v)
	default:
		why = "it is not one of the AWS well-known labels" + suggest.Hint(key, awsLabels())
	}
	return rules.Findings{rules.New(ruleAWSDomain, p,
		"%q: the CRD rejects it (\"label domain \\\"karpenter.k8s.aws\\\" is restricted\") because %s.", key, why)}
}

func legacyDomainFinding(key, d string, v versions.Karpenter, p rules.Path) (rules.Finding, bool) {
	switch {
	case strings.HasSuffix(d, "kubernetes.io"):
		if legacyKubernetesAllowed[key] || strings.HasSuffix(d, "node.kubernetes.io") || strings.HasSuffix(d, "node-restriction.kubernetes.io") {
			return rules.Finding{}, false
		}
		return rules.New(ruleKubernetesDomain, p,
			"%q: Karpenter %s rejects it (\"label domain \\\"kubernetes.io\\\" is restricted\"); only the well-known labels and *node.kubernetes.io / *node-restriction.kubernetes.io keys are allowed before 1.9.0. Use e.g. node.kubernetes.io/%s or your own domain, or upgrade Karpenter to 1.9 or later.%s", key, v, strings.TrimPrefix(key, d+"/"), suggest.Hint(key, WellKnownLabels())).
			WithFix(rules.KarpenterVersion(`"1.9"`)), true
	case strings.HasSuffix(d, "k8s.io") && !strings.HasSuffix(d, "kops.k8s.io"):
		return rules.New(ruleKubernetesDomain, p,
			"%q: Karpenter %s rejects it (\"label domain \\\"k8s.io\\\" is restricted\"); only kops.k8s.io is exempt before 1.9.0. Use your own domain, or upgrade Karpenter to 1.9 or later.", key, v).
			WithFix(rules.KarpenterVersion(`"1.9"`)), true
	}
	return rules.Finding{}, false
}

func awsLabels() []string {
	var out []string
	for _, k := range WellKnownLabels() {
		if strings.HasPrefix(k, "karpenter.k8s.aws/") {
			out = append(out, k)
		}
	}
	return out
}

// The rules the checks of this file emit.
var (
	ruleKarpenterDomain = rules.Register(rules.Rule{
		ID: "requirement-key-karpenter-domain", Severity: rules.Error, Category: Category,
		Title:     "key in the restricted karpenter.sh domain",
		Behaviour: "The CRD rejects the NodePool: \"label domain \\\"karpenter.sh\\\" is restricted\" (only karpenter.sh/capacity-type is usable; the check is a plain suffix match, so notkarpenter.sh/x is restricted too).",
		Source:    "NodePool CRD requirements[].key x-kubernetes-validations (kubernetes-sigs/karpenter hack/validation/requirements.sh); pkg/apis/v1/labels.go IsRestrictedLabel",
		Bad:       pool(req("karpenter.sh/team", "In", `values = ["a"]`)),
		Good:      pool(req("example.com/team", "In", `values = ["a"]`)),
	})
	ruleNodePoolKey = rules.Register(rules.Rule{
		ID: "requirement-key-nodepool", Severity: rules.Error, Category: Category,
		Title:     "karpenter.sh/nodepool cannot be a requirement key",
		Behaviour: "The CRD rejects it (\"label \\\"karpenter.sh/nodepool\\\" is restricted\") and so does the runtime (\"invalid key: %q in requirements, restricted\"); Karpenter sets the label itself.",
		Source:    "NodePool CRD requirements[].key x-kubernetes-validations; kubernetes-sigs/karpenter pkg/apis/v1/nodepool_validation.go validateRequirementsNodePoolKeyDoesNotExist",
		Bad:       pool(req("karpenter.sh/nodepool", "In", `values = ["default"]`)),
		Good:      pool(req("karpenter.sh/capacity-type", "In", `values = ["on-demand"]`)),
	})
	ruleHostname = rules.Register(rules.Rule{
		ID: "requirement-key-hostname", Severity: rules.Error, Category: Category,
		Title:     "kubernetes.io/hostname cannot be a label or requirement key",
		Behaviour: "The CRD rejects it: \"label \\\"kubernetes.io/hostname\\\" is restricted\"; at runtime it is in RestrictedLabels (\"using label kubernetes.io/hostname is not allowed as it might interfere with the internal provisioning logic\").",
		Source:    "NodePool CRD requirements[].key x-kubernetes-validations; kubernetes-sigs/karpenter pkg/apis/v1/labels.go RestrictedLabels",
		Bad:       pool(req("kubernetes.io/hostname", "Exists")),
		Good:      pool(req("topology.kubernetes.io/zone", "In", `values = ["us-east-1a"]`)),
	})
	ruleAWSDomain = rules.Register(rules.Rule{
		ID: "requirement-key-aws-domain", Severity: rules.Error, Category: Category,
		Title:     "karpenter.k8s.aws key that is not an AWS well-known label",
		Behaviour: "The CRD rejects the NodePool: \"label domain \\\"karpenter.k8s.aws\\\" is restricted\". Only the AWS well-known labels are allowed; karpenter.k8s.aws/instance-pods appears in Karpenter's docs but is not a label at all; placement-group labels exist from v1.11.0.",
		Source:    "NodePool CRD requirements[].key rule (aws/karpenter-provider-aws pkg/apis/crds/karpenter.sh_nodepools.yaml); aws/karpenter-provider-aws pkg/apis/v1/labels.go (the well-known labels; instance-pods is in website/content/en/docs/concepts/scheduling.md only)",
		Bad:       pool(req("karpenter.k8s.aws/instance-pods", "Gt", `values = ["20"]`)),
		Good:      pool(req("karpenter.k8s.aws/instance-cpu", "Gt", `values = ["4"]`)),
	})
	ruleNodeClassKey = rules.Register(rules.Rule{
		ID: "requirement-key-ec2nodeclass", Severity: rules.Error, Category: Category,
		Title:     "karpenter.k8s.aws/ec2nodeclass as a label or requirement passes the CRD but Karpenter rejects it",
		Behaviour: "The CRD allow-list includes the key, but it is not a well-known label, so runtime validation fails (\"using label karpenter.k8s.aws/ec2nodeclass is not allowed as it might interfere with the internal provisioning logic\") and the NodePool gets ValidationSucceeded=False.",
		Source:    "kubernetes-sigs/karpenter pkg/apis/v1/labels.go IsRestrictedLabel (WellKnownLabels); aws/karpenter-provider-aws pkg/apis/crds/karpenter.sh_nodepools.yaml (the allow-list that includes it)",
		Bad:       pool(req("karpenter.k8s.aws/ec2nodeclass", "In", `values = ["default"]`)),
		Good:      pool(req("karpenter.k8s.aws/instance-category", "In", `values = ["m"]`)),
	})
	ruleKubernetesDomain = rules.Register(rules.Rule{
		ID: "requirement-key-kubernetes-domain", Severity: rules.Error, Category: Category,
		Title:     "kubernetes.io / k8s.io key restricted before Karpenter 1.9",
		Behaviour: "Up to v1.8.x the CRD rejects keys in the kubernetes.io and k8s.io domains (\"label domain \\\"kubernetes.io\\\" is restricted\" / \"label domain \\\"k8s.io\\\" is restricted\") except the well-known labels, *node.kubernetes.io, *node-restriction.kubernetes.io and kops.k8s.io; from v1.9.0 they are allowed (kubernetes-sigs/karpenter#2586).",
		Source:    "kubernetes-sigs/karpenter hack/validation/requirements.sh (≤v1.8), PR #2586",
		Bad:       before19(pool(req("node-role.kubernetes.io/worker", "Exists"))),
		Good:      before19(pool(req("node.kubernetes.io/worker", "Exists"))),
	})
)
