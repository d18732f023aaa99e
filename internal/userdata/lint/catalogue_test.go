package lint

import (
	"regexp"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules/rulestest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

var exampleRE = regexp.MustCompile(`(?s)ami_family = "([A-Za-z0-9]+)"\n  user_data  = <<-EOT\n(.*?)\n  EOT\n`)

// docsExample extracts the amiFamily and userData of a nodeClass() docs
// snippet; ok is false for snippets of other shapes.
func docsExample(hcl string) (amifamily.Family, string, bool) {
	m := exampleRE.FindStringSubmatch(hcl)
	if m == nil {
		return "", "", false
	}
	var lines []string
	for _, l := range strings.Split(m[2], "\n") {
		lines = append(lines, strings.TrimPrefix(l, "    "))
	}
	return amifamily.Family(m[1]), strings.Join(lines, "\n") + "\n", true
}

// TestDocsExamples lints the Bad and Good userData of every rule's docs
// entry: Bad must trigger the rule, Good must not. The catalogue and the
// linter cannot drift apart.
func TestDocsExamples(t *testing.T) {
	checked := 0
	for _, r := range rules.All() {
		if r.Category != category {
			continue
		}
		f, ud, ok := docsExample(r.Bad)
		if !ok || r.ID == ruleTooLarge.ID {
			continue
		}
		checked++
		t.Run(r.ID, func(t *testing.T) {
			if got := UserData(f, ud, versions.DefaultKarpenter).ByRule(r.ID); len(got) == 0 {
				t.Errorf("Bad example does not trigger %s:\n%s", r.ID, ud)
			}
			if gf, gud, ok := docsExample(r.Good); ok {
				if got := UserData(gf, gud, versions.DefaultKarpenter); len(got.ByRule(r.ID)) > 0 || got.HasErrors() {
					t.Errorf("Good example of %s has findings %v:\n%s", r.ID, got, gud)
				}
			}
		})
	}
	if checked < 15 {
		t.Fatalf("only %d docs examples were checked", checked)
	}
}

// TestCatalogueIsComplete makes sure every rule this package registers is
// documented with HCL examples (the docs page is generated from them).
func TestCatalogueIsComplete(t *testing.T) {
	n := 0
	for _, r := range rules.All() {
		if r.Category != category {
			continue
		}
		n++
		for _, s := range []string{r.Bad, r.Good} {
			if !strings.Contains(s, "resource \"karpenter_") {
				t.Errorf("%s: example is not a resource snippet: %q", r.ID, s)
			}
		}
	}
	if n < 30 {
		t.Fatalf("%d userData rules registered", n)
	}
}

// The rules guide is generated from the catalogue: the examples are HCL a
// reader copies, in block syntax and `terraform fmt` layout, with the
// userData in heredocs.
func TestRuleExamplesAreFormattedBlocks(t *testing.T) {
	if n := rulestest.CheckExamples(t, category); n < 30 {
		t.Fatalf("only %d rules checked", n)
	}
}
