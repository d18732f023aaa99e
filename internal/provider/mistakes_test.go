package provider

import (
	"strconv"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/migration"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// expectAt fails unless a diagnostic of rule with severity sits at line
// and its detail holds every part.
func expectAt(t *testing.T, diags []planDiagnostic, severity, rule string, line int, parts ...string) {
	t.Helper()
	if !hasDiagnostic(diags, severity, rule, line, parts...) {
		t.Errorf("no %s %s at line %d containing %q among:\n%s", severity, rule, line, parts, formatDiagsAt(diags))
	}
}

func formatDiagsAt(diags []planDiagnostic) string {
	var b strings.Builder
	for _, d := range diags {
		line := 0
		if d.Range != nil {
			line = d.Range.Start.Line
		}
		b.WriteString(d.Severity + " line " + strconv.Itoa(line) + " " + d.Summary + ": " + d.Detail + "\n")
	}
	return b.String()
}

// v1beta1 and v1alpha5 habits fail terraform validate at their own line
// with the rule, the v1 answer and what to write, not with Terraform's bare
// "Unsupported argument"; each tombstone is tried on its own, so the
// others cannot mask it.
func TestAccTombstonesFailAtTheirLine(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	withoutAWS(t)
	for _, c := range []struct {
		name, body, at, rule string
		parts                []string
	}{
		{"expire_after in disruption", "  disruption {\n    consolidate_after = \"5m\"\n    expire_after      = \"720h\"\n  }\n", "expire_after      =",
			"v1beta1-expire-after-in-disruption", []string{`disruption.expire_after = "720h"`, `Write expire_after = "720h" next to name`}},
		{"kubelet on the pool", "  kubelet {\n    max_pods = 110\n  }\n", "max_pods",
			"v1beta1-kubelet-on-nodepool", []string{"kubelet { max_pods }", "karpenter_ec2nodeclass"}},
		{"ttl_seconds_until_expired", "  ttl_seconds_until_expired = 2592000\n", "ttl_seconds_until_expired",
			"v1alpha5-provisioner-field", []string{"ttl_seconds_until_expired = 2592000", `expire_after = "720h"`, "v0.32"}},
		{"ttl_seconds_after_empty", "  ttl_seconds_after_empty = 30\n", "ttl_seconds_after_empty",
			"v1alpha5-provisioner-field", []string{`consolidation_policy = "WhenEmpty", consolidate_after = "30s"`}},
		{"ttl from a variable", "  ttl_seconds_after_empty = var.ttl\n", "ttl_seconds_after_empty",
			"v1alpha5-provisioner-field", []string{"known at apply"}},
		{"WhenUnderutilized", "  disruption {\n    consolidation_policy = \"WhenUnderutilized\"\n    consolidate_after    = \"0s\"\n  }\n", "consolidation_policy",
			"v1beta1-when-underutilized", []string{`"WhenEmptyOrUnderutilized"`}},
		{"do-not-evict", "  annotations = { \"karpenter.sh/do-not-evict\" = \"true\" }\n", "annotations",
			"v1beta1-annotation-removed", []string{`"karpenter.sh/do-not-disrupt" = "true"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := "provider \"karpenter\" {}\nvariable \"ttl\" {\n  type    = number\n  default = null\n}\n" +
				"resource \"karpenter_nodepool\" \"x\" {\n  name       = \"x\"\n  node_class = { name = \"shared\" }\n" + c.body + "}\n"
			diags := terraformDiagnostics(t, cfg, "validate", "-json")
			expectAt(t, diags, "error", c.rule, lineOf(t, cfg, c.at), c.parts...)
			for _, d := range diags {
				if strings.Contains(d.Summary, "Unsupported") {
					t.Errorf("Terraform's own error instead of the v1 answer: %s: %s", d.Summary, d.Detail)
				}
			}
		})
	}
}

// The HCL examples of every migration rule: terraform validate fails the
// failing one with the rule and passes the passing one. (The manifest
// examples are validate_manifest's, checked in internal/manifestcheck.)
func TestAccMigrationRuleExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	withoutAWS(t)
	n := 0
	for _, r := range rules.All() {
		if r.Category != migration.Category || strings.Contains(r.Bad, "validate_manifest") {
			continue
		}
		n++
		t.Run(r.ID, func(t *testing.T) {
			bad := terraformDiagnostics(t, "provider \"karpenter\" {}\n"+r.Bad, "validate", "-json")
			expectDiagnostic(t, bad, "error", r.ID)
			for _, d := range terraformDiagnostics(t, "provider \"karpenter\" {}\n"+r.Good, "validate", "-json") {
				if d.Severity == "error" {
					t.Errorf("Good example: %s: %s", d.Summary, d.Detail)
				}
			}
		})
	}
	if n < 5 {
		t.Fatalf("only %d HCL examples", n)
	}
}

// Near misses that silently change what Karpenter does fail validate with
// the value meant; listed in the pool's acknowledged_warnings they plan with
// a warning; the provider's list, read after validation, refuses them.
func TestAccNearMissesAreErrorsUntilAcknowledged(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	pool := func(extra string) string {
		return `
resource "karpenter_nodepool" "x" {
  name       = "x"
  node_class = { name = "shared" }
  limits     = { cpu = "1000", memroy = "4000Gi" }
  requirements {
    key      = "karpenter.sh/capacity-type"
    operator = "In"
    values   = ["spot", "ondemand"]
  }
` + extra + `}
`
	}
	t.Run("validate", func(t *testing.T) {
		withoutAWS(t)
		cfg := "provider \"karpenter\" {}\n" + pool("")
		diags := terraformDiagnostics(t, cfg, "validate", "-json")
		expectAt(t, diags, "error", "nodepool-limit-misspelled", lineOf(t, cfg, "limits"), `limits["memroy"]`, `Did you mean "memory"?`, "no memory cap")
		expectAt(t, diags, "error", "requirement-value-misspelled", lineOf(t, cfg, `values   = ["spot", "ondemand"]`),
			`"ondemand"`, `uses only ["spot"]`, `Did you mean "on-demand"?`)
		// The fix in the resource's terms, never the linter's.
		expectDiagnostic(t, diags, "error", "nodepool-limit-misspelled", `Write limits = { memory = ... }.`,
			`If the value as written is meant, list "nodepool-limit-misspelled" in this resource's acknowledged_warnings.`)
		expectDiagnostic(t, diags, "error", "requirement-value-misspelled", `Write values = ["spot", "on-demand"] in requirements[0].`, "acknowledged_warnings")
		for _, d := range diags {
			for _, yamlOnly := range []string{"lint.karpenter-tf.io/ignore", "Write `", "spec.template", "under spec"} {
				if strings.Contains(d.Detail, yamlOnly) {
					t.Errorf("%s says the linter's %q: %s", d.Summary, yamlOnly, d.Detail)
				}
			}
		}
	})
	t.Run("acknowledged", func(t *testing.T) {
		prov := emulatorProvider(t, "")
		cfg := prov + pool(`  acknowledged_warnings = ["nodepool-limit-misspelled", "requirement-value-misspelled"]
`)
		diags := planDiagnostics(t, cfg)
		expectDiagnostic(t, diags, "warning", "nodepool-limit-misspelled", `Did you mean "memory"?`, "Acknowledged")
		expectDiagnostic(t, diags, "warning", "requirement-value-misspelled", `Did you mean "on-demand"?`, "Acknowledged")
		for _, d := range diags {
			if d.Severity == "error" {
				t.Errorf("acknowledged near misses still fail: %s: %s", d.Summary, d.Detail)
			}
		}
	})
	t.Run("not on the provider", func(t *testing.T) {
		withoutAWS(t)
		cfg := "provider \"karpenter\" {\n  acknowledged_warnings = [\"nodepool-limit-misspelled\"]\n}\n" + pool("")
		diags := terraformDiagnostics(t, cfg, "validate", "-json")
		expectDiagnostic(t, diags, "error", "acknowledged-warning-invalid", "nodepool-limit-misspelled", "acknowledged_warnings of the karpenter_nodepool")
	})
}

// Independent checks report together: two mistakes of different rule
// families in one class and two in one pool fail one plan with all four.
// Each pair used to be one error at a time: the first error stopped the
// resource's plan before the checks that need AWS (the class's images, the
// instance types and the class's images for the pool). The first mistake
// of each is a field or value the configured Karpenter release does not
// have, which only the plan judges (terraform validate does not see the
// provider's karpenter_version). The pool sits on another, valid class:
// Terraform plans nothing that depends on a resource whose plan failed,
// so a pool on the failing class is checked once that class plans.
func TestAccIndependentChecksReportTogether(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	prov := emulatorProvider(t, `cluster { name = "demo" }
  karpenter_version = "1.12"`)
	cfg := prov + classHCL("custom", `  ami_family = "AL2023"
  # A custom image whose root snapshot (30 GiB) is larger than Karpenter's default root volume (20 GiB).
  ami_selector_terms { name = "team-eks-node-al2023-x86_64-*" }
  connection_tracking { udp_timeout = 30 }`) +
		classHCL("amd64", customAL2023Class) +
		poolHCL("arm", "karpenter_ec2nodeclass.amd64.node_class", `  disruption {
    consolidation_policy = "Balanced"
    consolidate_after    = "1m"
  }
`+reqHCL("kubernetes.io/arch", "In", "arm64"))
	diags := planDiagnostics(t, cfg)
	expectDiagnostic(t, diags, "error", "connection-tracking-invalid", "from Karpenter 1.13.0")
	expectDiagnostic(t, diags, "error", "block-device-smaller-than-snapshot", "smaller than snapshot")
	expectDiagnostic(t, diags, "error", "nodepool-consolidation-policy-invalid", "Balanced")
	expectDiagnostic(t, diags, "error", "nodepool-architecture-mismatch")
}

// A value known only at plan (from a data source) that fails a rule of
// literal values is reported with the checks that need AWS: Terraform
// validates the resource again in the plan walk, where the provider leaves
// those rules to the plan instead of stopping Terraform before it.
func TestAccPlanTimeValuesReportWithTheCrossChecks(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	prov := emulatorProvider(t, `cluster { name = "demo" }`)
	cfg := prov + `
data "karpenter_instance_types" "m5" {
  requirements {
    key      = "karpenter.k8s.aws/instance-family"
    operator = "In"
    values   = ["m5"]
  }
}
` + classHCL("amd64", customAL2023Class) +
		poolHCL("arm", "karpenter_ec2nodeclass.amd64.node_class", `  weight = 100 * length(data.karpenter_instance_types.m5.instance_types)
`+reqHCL("kubernetes.io/arch", "In", "arm64"))
	diags := planDiagnostics(t, cfg)
	expectDiagnostic(t, diags, "error", "nodepool-weight-out-of-range", "outside 1..100")
	expectDiagnostic(t, diags, "error", "nodepool-architecture-mismatch")
}
