package nodepool

import (
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// checkName: the API server's name rule for custom resources, and the
// karpenter.sh/nodepool label every NodeClaim carries.
func checkName(p Pool) rules.Findings {
	if p.Unknown.Is(pathName) {
		return nil
	}
	name := p.Manifest.Metadata.Name
	probs := validation.IsDNS1123Subdomain(name)
	if name == "" {
		probs = []string{"the name is empty"}
	}
	if len(name) > validation.LabelValueMaxLength {
		probs = append(probs, "Karpenter labels every node karpenter.sh/nodepool=<name>, and label values are at most 63 characters: every NodeClaim would be rejected")
	}
	if len(probs) == 0 {
		return nil
	}
	return rules.Findings{rules.New(ruleName, pathName,
		"%q cannot name a NodePool: %s. Use lower-case letters, digits, '-' and '.', start and end alphanumeric, at most 63 characters, e.g. %q.",
		name, strings.Join(probs, "; "), suggestName(name))}
}

// suggestName lower-cases and replaces what a DNS subdomain does not allow.
func suggestName(s string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(s) {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '.':
			b.WriteRune(c)
		default:
			b.WriteByte('-')
		}
	}
	out := strings.Trim(b.String(), "-.")
	if len(out) > validation.LabelValueMaxLength {
		out = strings.Trim(out[:validation.LabelValueMaxLength], "-.")
	}
	if out == "" {
		out = "default"
	}
	return out
}

// checkNodeClassRef: CRD rules 11-13 and the group pattern, the AWS
// provider's supported class, and the class name as the
// karpenter.k8s.aws/ec2nodeclass label value.
func checkNodeClassRef(p Pool) rules.Findings {
	ref := p.spec().NodeClassRef
	var fs rules.Findings
	type field struct{ attr, value string }
	for _, f := range []field{{"group", ref.Group}, {"kind", ref.Kind}, {"name", ref.Name}} {
		fp := pathNodeClass.Attr(f.attr)
		if p.Unknown.Is(fp) || f.value != "" {
			continue
		}
		fs = append(fs, rules.New(ruleNodeClassRef, fp,
			"nodeClassRef.%s is empty; the API server rejects the NodePool (\"%s may not be empty\"): a NodePool names its EC2NodeClass by group %s, kind %s and the class's name.", f.attr, f.attr, NodeClassGroup, NodeClassKind).
			WithFix(rules.Fix{Value: map[string]string{"group": strconv.Quote(NodeClassGroup), "kind": strconv.Quote(NodeClassKind), "name": `"<EC2NodeClass name>"`}[f.attr]}))
	}
	if np := pathNodeClass.Attr("name"); !p.Unknown.Is(np) && ref.Name != "" {
		var probs []string
		probs = append(probs, validation.IsDNS1123Subdomain(ref.Name)...)
		if len(ref.Name) > validation.LabelValueMaxLength {
			probs = append(probs, "Karpenter labels every node karpenter.k8s.aws/ec2nodeclass=<name>, and label values are at most 63 characters")
		}
		if len(probs) > 0 {
			fs = append(fs, rules.New(ruleNodeClassRef, np,
				"nodeClassRef.name %q cannot name an EC2NodeClass the pool can use: %s. No EC2NodeClass can have that name, or its NodeClaims are rejected; use the name of an existing EC2NodeClass.", ref.Name, strings.Join(probs, "; ")))
		}
	}
	gp, kp := pathNodeClass.Attr("group"), pathNodeClass.Attr("kind")
	if p.Unknown.Is(gp) || p.Unknown.Is(kp) || ref.Group == "" || ref.Kind == "" {
		return fs
	}
	if strings.Contains(ref.Group, "/") {
		// The CRD's pattern on nodeClassRef.group (karpenter.sh_nodepools.yaml,
		// pattern ^[^/]*$): the API server refuses the pool, so Karpenter
		// never sees it; that is the reason to give, not Karpenter ignoring it.
		return append(fs, rules.New(ruleNodeClassRef, gp,
			"nodeClassRef.group %q: the API server rejects the NodePool (`spec.template.spec.nodeClassRef.group: Invalid value: %q: spec.template.spec.nodeClassRef.group in body should match '^[^/]*$'`): a group names the API group only, with no resource or version.",
			ref.Group, ref.Group).WithFix(rules.Fix{Value: strconv.Quote(NodeClassGroup)}))
	}
	if ref.Group != NodeClassGroup || ref.Kind != NodeClassKind {
		at := gp
		if ref.Group == NodeClassGroup {
			at = kp
		}
		hint := ""
		if strings.EqualFold(ref.Group, NodeClassGroup) && strings.EqualFold(ref.Kind, NodeClassKind) {
			hint = " Group and kind are case-sensitive."
		}
		fs = append(fs, rules.New(ruleNodeClassUnsupported, at,
			"nodeClassRef is %s/%s; Karpenter's AWS provider manages only NodePools whose nodeClassRef is %s/%s and silently ignores this one: it is never validated and never launches a node.%s",
			ref.Group, ref.Kind, NodeClassGroup, NodeClassKind, hint).
			WithFix(rules.Fix{Field: gp, Value: strconv.Quote(NodeClassGroup), And: []rules.Fix{{Field: kp, Value: strconv.Quote(NodeClassKind)}}}))
	}
	return fs
}

// The rules the checks of this file emit.
var (
	ruleName = rules.Register(rules.Rule{
		ID: "nodepool-name-invalid", Severity: rules.Error, Category: Category,
		Title:     "NodePool name is not a DNS subdomain of at most 63 characters",
		Behaviour: "The API server validates the name of every custom resource as a DNS-1123 subdomain (\"a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.'\"). Karpenter also labels every NodeClaim and Node karpenter.sh/nodepool=<name>; a name longer than 63 characters is not a valid label value, so every NodeClaim is rejected (\"must be no more than 63 characters\") and the pool never launches a node.",
		Source:    "k8s.io/apiextensions-apiserver pkg/registry/customresource/validator.go (NameIsDNSSubdomain); kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/nodeclaimtemplate.go NewNodeClaimTemplate (NodePoolLabelKey)",
		Bad:       exampleFull("GPU_Pool", "karpenter_ec2nodeclass.default.node_class"),
		Good:      exampleFull("gpu-pool", "karpenter_ec2nodeclass.default.node_class"),
	})
	ruleNodeClassRef = rules.Register(rules.Rule{
		ID: "nodepool-node-class-ref-invalid", Severity: rules.Error, Category: Category,
		Title:     "node_class group, kind or name is empty or unusable",
		Behaviour: "The CRD requires nodeClassRef.group, kind and name and rejects empty strings (\"group may not be empty\", \"kind may not be empty\", \"name may not be empty\"; group must match ^[^/]*$). Karpenter labels every NodeClaim karpenter.k8s.aws/ec2nodeclass=<name>, so a name that is not a valid label value makes every NodeClaim invalid.",
		Source:    srcCRD + " nodeClassRef x-kubernetes-validations (\"group may not be empty\", \"kind may not be empty\", \"name may not be empty\"; since v1.1.0)",
		Bad:       exampleFull("default", `{ name = "" }`),
		Good:      exampleFull("default", "karpenter_ec2nodeclass.default.node_class"),
	})
	ruleNodeClassUnsupported = rules.Register(rules.Rule{
		ID: "nodepool-node-class-unsupported", Severity: rules.Error, Category: Category,
		Title:     "node_class is not a karpenter.k8s.aws EC2NodeClass",
		Behaviour: "Karpenter's AWS provider manages only NodePools whose nodeClassRef is group karpenter.k8s.aws, kind EC2NodeClass (nodepoolutils.IsManaged); any other reference is silently ignored: the pool is never validated and never launches a node. group and kind are also immutable (\"nodeClassRef.group is immutable\").",
		Source:    "kubernetes-sigs/karpenter pkg/utils/nodepool IsManaged; aws/karpenter-provider-aws cloudprovider GetSupportedNodeClasses; kubernetes-sigs/karpenter pkg/controllers/nodepool/validation/controller.go",
		Bad:       exampleFull("default", `{ group = "karpenter.azure.com", kind = "AKSNodeClass", name = "default" }`),
		Good:      exampleFull("default", "karpenter_ec2nodeclass.default.node_class"),
	})
)
