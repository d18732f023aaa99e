package provider

import (
	"fmt"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// RulesGuide renders the catalogue as the provider's rules guide: one
// section per rule, grouped by category, with severity, behaviour, source
// and the failing and fixed HCL examples. It is the provider's (it speaks
// of resources, attributes and acknowledged_warnings), so it lives here, not
// in package rules. The output is a tfplugindocs template, so template
// delimiters in rule text are escaped.
func RulesGuide() string {
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
(when they need AWS or other resources); **warnings** are printed and the plan goes on. A resource's warning also names
its object, e.g. ` + "`nodes-will-drift: NodePool \"general\": this update replaces running nodes`" + `: Terraform prints one
warning per summary and folds the rest into "(and one more similar warning elsewhere)", so each resource's is printed. A few
errors are about a value one typo away from a well-known one: if the value is meant, list the rule in the resource's
` + "`acknowledged_warnings`" + ` and it is reported as a warning instead. Rules gated on a Karpenter release
follow the provider's ` + "`karpenter_version`" + `. Sources name upstream code as ` + "`A:`" + ` (aws/karpenter-provider-aws v1.14.1),
` + "`C:`" + ` (kubernetes-sigs/karpenter) and ` + "`E:`" + ` (awslabs/amazon-eks-ami), or an issue/PR number of A.

`)
	all := rules.All()
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
			if intro := categoryIntros[cat]; intro != "" {
				fmt.Fprintf(&b, "\n%s\n", intro)
			}
		}
		fmt.Fprintf(&b, "\n### %s\n\n", r.ID)
		severity := r.Severity.String()
		if r.Acknowledgeable {
			severity += "; listed in the resource's `acknowledged_warnings` it is reported as a warning"
		}
		fmt.Fprintf(&b, "**%s** (%s).\n\n", r.Title, severity)
		fmt.Fprintf(&b, "What happens: %s\n\n", r.Behaviour)
		fmt.Fprintf(&b, "Source: %s\n\n", r.Source)
		fmt.Fprintf(&b, "Fails:\n\n```terraform\n%s\n```\n\n", strings.TrimRight(r.Bad, "\n"))
		fmt.Fprintf(&b, "Passes:\n\n```terraform\n%s\n```\n", strings.TrimRight(r.Good, "\n"))
	}
	return escapeTemplate(b.String())
}

// categoryIntros say, under each category heading of the guide, what the
// rules are about and when they run.
var categoryIntros = map[string]string{
	"AMI selection": "How `ami_selector_terms` and `ami_family` resolve to images, exactly as Karpenter resolves them " +
		"(`karpenter_ec2nodeclass`, `karpenter_amis`, `karpenter_ami`, `karpenter_nodepool`'s image assignments). Literal mistakes " +
		"fail `terraform validate`; what needs SSM parameters or `ec2:DescribeImages` fails `terraform plan`.",
	"CRD": "At plan, every rendered manifest is validated against the CRDs of Karpenter 1.14 with the API server's own code. " +
		"These rules report what `kubectl apply` would refuse that no more specific rule caught first.",
	"EC2NodeClass": "The fields of `karpenter_ec2nodeclass` other than AMI selection and userData: name, role or instance " +
		"profile, selector terms, tags, kubelet settings, block devices, metadata options, and `@latest` drift.",
	"Karpenter v1 migration": "Fields and values of the v1beta1 API (and of the v1alpha5 Provisioner and AWSNodeTemplate " +
		"before it) that Karpenter v1 moved, renamed or removed. `karpenter_nodepool` accepts the old attributes only to fail " +
		"`terraform validate` at their line with where v1 has them; `validate_manifest` names them in YAML, also in documents " +
		"still written as `karpenter.sh/v1beta1`.",
	"NodePool": "The CRD and runtime rules of `karpenter_nodepool` on its own values: name, labels, taints, durations, " +
		"disruption budgets, limits, weight and static pools. They fail `terraform validate` when those values are literal.",
	"NodePool and EC2NodeClass": "At plan, a `karpenter_nodepool` is checked against the class it gets through `node_class`: " +
		"the instance families it admits against the images the class can boot, and its taints against what a Custom userData " +
		"registers. With `node_class = { name = \"...\" }` these checks are skipped.",
	"Nodes": "`data \"karpenter_node\"`: a node of one NodePool on one EC2NodeClass for an instance type, at plan. It fails when " +
		"Karpenter would never launch that node (the pool, the class, the capacity type or the zone excludes it) or when its " +
		"capacity cannot be computed.",
	"NodePool requirements": "`requirements` of `karpenter_nodepool` and `karpenter_instance_types`: keys, operators, " +
		"values and `min_values` at validate; at plan, which instance types they admit (`ec2:DescribeInstanceTypes` in " +
		"the provider's region, or the embedded family facts without one).",
	"Scheduling": "`data \"karpenter_scheduling\"`: Karpenter v1.14's provisioning decision for the workloads on the NodePools, " +
		"at plan, made by Karpenter's own scheduler. It fails when Karpenter would leave a workload's pods Pending (a warning for " +
		"workloads in `allow_unschedulable`) or when a document of its inputs cannot be read; a NodePool Karpenter would leave " +
		"out is a warning.",
	"userData": "`user_data` of `karpenter_ec2nodeclass` (and the `lint_user_data` function), parsed for its family: shell " +
		"for AL2 and Custom, `NodeConfig` for AL2023, TOML for Bottlerocket, MIME multipart for all of them; and the Custom " +
		"userData that `bootstrap` renders. Literal userData fails `terraform validate`.",
}

// sectionIDs returns the rule ids a rendered guide has sections for.
func sectionIDs(md string) []string {
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
