package provider

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// tfPath converts a domain path (Terraform attribute names) to a framework
// path, prefixed by base.
func tfPath(base path.Path, p rules.Path) path.Path {
	out := base
	for i, s := range p.Steps() {
		switch s.Kind {
		case rules.AttrStep:
			if i == 0 && len(base.Steps()) == 0 {
				out = path.Root(s.Name)
			} else {
				out = out.AtName(s.Name)
			}
		case rules.IndexStep:
			out = out.AtListIndex(s.Index)
		case rules.KeyStep:
			out = out.AtMapKey(s.Name)
		}
	}
	return out
}

// appendFindings adds findings as attribute-pathed diagnostics under base
// (an empty base means the findings' paths are root paths).
func appendFindings(diags *diag.Diagnostics, base path.Path, fs rules.Findings) {
	for _, f := range fs {
		f.Detail += hclFix(f)
		p := tfPath(base, f.Path)
		empty := len(p.Steps()) == 0
		switch {
		case f.Severity == rules.Warning && empty:
			diags.AddWarning(f.Summary(), f.Detail)
		case f.Severity == rules.Warning:
			diags.AddAttributeWarning(p, f.Summary(), f.Detail)
		case empty:
			diags.AddError(f.Summary(), f.Detail)
		default:
			diags.AddAttributeError(p, f.Summary(), f.Detail)
		}
	}
}

// aboutObject names object (rules.Object, e.g. `NodePool "general"`) in the
// summary of every warning of diags. Terraform prints one warning per
// summary and folds the rest into "(and N more similar warnings
// elsewhere)", which would hide that a second resource (another pool, the
// other environment's copy of a module) warns too. Errors end the plan and
// are never folded. An empty object (a name not known yet) changes nothing.
func aboutObject(diags diag.Diagnostics, object string) diag.Diagnostics {
	if object == "" {
		return diags
	}
	for i, d := range diags {
		if d.Severity() != diag.SeverityWarning {
			continue
		}
		summary := rules.SummaryAbout(d.Summary(), object)
		if wp, ok := d.(diag.DiagnosticWithPath); ok {
			diags[i] = diag.NewAttributeWarningDiagnostic(wp.Path(), summary, d.Detail())
		} else {
			diags[i] = diag.NewWarningDiagnostic(summary, d.Detail())
		}
	}
	return diags
}

// objectName is rules.Object for a resource whose name is known, else "".
func objectName(kind string, name types.String) string {
	if name.IsNull() || name.IsUnknown() || name.ValueString() == "" {
		return ""
	}
	return rules.Object(kind, name.ValueString())
}

// hclFix is a finding's fix in the resource's own terms: each argument to
// write (in the block or map its path names) or to remove, the
// alternatives, and, for a value that may be meant, the resource's
// acknowledged_warnings.
func hclFix(f rules.Finding) string {
	if f.Fix == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range f.FixChanges() {
		if s := hclChange(c); s != "" {
			b.WriteString(" " + s + ".")
		}
	}
	for _, c := range f.Fix.Or {
		if s := hclChange(c); s != "" && b.Len() > 0 {
			b.WriteString(" Or " + strings.ToLower(s[:1]) + s[1:] + ".")
		} else if s != "" { // the change itself has no field here
			b.WriteString(" " + s + ".")
		}
	}
	switch {
	case f.Fix.Acknowledge && f.Severity == rules.Error:
		fmt.Fprintf(&b, " If the value as written is meant, list %q in this resource's acknowledged_warnings.", f.Rule.ID)
	case f.Fix.Acknowledge:
		fmt.Fprintf(&b, " If this is meant, list %q in acknowledged_warnings: the resource's, or the provider's for every resource.", f.Rule.ID)
	}
	return b.String()
}

// hclChange is one change of a fix as a sentence without its period: the
// argument to write or remove; "" when it names no field (the value is the
// user's).
func hclChange(c rules.Fix) string {
	parent, last, ok := c.Field.Parent()
	value := c.Value
	switch {
	case c.Setting == rules.KarpenterVersionSetting && value == "":
		return "Set karpenter_version in the provider block to the release the cluster runs"
	case c.Setting == rules.KarpenterVersionSetting:
		return fmt.Sprintf("Set karpenter_version = %s in the provider block once the cluster runs it", value)
	case !ok:
	case c.Remove && last.Kind == rules.IndexStep:
		return "Remove " + c.Field.String()
	case c.Remove:
		name := last.Name
		if last.Kind == rules.KeyStep {
			name = hclKey(name)
		}
		if parent.IsEmpty() {
			return "Remove " + name
		}
		return fmt.Sprintf("Remove %s from %s", name, parent)
	case last.Kind == rules.KeyStep:
		if value == "" {
			value = "..."
		}
		return fmt.Sprintf("Write %s = { %s = %s }", parent, hclKey(last.Name), value)
	case last.Kind == rules.AttrStep && value != "":
		if parent.IsEmpty() {
			return fmt.Sprintf("Write %s = %s", last.Name, value)
		}
		return fmt.Sprintf("Write %s = %s in %s", last.Name, value, parent)
	}
	return ""
}

var hclIdentRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// hclKey is a map key as an HCL object key: quoted unless an identifier.
func hclKey(k string) string {
	if hclIdentRE.MatchString(k) {
		return k
	}
	return strconv.Quote(k)
}
