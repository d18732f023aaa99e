package rules

import (
	"fmt"
	"strings"
)

// Markdown renders the catalogue as the docs guide: one section per rule,
// grouped by category, with severity, behaviour, source and the failing and
// fixed examples. The output is a tfplugindocs template, so template
// delimiters in rule text are escaped.
func Markdown() string {
	var b strings.Builder
	b.WriteString(`---
page_title: "Rules - karpenter Provider"
subcategory: ""
description: |-
  Every check the provider makes: what Karpenter, EC2 or the kubelet does, the upstream source, a failing and a fixed example.
---

# Rules

Every diagnostic of this provider starts with a rule id, e.g. ` + "`arm64-gpu-no-image: the AMI family has no arm64 GPU image`" + `.
This page lists every rule. **Errors** fail ` + "`terraform validate`" + ` (when the values are literal) or ` + "`terraform plan`" + `
(when they need AWS or other resources); **warnings** are printed and the plan goes on. Rules gated on a Karpenter release
follow the provider's ` + "`karpenter_version`" + `. Sources name upstream code as ` + "`A:`" + ` (aws/karpenter-provider-aws v1.14.1),
` + "`C:`" + ` (kubernetes-sigs/karpenter) and ` + "`E:`" + ` (awslabs/amazon-eks-ami), or an issue/PR number of A.

`)
	all := All()
	cat := ""
	for _, r := range all {
		if r.Category != cat {
			cat = r.Category
			fmt.Fprintf(&b, "- **%s**:", cat)
			sep := " "
			for _, s := range all {
				if s.Category == cat {
					fmt.Fprintf(&b, "%s[`%s`](#%s)", sep, s.ID, s.ID)
					sep = ", "
				}
			}
			b.WriteString("\n")
		}
	}
	cat = ""
	for _, r := range all {
		if r.Category != cat {
			cat = r.Category
			fmt.Fprintf(&b, "\n## %s\n", cat)
		}
		fmt.Fprintf(&b, "\n### %s\n\n", r.ID)
		fmt.Fprintf(&b, "**%s** (%s).\n\n", r.Title, r.Severity)
		fmt.Fprintf(&b, "What happens: %s\n\n", r.Behaviour)
		fmt.Fprintf(&b, "Source: %s\n\n", r.Source)
		fmt.Fprintf(&b, "Fails:\n\n```terraform\n%s\n```\n\n", strings.TrimRight(r.Bad, "\n"))
		fmt.Fprintf(&b, "Passes:\n\n```terraform\n%s\n```\n", strings.TrimRight(r.Good, "\n"))
	}
	return escapeTemplate(b.String())
}

// SectionIDs returns the rule ids a rendered guide has sections for.
func SectionIDs(md string) []string {
	var ids []string
	for _, line := range strings.Split(md, "\n") {
		if id, ok := strings.CutPrefix(line, "### "); ok {
			ids = append(ids, strings.TrimSpace(id))
		}
	}
	return ids
}

func escapeTemplate(s string) string {
	s = strings.ReplaceAll(s, "{{", "{{`{{`}}")
	return s
}
