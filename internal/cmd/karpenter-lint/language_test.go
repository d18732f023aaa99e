package main

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifestcheck"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// hclWords are what only a Terraform user can act on: the provider's
// acknowledgement list, its resources, an HCL assignment of a snake_case
// attribute or an HCL object.
var hclWords = regexp.MustCompile(`acknowledged_warnings|karpenter_(nodepool|ec2nodeclass)\b|\b[a-z]+(_[a-z0-9]+)+ = |= \{ `)

// hclNames are the provider's attribute names (snake_case) however they
// are written, and HCL objects (`{ id = ...`): a rule of speaksHCLYet
// stays there while its message has one, even where hclWords would let it
// through.
var hclNames = regexp.MustCompile(`\b[a-z]+(_[a-z0-9]+)+\b|\{ [a-z_]+ = `)

// Every rule's failing manifest example, through karpenter-lint: the rule
// is reported, its message speaks YAML (no HCL name, no
// acknowledged_warnings), and the passing example does not report it.
// `rules show` prints the same manifests.
func TestRuleExamplesSpeakYAML(t *testing.T) {
	n := 0
	emulated := false
	for _, r := range rules.All() {
		if !manifestcheck.Reports(r.ID) {
			continue
		}
		bad, good, ok := r.YAMLExamples()
		switch {
		case !ok && !noYAMLExampleYet[r.ID]:
			t.Errorf("%s: karpenter-lint reports it but it has no manifest examples (BadYAML, GoodYAML)", r.ID)
			continue
		case ok && noYAMLExampleYet[r.ID]:
			t.Errorf("%s: has manifest examples now: take it out of noYAMLExampleYet", r.ID)
		case !ok:
			continue
		}
		if len(r.LintArgs()) > 0 && !emulated {
			url, _ := awsemutest.Start(t)
			awsemutest.Setenv(t, url)
			emulated = true
		}
		args := append(slices.Clone(r.LintArgs()), "-")
		n++
		_, rep := jsonOf(t, bad, args...)
		found, hcl := false, false
		for _, f := range rep.Findings {
			found = found || f.Rule == r.ID
			w := hclWords.FindString(f.Message)
			hcl = hcl || (f.Rule == r.ID && (w != "" || hclNames.MatchString(f.Message)))
			if w != "" && !speaksHCLYet[f.Rule] {
				t.Errorf("%s: Bad example: %s says %q: %s", r.ID, f.Rule, w, f.Message)
			}
		}
		if !found {
			t.Errorf("%s: Bad example does not report it: %+v", r.ID, rep.Findings)
		}
		if found && !hcl && speaksHCLYet[r.ID] {
			t.Errorf("%s: its message speaks YAML now: take it out of speaksHCLYet", r.ID)
		}
		_, rep = jsonOf(t, good, args...)
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

// noYAMLExampleYet are the rules karpenter-lint reports that have no
// manifest examples yet; each leaves the list when it has them. The test
// fails for a rule missing from it without examples, and for one listed
// that has them.
var noYAMLExampleYet = toSet(
	"alias-al2-unsupported-kubernetes",
	"alias-family-unsupported",
	"alias-first-match-capacity-bug",
	"alias-format",
	"alias-multiple-at",
	"alias-not-published",
	"alias-variants-swapped",
	"alias-version-shape",
	"alias-windows-version",
	"alias-windows2025-unsupported-kubernetes",
	"allow-unschedulable-key-invalid",
	"amd-gpu-nvidia-image",
	"ami-family-alias-mismatch",
	"ami-family-required",
	"ami-family-unsupported",
	"ami-no-compatible-image",
	"ami-non-alias-gpu-instance",
	"ami-not-available",
	"ami-not-found",
	"ami-pending-selectable",
	"ami-term-alias-exclusive",
	"ami-term-empty",
	"ami-term-id-exclusive",
	"ami-term-id-invalid",
	"ami-term-name-default-owners",
	"ami-term-owner-single",
	"ami-term-ssm-parameter-exclusive",
	"ami-term-ssm-parameter-unsupported",
	"ami-term-tags-invalid",
	"ami-terms-count",
	"ami-terms-one-per-architecture",
	"arm64-gpu-no-image",
	"capacity-reservation-not-found",
	"cluster-state-incomplete",
	"instance-profile-not-found",
	"instance-profile-without-role",
	"kubernetes-version-unsupported",
	"nodeoverlay-conflict",
	"nodeoverlay-feature-gate-off",
	"nodeoverlay-runtime-invalid",
	"nodepool-a1-al2023",
	"nodepool-architecture-mismatch",
	"nodepool-bottlerocket-neuron-before-1-3",
	"nodepool-budget-reason-invalid",
	"nodepool-budget-schedule-invalid",
	"nodepool-budget-schedule-without-duration",
	"nodepool-budgets-too-many",
	"nodepool-consolidate-after-required",
	"nodepool-consolidation-policy-invalid",
	"nodepool-duration-invalid",
	"nodepool-families-not-offered",
	"nodepool-label-contradicts-requirement",
	"nodepool-label-invalid",
	"nodepool-label-key-nodepool",
	"nodepool-labels-too-many",
	"nodepool-limit-invalid",
	"nodepool-limit-negative",
	"nodepool-limit-unknown-resource",
	"nodepool-mixed-architectures",
	"nodepool-name-invalid",
	"nodepool-node-class-ref-invalid",
	"nodepool-node-class-unsupported",
	"nodepool-not-scheduling",
	"nodepool-os-family-mismatch",
	"nodepool-replicas-negative",
	"nodepool-startup-taints-not-registered",
	"nodepool-static-before-1-8",
	"nodepool-static-disruption-ignored",
	"nodepool-static-limits",
	"nodepool-static-weight",
	"nodepool-taint-duplicate",
	"nodepool-taint-invalid",
	"nodepool-taint-karpenter-owned",
	"nodepool-weight-out-of-range",
	"nodepool-weight-tie",
	"nodepool-windows-arm64",
	"nodepool-zones-without-subnet",
	"nodes-will-drift",
	"pod-unschedulable",
	"price-read-denied",
	"readiness-checks-skipped",
	"readiness-read-denied",
	"requirement-bound-not-single-integer",
	"requirement-bound-on-non-numeric-label",
	"requirement-gte-lte-before-1-9",
	"requirement-in-without-values",
	"requirement-key-aws-domain",
	"requirement-key-ec2nodeclass",
	"requirement-key-hostname",
	"requirement-key-invalid",
	"requirement-key-karpenter-domain",
	"requirement-key-kubernetes-domain",
	"requirement-key-nodepool",
	"requirement-min-values-exceeds-known-values",
	"requirement-min-values-exceeds-values",
	"requirement-min-values-not-satisfiable",
	"requirement-min-values-out-of-range",
	"requirement-no-known-value",
	"requirement-operator-unknown",
	"requirement-unknown-value-ignored",
	"requirement-value-excluded-by-other-requirement",
	"requirement-value-invalid",
	"requirement-value-matches-no-instance-type",
	"requirement-values-ignored",
	"requirements-admit-no-instance-type",
	"requirements-too-many",
	"role-not-found",
	"scheduling-document-invalid",
	"scheduling-needs-aws",
	"security-group-id-not-found",
	"security-group-name-not-found",
	"security-group-selector-matches-nothing",
	"security-groups-subnets-different-vpcs",
	"selector-term-matches-nothing",
	"subnet-free-addresses-low",
	"subnet-id-not-found",
	"subnet-selector-matches-nothing",
)

func toSet(ids ...string) map[string]bool {
	m := make(map[string]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m
}

// speaksHCLYet are rules whose messages, fired from a manifest, still name
// the provider's attributes (snake_case, HCL blocks): their examples fire
// and their Good is clean, but the HCL-word check waits for the messages'
// structured fixes (rules.Fix). Each leaves the list when its message
// names no attribute of the provider and writes no HCL object (hclNames);
// the list also holds those that do so without an HCL assignment, which
// hclWords lets through.
var speaksHCLYet = toSet(
	"block-device-ebs-invalid",
	"block-device-root-volume-multiple",
	"block-device-smaller-than-snapshot",
	"bottlerocket-node-taints-dropped",
	"bottlerocket-setting-overridden",
	"connection-tracking-invalid",
	"cpu-options-invalid",
	"custom-user-data-missing",
	"ebs-volume-initialization-rate-invalid",
	"image-family-mismatch",
	"instance-store-raid0-assembled-twice",
	"kubelet-config-invalid",
	"kubelet-pods-per-core-ignored",
	"network-interfaces-invalid",
	"network-interfaces-public-ip",
	"nodeclass-role-or-instance-profile",
	"nodeconfig-field-overridden",
	"nodeconfig-register-with-taints-flag",
	"placement-group-selector-invalid",
	"selector-term-empty",
	"selector-term-field-exclusive",
	"selector-terms-count",
)
