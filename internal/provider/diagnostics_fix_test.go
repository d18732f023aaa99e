package provider

import (
	"errors"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// A finding's fix in the resource's terms: the argument, the block or map
// it goes in, and which acknowledged_warnings keeps the value; never the
// linter's field paths or annotation.
func TestFindingFixInHCL(t *testing.T) {
	r := &rules.Rule{ID: "x-misspelled", Severity: rules.Error, Acknowledgeable: true, Title: "t"}
	w := &rules.Rule{ID: "x-warning", Severity: rules.Warning, Title: "t"}
	for _, c := range []struct {
		f    rules.Finding
		want string
	}{
		{rules.Finding{Rule: r, Severity: rules.Error, Path: rules.Root("limits").Key("memroy"), Detail: "d.",
			Fix: &rules.Fix{Field: rules.Root("limits").Key("memory"), Acknowledge: true}},
			`d. Write limits = { memory = ... }. If the value as written is meant, list "x-misspelled" in this resource's acknowledged_warnings.`},
		{rules.Finding{Rule: r, Severity: rules.Error, Path: rules.Root("limits").Key("gpu"), Detail: "d.",
			Fix: &rules.Fix{Field: rules.Root("limits").Key("nvidia.com/gpu"), Value: `"8"`}},
			`d. Write limits = { "nvidia.com/gpu" = "8" }.`},
		{rules.Finding{Rule: r, Severity: rules.Error, Path: rules.Root("requirements").Index(0).Attr("values"), Detail: "d.",
			Fix: &rules.Fix{Value: `["spot", "on-demand"]`}},
			`d. Write values = ["spot", "on-demand"] in requirements[0].`},
		{rules.Finding{Rule: w, Severity: rules.Warning, Detail: "d.", Fix: &rules.Fix{Acknowledge: true}},
			`d. If this is meant, list "x-warning" in acknowledged_warnings: the resource's, or the provider's for every resource.`},
		{rules.Finding{Rule: w, Severity: rules.Warning, Detail: "d."}, "d."},
		// A value moved: written at its new field, removed at the old.
		{rules.Finding{Rule: w, Severity: rules.Warning, Path: rules.Root("annotations").Key("karpenter.sh/do-not-evict"), Detail: "d.",
			Fix: &rules.Fix{Field: rules.Root("annotations").Key("karpenter.sh/do-not-disrupt"), Value: `"true"`,
				And: []rules.Fix{{Field: rules.Root("annotations").Key("karpenter.sh/do-not-evict"), Remove: true}}}},
			`d. Write annotations = { "karpenter.sh/do-not-disrupt" = "true" }. Remove "karpenter.sh/do-not-evict" from annotations.`},
		// A block to add, field by field, and an alternative.
		{rules.Finding{Rule: r, Severity: rules.Error, Path: rules.Root("connection_tracking"), Detail: "d.",
			Fix: &rules.Fix{Field: rules.Root("connection_tracking").Attr("tcp_established_timeout"), Value: "432000",
				Or: []rules.Fix{{Field: rules.Root("connection_tracking"), Remove: true}}}},
			`d. Write tcp_established_timeout = 432000 in connection_tracking. Or remove connection_tracking.`},
		// A removal at the finding's own path, at the root.
		{rules.Finding{Rule: r, Severity: rules.Error, Path: rules.Root("weight"), Detail: "d.", Fix: &rules.Fix{Remove: true}},
			`d. Remove weight.`},
		// A setting of the provider, not of the resource: its attribute,
		// with the release meant or without one.
		{rules.Finding{Rule: r, Severity: rules.Error, Path: rules.Root("replicas"), Detail: "d."}.WithFix(rules.KarpenterVersion(`"1.8"`)),
			`d. Set karpenter_version = "1.8" in the provider block once the cluster runs it.`},
		{rules.Finding{Rule: r, Severity: rules.Error, Path: rules.Root("replicas"), Detail: "d.",
			Fix: &rules.Fix{Remove: true, Or: []rules.Fix{rules.KarpenterVersion("")}}},
			`d. Remove replicas. Or set karpenter_version in the provider block to the release the cluster runs.`},
	} {
		var diags diag.Diagnostics
		appendFindings(&diags, path.Empty(), rules.Findings{c.f})
		if got := diags[0].Detail(); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
}

// A denied readiness read: a warning that may be acknowledged, an error
// under strict_readiness that may not.
func TestReadDeniedFixFollowsStrictReadiness(t *testing.T) {
	for _, strict := range []bool{false, true} {
		d := &ProviderData{StrictReadiness: strict}
		var diags diag.Diagnostics
		appendFindings(&diags, path.Empty(), rules.Findings{d.readDenied("iam:GetRole", errors.New("AccessDenied")),
			d.priceReadDenied("pricing:GetProducts", errors.New("AccessDenied"))})
		for _, dg := range diags {
			detail := dg.Detail()
			if strings.Contains(detail, "acknowledged_warnings") == strict || !strings.Contains(detail, "strict_readiness = true") ||
				(dg.Severity() == diag.SeverityError) != strict {
				t.Errorf("strict=%v: %s: %s", strict, dg.Summary(), detail)
			}
		}
	}
}
