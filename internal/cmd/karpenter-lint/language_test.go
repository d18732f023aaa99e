package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifestcheck"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// hclWords are what only a Terraform user can act on: the provider's
// acknowledgement list, its resources, an HCL assignment of a snake_case
// attribute or an HCL object.
var hclWords = regexp.MustCompile(`acknowledged_warnings|karpenter_(nodepool|ec2nodeclass)\b|\b[a-z]+(_[a-z0-9]+)+ = |= \{ `)

// Every rule's failing manifest example, through karpenter-lint: the rule
// is reported, its message speaks YAML (no HCL name, no
// acknowledged_warnings), and the passing example does not report it.
// `rules show` prints the same manifests.
func TestRuleExamplesSpeakYAML(t *testing.T) {
	n := 0
	for _, r := range rules.All() {
		bad, good, ok := r.YAMLExamples()
		if !ok || !manifestcheck.Reports(r.ID) {
			continue
		}
		n++
		_, rep := jsonOf(t, bad, "-")
		found := false
		for _, f := range rep.Findings {
			found = found || f.Rule == r.ID
			if w := hclWords.FindString(f.Message); w != "" {
				t.Errorf("%s: Bad example: %s says %q: %s", r.ID, f.Rule, w, f.Message)
			}
		}
		if !found {
			t.Errorf("%s: Bad example does not report it: %+v", r.ID, rep.Findings)
		}
		_, rep = jsonOf(t, good, "-")
		for _, f := range rep.Findings {
			if f.Rule == r.ID {
				t.Errorf("%s: Good example reports it: %s", r.ID, f.Message)
			}
		}
		_, out, _ := lint(t, "", "rules", "show", r.ID)
		if !strings.Contains(out, indentLines(bad)) {
			t.Errorf("%s: rules show lacks the manifest example:\n%s", r.ID, out)
		}
	}
	if n < 10 {
		t.Errorf("only %d rules have manifest examples", n)
	}
}

// A near miss's fix in YAML terms: the field under its parent, and the
// ignore annotation to keep the value as written.
func TestNearMissFixInYAML(t *testing.T) {
	for id, want := range map[string][]string{
		"requirement-value-misspelled": {"Write `values: [\"spot\", \"on-demand\"]` under spec.template.spec.requirements[0].", `lint.karpenter-tf.io/ignore annotation: "requirement-value-misspelled: <why>"`},
		"nodepool-limit-misspelled":    {"Write `memory: ...` under spec.limits.", `"nodepool-limit-misspelled: <why>"`},
		"requirement-key-misspelled":   {"Write `key: \"kubernetes.io/arch\"` under spec.template.spec.requirements[0]."},
	} {
		bad, _, _ := rules.Lookup(id).YAMLExamples()
		_, rep := jsonOf(t, bad, "-")
		var msg string
		for _, f := range rep.Findings {
			if f.Rule == id {
				msg = f.Message
			}
		}
		for _, w := range want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: %q lacks %q", id, msg, w)
			}
		}
	}
}
