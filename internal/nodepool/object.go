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
