package main

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/drift"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// providerOnly are the sections of the rules guide about the Terraform
// provider itself (its configuration, plan previews) and about the data
// source that answers another question than "is this manifest right" (the
// node a pool launches), which the command does not report. A new section
// of manifest rules belongs to the linter: link its package (through
// internal/manifestcheck); a new section of the provider's own belongs
// here. Scheduling is the schedule command's.
var providerOnly = []string{"Provider, AWS access and Terraform", "Drift", "Nodes"}

// The linter's catalogue is the rules guide's, less the provider's own
// sections: a rule added to a package the linter does not link fails here.
func TestCatalogueIsTheGuides(t *testing.T) {
	b, err := os.ReadFile("../../../docs/guides/rules.md")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	section := ""
	for _, l := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(l, "## "):
			section = strings.TrimPrefix(l, "## ")
		case strings.HasPrefix(l, "### ") && !slices.Contains(providerOnly, section):
			want = append(want, strings.TrimPrefix(l, "### "))
		}
	}
	// The rules linked in, less the provider's drift warning that the
	// disruption command's hash code links (linterRules also leaves out
	// the provider-only rules, which the guide lists with the others).
	var got []string
	for _, r := range rules.All() {
		if r.Category != drift.Category {
			got = append(got, r.ID)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) || len(got) < 150 {
		t.Errorf("the linter has %d rules, the guide %d outside %q:\nlinter only: %v\nguide only: %v", len(got), len(want), providerOnly,
			minus(got, want), minus(want, got))
	}
}

func minus(a, b []string) []string {
	var out []string
	for _, s := range a {
		if !slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}

func TestRulesListAndShow(t *testing.T) {
	code, out, _ := lint(t, "", "rules", "list")
	if code != exitOK || !strings.HasPrefix(out, "RULE") || !strings.Contains(out, "\narm64-gpu-no-image ") || strings.Count(out, "\n") != len(linterRules())+1 {
		t.Errorf("rules list: exit %d\n%s", code, out)
	}
	code, out, _ = lint(t, "", "rules", "list", "--format", "json")
	var list []jsonRule
	if err := json.Unmarshal([]byte(out), &list); err != nil || code != exitOK || len(list) != len(linterRules()) || list[0].HelpURI == "" {
		t.Errorf("rules list --format json: exit %d %v", code, err)
	}
	code, out, _ = lint(t, "", "rules", "show", "lint-ignore-reason-missing")
	for _, want := range []string{"lint-ignore-reason-missing: the lint.karpenter-tf.io/ignore annotation gives no reason (error, Manifests)", "What happens: ", "Fails:\n", "Passes:\n", guideURL + "#lint-ignore-reason-missing"} {
		if !strings.Contains(out, want) || code != exitOK {
			t.Errorf("rules show lacks %q:\n%s", want, out)
		}
	}
	if code, _, stderr := lint(t, "", "rules", "show", "arm64-gpu-no-imag"); code != exitCannot || !strings.Contains(stderr, `did you mean "arm64-gpu-no-image"`) {
		t.Errorf("unknown rule: exit %d %s", code, stderr)
	}
	if code, out, _ := lint(t, "", "version"); code != exitOK || !strings.HasPrefix(out, "karpenter-lint ") {
		t.Errorf("version: %d %s", code, out)
	}
}
