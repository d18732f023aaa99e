// Package rulestest checks the docs examples of the rule catalogue; only
// tests import it.
package rulestest

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// Blocks are the configuration objects the provider declares as blocks
// (its resources, data sources and provider configuration). An example
// that assigns one (`requirements = [...]`) would fail `terraform validate`
// with "Unsupported argument".
var Blocks = map[string]bool{
	"ami_selector_terms": true, "subnet_selector_terms": true, "security_group_selector_terms": true,
	"capacity_reservation_selector_terms": true, "kubelet": true, "block_device_mappings": true, "ebs": true,
	"metadata_options": true, "bootstrap": true, "register_with_taints": true,
	"network_interfaces": true, "placement_group_selector": true, "connection_tracking": true, "cpu_options": true,
	"requirements": true, "taints": true, "startup_taints": true, "disruption": true, "budgets": true,
	"metadata": true, "assume_role": true, "endpoints": true, "cluster": true, "controller": true, "feature_gates": true,
}

// CheckExamples checks the Bad and Good examples of every rule of the
// categories: each is HCL that `terraform fmt` leaves unchanged, writes
// configuration objects as blocks, differs from the other, and holds no
// template delimiter (the guide is a tfplugindocs template). It returns how
// many rules it checked.
func CheckExamples(t testing.TB, categories ...string) int {
	t.Helper()
	want := map[string]bool{}
	for _, c := range categories {
		want[c] = true
	}
	n := 0
	for _, r := range rules.All() {
		if !want[r.Category] {
			continue
		}
		n++
		for name, src := range map[string]string{"Bad": r.Bad, "Good": r.Good} {
			for _, p := range Problems(src) {
				t.Errorf("%s %s example: %s\n%s", r.ID, name, p, src)
			}
		}
		if strings.TrimSpace(r.Bad) == strings.TrimSpace(r.Good) {
			t.Errorf("%s: Bad and Good examples are the same", r.ID)
		}
	}
	return n
}

// Problems lists what is wrong with one example.
func Problems(src string) []string {
	if strings.Contains(src, "{{") {
		return []string{"contains a template delimiter {{"}
	}
	text := []byte(strings.TrimRight(src, "\n") + "\n")
	f, diags := hclsyntax.ParseConfig(text, "example.tf", hcl.InitialPos)
	if diags.HasErrors() {
		return []string{"not HCL: " + diags.Error()}
	}
	var out []string
	if got := hclwrite.Format(text); !bytes.Equal(got, text) {
		out = append(out, "terraform fmt would change it to\n"+string(got))
	}
	var walk func(b *hclsyntax.Body)
	walk = func(b *hclsyntax.Body) {
		for name, a := range b.Attributes {
			if Blocks[name] {
				out = append(out, "line "+strconv.Itoa(a.SrcRange.Start.Line)+": "+name+" is a block: write `"+name+" { ... }`, one block per element")
			}
		}
		for _, blk := range b.Blocks {
			walk(blk.Body)
		}
	}
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok { // ParseConfig always returns native syntax; guard without panicking
		return append(out, "not native HCL syntax")
	}
	walk(body)
	return out
}
