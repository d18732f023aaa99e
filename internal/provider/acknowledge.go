package provider

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/suggest"
)

const descAcknowledged = "Warning rule ids to silence, e.g. `[\"alias-latest-drift\"]` when `@latest` is deliberate. " +
	"Only warnings can be acknowledged; an error rule id or an id the provider does not know is an error " +
	"(`acknowledged-warning-invalid`). The rules guide lists every id."

// descAcknowledgedResource adds what only a resource's list does: the
// near-miss errors (a value one typo from a well-known one) are about one
// value, so they are acknowledged where that value is written.
const descAcknowledgedResource = descAcknowledged + " Adds to the provider's `acknowledged_warnings` for this resource only. " +
	"Here, and only here, the errors about a value one typo away from a well-known one (e.g. `nodepool-limit-misspelled`, " +
	"`requirement-value-misspelled`) may be listed too, when the value is meant: they are then reported as warnings."

// validateAcknowledged checks that every listed id is a known warning
// rule, or, in a resource's own list (onResource), an acknowledgeable
// error. The provider's list cannot take those: the errors are reported by
// ValidateConfig, which Terraform calls before the provider is configured.
func validateAcknowledged(p path.Path, l types.List, onResource bool) diag.Diagnostics {
	var diags diag.Diagnostics
	if l.IsNull() || l.IsUnknown() {
		return diags
	}
	var warnings []string
	for _, r := range rules.All() {
		if r.Severity == rules.Warning || (onResource && r.Acknowledgeable) {
			warnings = append(warnings, r.ID)
		}
	}
	for i, e := range l.Elements() {
		s, ok := e.(types.String)
		if !ok || s.IsNull() || s.IsUnknown() {
			continue
		}
		id := s.ValueString()
		r := rules.Lookup(id)
		switch {
		case r == nil:
			hint := ""
			if near := suggest.Closest(id, warnings); near != "" {
				hint = fmt.Sprintf(" Did you mean %q?", near)
			}
			addRuleDiag(&diags, p.AtListIndex(i), ruleAckInvalid,
				fmt.Sprintf("%q is not a rule id of this provider, so it would silence nothing.%s The warning ids are listed in the rules guide (docs/guides/rules.md).", id, hint))
		case r.Acknowledgeable && !onResource:
			addRuleDiag(&diags, p.AtListIndex(i), ruleAckInvalid,
				fmt.Sprintf("%q (%s) is about one value written in one resource, so it is acknowledged there: list it in the acknowledged_warnings of the karpenter_nodepool or karpenter_ec2nodeclass that writes the value, and it is reported as a warning. The provider's list would accept every such typo in every resource.", id, r.Title))
		case r.Severity != rules.Warning && !r.Acknowledgeable:
			addRuleDiag(&diags, p.AtListIndex(i), ruleAckInvalid,
				fmt.Sprintf("%q is an error rule (%s): errors are what Karpenter, EC2 or the kubelet would reject, so they cannot be acknowledged. Fix the configuration instead; the rules guide shows the passing form.", id, r.Title))
		}
	}
	return diags
}

// acknowledgeNearMisses reports the acknowledgeable errors listed in set
// as warnings that say so: the value is legal, and the resource says it is
// meant. The warning stays in the plan (dropAcknowledged keeps it), so the
// near miss remains visible to a reviewer.
func acknowledgeNearMisses(fs rules.Findings, set map[string]bool) rules.Findings {
	if len(set) == 0 {
		return fs
	}
	out := make(rules.Findings, len(fs))
	for i, f := range fs {
		if f.Rule.Acknowledgeable && f.Severity == rules.Error && set[f.Rule.ID] {
			f = f.AsWarning()
			f.Detail += " (Acknowledged in acknowledged_warnings: reported as a warning.)"
			if f.Fix != nil { // already acknowledged: say it once
				fix := *f.Fix
				fix.Acknowledge = false
				f.Fix = &fix
			}
		}
		out[i] = f
	}
	return out
}

// acknowledgedSet returns the known ids of l (invalid ones are reported by
// validateAcknowledged).
func acknowledgedSet(l types.List) map[string]bool {
	if l.IsNull() || l.IsUnknown() {
		return nil
	}
	out := map[string]bool{}
	for _, e := range l.Elements() {
		if s, ok := e.(types.String); ok && !s.IsNull() && !s.IsUnknown() {
			out[s.ValueString()] = true
		}
	}
	return out
}

// dropAcknowledged removes the warnings whose rule id (the summary's
// prefix) is in one of the sets; errors always stay. It filters the final
// diagnostics, so every warning path (findings, CRD, preview) is covered.
func dropAcknowledged(diags diag.Diagnostics, sets ...map[string]bool) diag.Diagnostics {
	if len(diags) == 0 || !slices.ContainsFunc(sets, func(s map[string]bool) bool { return len(s) > 0 }) {
		return diags
	}
	out := make(diag.Diagnostics, 0, len(diags))
	for _, d := range diags {
		if d.Severity() == diag.SeverityWarning {
			id, _, _ := strings.Cut(d.Summary(), ":")
			if r := rules.Lookup(id); r != nil && r.Acknowledgeable {
				// An acknowledged near miss stays a warning (acknowledgeNearMisses).
				out = append(out, d)
				continue
			}
			if slices.ContainsFunc(sets, func(s map[string]bool) bool { return s[id] }) {
				continue
			}
		}
		out = append(out, d)
	}
	return out
}

// errorsOnly keeps the errors. ValidateConfig reports only errors: Terraform
// calls it in both the validate and the plan walk of `terraform plan`, so a
// warning made there would print twice; warnings are reported once, by the
// plan (ModifyPlan, or a data source's Read).
func errorsOnly(fs rules.Findings) rules.Findings {
	out := make(rules.Findings, 0, len(fs))
	for _, f := range fs {
		if f.Severity == rules.Error {
			out = append(out, f)
		}
	}
	return out
}

// metadataBlock is the object's own labels and annotations (not the nodes').
func metadataBlock(kind string) rschema.SingleNestedBlock {
	return rschema.SingleNestedBlock{
		Description: "Labels and annotations of the " + kind + " object itself (metadata.labels, metadata.annotations), e.g. " +
			"`kubernetes.io/description`, or the `meta.helm.sh/*` and `argocd.argoproj.io/*` annotations that Helm and Argo CD adoption need. " +
			"Validated as the API server does; keys in Karpenter's domains (karpenter.sh, karpenter.k8s.aws) are refused.",
		Attributes: map[string]rschema.Attribute{
			"labels":      rschema.MapAttribute{ElementType: types.StringType, Optional: true, Description: "Labels of the " + kind + " object."},
			"annotations": rschema.MapAttribute{ElementType: types.StringType, Optional: true, Description: "Annotations of the " + kind + " object."},
		},
	}
}

// acknowledgedWarningsAttribute is the per-resource list; it adds to the
// provider's.
func acknowledgedWarningsAttribute() rschema.ListAttribute {
	return rschema.ListAttribute{
		ElementType: types.StringType, Optional: true,
		Description: descAcknowledgedResource,
	}
}

// The rules the checks of this file emit.
var (
	ruleAckInvalid = rules.Register(rules.Rule{
		ID: "acknowledged-warning-invalid", Severity: rules.Error, Category: categoryProvider,
		Title:     "acknowledged_warnings names a rule that is not a warning",
		Behaviour: "acknowledged_warnings silences named warning rules (a deliberate choice, such as `@latest` on purpose). An unknown id would silence nothing, and an error rule cannot be acknowledged: errors are what Karpenter, EC2 or the kubelet would reject.",
		Source:    "docs/guides/rules.md (this provider's rule catalogue)",
		Bad:       "provider \"karpenter\" {\n  acknowledged_warnings = [\"alias-latest-drfit\", \"nodepool-taint-invalid\"]\n}\n",
		Good:      "provider \"karpenter\" {\n  acknowledged_warnings = [\"alias-latest-drift\"]\n}\n",
	})
)
