package provider

import (
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// The rules guide is generated from the catalogue (make generate); a rule
// without a docs section, or a section without a rule, fails here.
func TestRulesGuideIsCurrent(t *testing.T) {
	const file = "../../templates/guides/rules.md.tmpl"
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v: run make generate", err)
	}
	if string(got) != RulesGuide() {
		t.Fatalf("%s is stale: run make generate and commit it", file)
	}
	var ids []string
	for _, r := range rules.All() {
		ids = append(ids, r.ID)
		if strings.Contains(r.Bad, "{{") || r.Bad == r.Good {
			t.Errorf("%s: the failing and passing examples must differ and contain no template delimiters", r.ID)
		}
	}
	sections := sectionIDs(string(got))
	sort.Strings(ids)
	sort.Strings(sections)
	if strings.Join(ids, ",") != strings.Join(sections, ",") {
		t.Fatalf("catalogue and guide disagree:\ncatalogue %v\nguide     %v", ids, sections)
	}
}
