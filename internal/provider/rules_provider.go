package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// The adapter's own rules: provider configuration, AWS access, and the
// Terraform side of the resources. Every diagnostic the provider emits
// carries a rule id (the summary "<id>: <title>"), these included.
const categoryProvider = "Provider, AWS access and Terraform"

// addRuleError reports rule r at p (an empty path means the whole object).
func addRuleDiag(diags *diag.Diagnostics, p path.Path, r *rules.Rule, detail string) {
	appendFindings(diags, p, rules.Findings{{Rule: r, Severity: r.Severity, Detail: detail}})
}
