package nodeclass

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// The docs examples of the EC2NodeClass and AMI rules, decoded as the
// resource decodes its configuration (list blocks in order, single blocks
// such as kubelet, metadata_options, bootstrap and ebs as objects) and
// validated offline: Bad triggers its rule, Good triggers neither it nor an
// error. Most examples are fragments of a karpenter_ec2nodeclass; they are
// laid over a class that validates on its own.

// singleBlocks are the blocks that hold one object; every other block is a
// list element.
var singleBlocks = map[string]bool{
	"kubelet": true, "metadata_options": true, "ebs": true, "bootstrap": true,
	"connection_tracking": true, "cpu_options": true, "placement_group_selector": true,
}

// baseClass is what a fragment leaves out.
var baseClass = map[string]any{
	"name":                          "default",
	"role":                          "KarpenterNodeRole-prod",
	"ami_selector_terms":            []any{map[string]any{"alias": "al2023@latest"}},
	"subnet_selector_terms":         []any{map[string]any{"tags": map[string]any{"karpenter.sh/discovery": "prod"}}},
	"security_group_selector_terms": []any{map[string]any{"tags": map[string]any{"karpenter.sh/discovery": "prod"}}},
}

// decodeClass returns the class an example configures and the Karpenter
// release its provider block names; ok is false for examples of other
// resources (data sources, NodePools).
func decodeClass(t *testing.T, src string) (c Class, kv versions.Karpenter, ok bool) {
	t.Helper()
	f, diags := hclsyntax.ParseConfig([]byte(src), "example.tf", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("parse: %s\n%s", diags.Error(), src)
	}
	body := f.Body.(*hclsyntax.Body)
	kv = versions.DefaultKarpenter
	fragment := true
	var top *hclsyntax.Body
	for _, b := range body.Blocks {
		switch {
		case b.Type == "provider":
			if a, ok := b.Body.Attributes["karpenter_version"]; ok {
				v, _ := a.Expr.Value(nil)
				var err error
				if kv, err = versions.ParseKarpenter(v.AsString()); err != nil {
					t.Fatal(err)
				}
			}
		case b.Type == "resource" && b.Labels[0] == "karpenter_ec2nodeclass":
			// A resource with "..." elides what the base class provides.
			top, fragment = b.Body, strings.Contains(src, "...")
		case b.Type == "resource" || b.Type == "data":
			return Class{}, kv, false
		}
	}
	if top == nil {
		top = body
	}
	own := bodyMap(t, top)
	if len(own) == 0 {
		return Class{}, kv, false // only a provider block
	}
	m := map[string]any{}
	if fragment {
		for k, v := range baseClass {
			m[k] = v
		}
	}
	for k, v := range own {
		m[k] = v
	}
	// The spec's JSON names are the camelCase of the attributes, and
	// encoding/json matches them case-insensitively (image_gc_... to
	// imageGCHighThresholdPercent); the same holds for ami.Term and
	// userdata.Bootstrap's field names.
	cm := camelKeys(m).(map[string]any)
	for name, target := range map[string]any{
		"name": &c.Name, "amiFamily": &c.Family, "amiSelectorTerms": &c.Terms, "pinAmis": &c.PinAMIs, "bootstrap": &c.Bootstrap,
	} {
		if v, ok := cm[name]; ok {
			remarshal(t, v, target)
			delete(cm, name)
		}
	}
	remarshal(t, cm, &c.Spec)
	var back map[string]any
	remarshal(t, c.Spec, &back)
	for k := range cm {
		if !hasFoldKey(back, k) {
			t.Fatalf("example argument %s has no place in the decoded class", k)
		}
	}
	c.Unknown = rules.Unknowns{}
	return c, kv, true
}

// camelKeys renames the keys of decoded blocks (not of argument values such
// as tags) to camelCase.
func camelKeys(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[camel(k)] = camelKeys(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = camelKeys(e)
		}
		return out
	}
	return v
}

// bodyMap decodes a body: arguments as their JSON values, single blocks as
// objects, other blocks as lists of objects in order.
func bodyMap(t *testing.T, b *hclsyntax.Body) map[string]any {
	t.Helper()
	m := map[string]any{}
	for name, a := range b.Attributes {
		v, d := a.Expr.Value(nil)
		if d.HasErrors() {
			t.Fatalf("%s: %s", name, d.Error())
		}
		js, err := ctyjson.Marshal(v, v.Type())
		if err != nil {
			t.Fatal(err)
		}
		m[name] = json.RawMessage(js)
	}
	for _, blk := range b.Blocks {
		if blk.Type == "provider" {
			continue
		}
		if singleBlocks[blk.Type] {
			if _, dup := m[blk.Type]; dup {
				t.Fatalf("%s is a single block", blk.Type)
			}
			m[blk.Type] = bodyMap(t, blk.Body)
			continue
		}
		list, _ := m[blk.Type].([]any)
		m[blk.Type] = append(list, bodyMap(t, blk.Body))
	}
	return m
}

func hasFoldKey(m map[string]any, k string) bool {
	for key := range m {
		if strings.EqualFold(key, k) {
			return true
		}
	}
	return false
}

func remarshal(t *testing.T, from, to any) {
	t.Helper()
	js, err := json.Marshal(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(js, to); err != nil {
		t.Fatalf("%s: %v", js, err)
	}
}

// needPlan are the rules whose Bad example needs what only a plan has:
// images (DescribeImages, SSM), the cluster's Kubernetes version, or a
// data source.
var needPlan = map[string]bool{
	"alias-al2-unsupported-kubernetes": true, "alias-windows2025-unsupported-kubernetes": true, "alias-not-published": true,
	"alias-first-match-capacity-bug": true, "alias-latest-drift": true, "ami-not-found": true, "ami-not-available": true,
	"ami-pending-selectable": true, "ami-term-name-default-owners": true, "ami-terms-one-per-architecture": true,
	"block-device-smaller-than-snapshot": true, "image-family-mismatch": true, "custom-bootstrap-other-cluster": true,
}

func TestDocsExamples(t *testing.T) {
	checked := 0
	for _, r := range rules.All() {
		if r.Category != category && r.Category != ami.RuleTermsCount.Category {
			continue
		}
		t.Run(r.ID, func(t *testing.T) {
			if bad, kv, ok := decodeClass(t, r.Bad); ok {
				fs := Validate(bad, kv)
				switch triggered := len(fs.ByRule(r.ID)) > 0; {
				case needPlan[r.ID] && triggered:
					t.Errorf("%s is decided offline now: take it out of needPlan", r.ID)
				case !needPlan[r.ID] && !triggered:
					t.Errorf("Bad example does not trigger %s offline (got %v):\n%s", r.ID, fs, r.Bad)
				case !needPlan[r.ID]:
					checked++
				}
			}
			if good, kv, ok := decodeClass(t, r.Good); ok {
				if fs := Validate(good, kv); len(fs.ByRule(r.ID)) > 0 || fs.HasErrors() {
					t.Errorf("Good example of %s has findings %v:\n%s", r.ID, fs, r.Good)
				}
			}
		})
	}
	if checked < 35 {
		t.Fatalf("only %d Bad examples checked", checked)
	}
}
