package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
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

// versionSpecific returns the findings check makes for the configured
// Karpenter release that it does not make for the default release.
// ValidateConfig never sees the provider configuration (Terraform validates
// before it configures providers), so literal checks run there with the
// default release; plan-time code adds only what the configured release
// changes, so nothing is reported twice.
func versionSpecific(kv versions.Karpenter, check func(versions.Karpenter) rules.Findings) rules.Findings {
	if kv == versions.DefaultKarpenter {
		return nil
	}
	seen := map[string]bool{}
	for _, f := range check(versions.DefaultKarpenter) {
		seen[f.String()] = true
	}
	var out rules.Findings
	for _, f := range check(kv) {
		if !seen[f.String()] {
			out = append(out, f)
		}
	}
	return out
}
