package provider

import (
	"strings"
	"testing"
)

// mainTFHeader is what terraformDiagnostics writes above the config.
const mainTFHeader = "terraform {\n  required_providers {\n    karpenter = { source = \"karpenter-tf/karpenter\" }\n  }\n}\n"

// lineOf is the 1-based line of main.tf holding marker (unique in config).
func lineOf(t *testing.T, config, marker string) int {
	t.Helper()
	src := mainTFHeader + config
	if strings.Count(src, marker) != 1 {
		t.Fatalf("marker %q must occur once", marker)
	}
	return strings.Count(src[:strings.Index(src, marker)], "\n") + 1
}

func onlyRule(diags []planDiagnostic, severity, rule string) []planDiagnostic {
	var out []planDiagnostic
	for _, d := range diags {
		if d.Severity == severity && strings.HasPrefix(d.Summary, rule+":") {
			out = append(out, d)
		}
	}
	return out
}

// Errors point at the innermost attribute that holds the bad value (the
// element's own line), and one mistake gives one diagnostic.
func TestDiagnosticsPointAtTheElement(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	config := `
resource "karpenter_nodepool" "x" {
  name       = "x"
  node_class = { name = "managed-elsewhere" }
  requirements {
    key      = "kubernetes.io/arch"
    operator = "In"
    values   = ["amd64"]
  }
  requirements {
    key      = "karpenter.k8s.aws/instance-family"
    operator = "in" # operator marker
    values   = ["m5"]
  }
  taints {
    key    = "example.com/a"
    effect = "NoSchedule"
  }
  taints {
    key    = "example.com/b"
    effect = "NoScheduled" # effect marker
  }
  disruption {
    consolidate_after = "1m"
    budgets {
      nodes = "10%"
    }
    budgets {
      nodes = "ten percent" # budget marker
    }
  }
}
`
	diags := terraformDiagnostics(t, config, "validate", "-json")
	for _, c := range []struct{ rule, marker string }{
		{"requirement-operator-unknown", "# operator marker"},
		{"nodepool-taint-invalid", "# effect marker"},
		{"nodepool-budget-nodes-invalid", "# budget marker"},
	} {
		got := onlyRule(diags, "error", c.rule)
		if len(got) != 1 {
			t.Errorf("%s: want exactly one error, got %d:\n%s", c.rule, len(got), formatDiags(diags))
			continue
		}
		want := lineOf(t, config, c.marker)
		if got[0].Range == nil || got[0].Range.Start.Line != want {
			t.Errorf("%s: points at %+v, want line %d (the element's attribute)", c.rule, got[0].Range, want)
		}
	}
	errs := 0
	for _, d := range diags {
		if d.Severity == "error" {
			errs++
		}
	}
	if errs != 3 {
		t.Errorf("three mistakes must give three errors, got %d:\n%s", errs, formatDiags(diags))
	}
}

// terraform plan calls ValidateResourceConfig in its validate walk and again
// in its plan walk; a warning must still print once.
func TestPlanJSONReportsEachWarningOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	prov := emulatorProvider(t, `cluster { name = "demo" }`)
	config := prov + `
resource "karpenter_ec2nodeclass" "latest" {
  name = "latest"
  role = "KarpenterNodeRole-demo"
  ami_selector_terms {
    alias = "al2023@latest"
  }
  subnet_selector_terms {
    tags = { "karpenter.sh/discovery" = "demo" }
  }
  security_group_selector_terms {
    tags = { "karpenter.sh/discovery" = "demo" }
  }
}
resource "karpenter_nodepool" "owned" {
  name       = "owned"
  node_class = karpenter_ec2nodeclass.latest.node_class
  taints {
    key    = "karpenter.sh/disrupted"
    effect = "NoSchedule"
  }
}
`
	diags := planDiagnostics(t, config)
	seen := map[string]int{}
	for _, d := range diags {
		seen[d.Severity+"|"+d.Summary+"|"+d.Detail+"|"+d.Address]++
	}
	for k, n := range seen {
		if n > 1 {
			t.Errorf("reported %d times: %s", n, k)
		}
	}
	if n := len(onlyRule(diags, "warning", "alias-latest-drift")); n != 1 {
		t.Errorf("alias-latest-drift: %d warnings, want 1:\n%s", n, formatDiags(diags))
	}
	if n := len(onlyRule(diags, "warning", "nodepool-taint-karpenter-owned")); n != 1 {
		t.Errorf("nodepool-taint-karpenter-owned: %d warnings, want 1:\n%s", n, formatDiags(diags))
	}
}

func TestAcknowledgedWarnings(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	class := func(ack string) string {
		return `
resource "karpenter_ec2nodeclass" "latest" {
  name = "latest"
  role = "KarpenterNodeRole-demo"
  ` + ack + `
  ami_selector_terms {
    alias = "al2023@latest"
  }
  subnet_selector_terms {
    tags = { "karpenter.sh/discovery" = "demo" }
  }
  security_group_selector_terms {
    tags = { "karpenter.sh/discovery" = "demo" }
  }
}
`
	}
	t.Run("provider", func(t *testing.T) {
		prov := emulatorProvider(t, `cluster { name = "demo" }
  acknowledged_warnings = ["alias-latest-drift"]`)
		diags := planDiagnostics(t, prov+class(""))
		if n := len(onlyRule(diags, "warning", "alias-latest-drift")); n != 0 {
			t.Errorf("acknowledged in the provider, still printed:\n%s", formatDiags(diags))
		}
	})
	t.Run("resource", func(t *testing.T) {
		prov := emulatorProvider(t, `cluster { name = "demo" }`)
		diags := planDiagnostics(t, prov+class(`acknowledged_warnings = ["alias-latest-drift"]`))
		if n := len(onlyRule(diags, "warning", "alias-latest-drift")); n != 0 {
			t.Errorf("acknowledged on the resource, still printed:\n%s", formatDiags(diags))
		}
		// Only the named rule: another class's warning stays.
		diags = planDiagnostics(t, prov+class(`acknowledged_warnings = ["nodepool-mixed-architectures"]`))
		expectDiagnostic(t, diags, "warning", "alias-latest-drift", "al2023@latest")
	})
	t.Run("invalid ids", func(t *testing.T) {
		config := class(`acknowledged_warnings = ["alias-latest-drfit", "nodepool-taint-invalid"]`)
		diags := terraformDiagnostics(t, config, "validate", "-json")
		expectDiagnostic(t, diags, "error", "acknowledged-warning-invalid", `"alias-latest-drfit" is not a rule id`, `Did you mean "alias-latest-drift"?`)
		expectDiagnostic(t, diags, "error", "acknowledged-warning-invalid", `"nodepool-taint-invalid" is an error rule`)
		diags = terraformDiagnostics(t, `provider "karpenter" {
  acknowledged_warnings = ["no-such-rule"]
}
`+class(""), "validate", "-json")
		expectDiagnostic(t, diags, "error", "acknowledged-warning-invalid", `"no-such-rule"`)
	})
}

func TestImportExplainsThereIsNothingToImport(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	diags := planDiagnostics(t, `
import {
  to = karpenter_nodepool.x
  id = "default"
}
resource "karpenter_nodepool" "x" {
  name       = "default"
  node_class = { name = "default" }
}
`)
	expectDiagnostic(t, diags, "error", "import-not-supported", `no object "default" to import`, "kubernetes_manifest")
}

// bootstrap.format is optional in the schema only because the framework
// would demand it of an absent block; a present block without it is an error
// with a rule id, at the block.
func TestBootstrapFormatRequiredInsideTheBlock(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	config := `
resource "karpenter_ec2nodeclass" "custom" {
  name       = "custom"
  role       = "KarpenterNodeRole-demo"
  ami_family = "Custom"
  ami_selector_terms {
    alias = "al2023@latest"
  }
  subnet_selector_terms {
    tags = { "karpenter.sh/discovery" = "demo" }
  }
  security_group_selector_terms {
    tags = { "karpenter.sh/discovery" = "demo" }
  }
  bootstrap {
    cluster_name = "demo"
  }
}
`
	diags := terraformDiagnostics(t, config, "validate", "-json")
	expectDiagnostic(t, diags, "error", "bootstrap-input-missing", "format")
	for _, d := range diags {
		if d.Severity == "error" && !strings.HasPrefix(d.Summary, "bootstrap-input-missing:") {
			t.Errorf("unexpected: %s: %s", d.Summary, d.Detail)
		}
	}
}

// A cross-check about what the requirements admit points at the requirement
// that names the families: Terraform shows no line for a list of blocks.
func TestCrossCheckPointsAtTheFamilyRequirement(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	prov := emulatorProvider(t, `cluster { name = "demo" }`)
	config := prov + `
resource "karpenter_ec2nodeclass" "al2" {
  name = "al2"
  role = "KarpenterNodeRole-demo"
  ami_selector_terms {
    alias = "al2@latest"
  }
  subnet_selector_terms {
    tags = { "karpenter.sh/discovery" = "demo" }
  }
  security_group_selector_terms {
    tags = { "karpenter.sh/discovery" = "demo" }
  }
}
resource "karpenter_nodepool" "gpu" {
  name       = "gpu"
  node_class = karpenter_ec2nodeclass.al2.node_class
  requirements {
    key      = "karpenter.sh/capacity-type"
    operator = "In"
    values   = ["on-demand"]
  }
  requirements {
    key      = "karpenter.k8s.aws/instance-family"
    operator = "In"
    values   = ["g5g"] # family marker
  }
}
`
	diags := planDiagnostics(t, config)
	got := onlyRule(diags, "error", "arm64-gpu-no-image")
	if len(got) != 1 {
		t.Fatalf("want one arm64-gpu-no-image:\n%s", formatDiags(diags))
	}
	if want := lineOf(t, config, "# family marker"); got[0].Range == nil || got[0].Range.Start.Line != want {
		t.Errorf("points at %+v, want line %d (the instance-family requirement)", got[0].Range, want)
	}
}
