package crd

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules/rulestest"
)

func TestFindingQuotesTheServer(t *testing.T) {
	obj := object(t, nodeClass(func(s *manifest.EC2NodeClassSpec) {
		s.AMISelectorTerms = append(s.AMISelectorTerms, manifest.AMISelectorTerm{Name: "my-ami"})
	}))
	_, fs := ValidateEC2NodeClass(context.Background(), obj)
	if len(fs) != 1 {
		t.Fatalf("want one finding, got %v", fs)
	}
	f := fs[0]
	want := "The API server would reject the EC2NodeClass: spec.amiSelectorTerms: Invalid value: 'alias' is mutually exclusive, cannot be set with a combination of other amiSelectorTerms (CRD of karpenter-provider-aws v1.14.1)"
	if f.Rule.ID != "crd-validation" || f.Severity != rules.Error || f.Path.String() != "ami_selector_terms" || f.Detail != want {
		t.Fatalf("got %s", f)
	}
	if r := rules.Lookup("crd-validation"); r == nil || r.Category != "CRD" {
		t.Fatal("crd-validation not in the catalogue")
	}
	if r := rules.Lookup("crd-unknown-field"); r == nil || r.Category != "CRD" {
		t.Fatal("crd-unknown-field not in the catalogue")
	}
}

// A schema error of a blocking type (here an enum) makes the server skip
// CEL, saying so at the object; the provider reports that as a warning next
// to the error, and the alias/family CEL rule is (faithfully) not reported.
func TestBlockingErrorSkipsCEL(t *testing.T) {
	obj := object(t, nodeClass(func(s *manifest.EC2NodeClassSpec) { s.AMIFamily = "Ubuntu" }))
	res, err := EC2NodeClass.Validate(context.Background(), obj)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) != 2 || res.Errors[0].Field != "spec.amiFamily" || res.Errors[1].Field != "" || res.Errors[1].Detail != RulesNotChecked {
		t.Fatalf("got\n%s", dump(res.Errors))
	}
	if got, want := res.Errors[1].Text, "<nil>: Invalid value: null: "+RulesNotChecked; got != want {
		t.Fatalf("text %q", got)
	}
	_, fs := ValidateEC2NodeClass(context.Background(), obj)
	if len(fs) != 2 || fs[0].Severity != rules.Error || fs[0].Path.String() != "ami_family" ||
		fs[1].Severity != rules.Warning || !fs[1].Path.IsEmpty() || !strings.Contains(fs[1].Detail, RulesNotChecked) {
		t.Fatalf("got %v", fs)
	}
}

func TestUnknownFieldsArePrunedAndReported(t *testing.T) {
	ctx := context.Background()
	nc := object(t, nodeClass(func(s *manifest.EC2NodeClassSpec) { s.Kubelet = &manifest.Kubelet{MaxPods: ptr(int32(110))} }))
	nc["spec"].(map[string]any)["kubelet"].(map[string]any)["registerWithTaints"] = []any{map[string]any{"key": "a", "effect": "NoSchedule"}}
	nc["spec"].(map[string]any)["amiSelectorTerms"].([]any)[0].(map[string]any)["version"] = "latest"
	nc["metadata"].(map[string]any)["labelz"] = map[string]any{"a": "b"}

	res, err := EC2NodeClass.Validate(ctx, nc)
	if err != nil {
		t.Fatal(err)
	}
	wantUnknown := []string{"metadata.labelz", "spec.amiSelectorTerms[0].version", "spec.kubelet.registerWithTaints"}
	if !reflect.DeepEqual(res.Unknown, wantUnknown) || len(res.Errors) > 0 {
		t.Fatalf("unknown %v, errors %v", res.Unknown, res.Errors)
	}
	spec := res.Object["spec"].(map[string]any)
	if _, ok := spec["kubelet"].(map[string]any)["registerWithTaints"]; ok {
		t.Error("registerWithTaints not pruned")
	}
	if _, ok := res.Object["metadata"].(map[string]any)["labelz"]; ok {
		t.Error("metadata.labelz not pruned")
	}
	if spec["kubelet"].(map[string]any)["maxPods"] != int64(110) {
		t.Error("known fields must survive pruning")
	}

	_, fs := ValidateEC2NodeClass(ctx, nc)
	var paths []string
	for _, f := range fs.ByRule("crd-unknown-field") {
		paths = append(paths, f.Path.String())
		if f.Severity != rules.Error {
			t.Error("unknown fields must fail the plan")
		}
	}
	if want := []string{"", "ami_selector_terms[0]", "kubelet"}; !reflect.DeepEqual(paths, want) {
		t.Fatalf("paths %q, want %q (findings %v)", paths, want, fs)
	}
	if d := fs.ByRule("crd-unknown-field")[2].Detail; !strings.Contains(d, `unknown field "spec.kubelet.registerWithTaints"`) || !strings.Contains(d, "v1.14.1") {
		t.Fatal(d)
	}

	// The v1beta1 location of kubelet, a classic of manifests carried over.
	np := object(t, nodePool(nil))
	np["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["kubelet"] = map[string]any{"maxPods": 110}
	_, fs = ValidateNodePool(ctx, np)
	if len(fs) != 1 || fs[0].Rule.ID != "crd-unknown-field" || !fs[0].Path.IsEmpty() || !strings.Contains(fs[0].Detail, "spec.template.spec.kubelet") {
		t.Fatalf("got %v", fs)
	}
}

// Integers arrive as float64 from manifest.Object (encoding/json); the
// server's decoder makes them int64, and so must Validate, or integer
// schemas and CEL arithmetic would see floats.
func TestNumbersAreNormalized(t *testing.T) {
	res, err := NodePool.Validate(context.Background(), object(t, nodePool(func(s *manifest.NodePoolSpec) { s.Weight = ptr(int32(10)) })))
	if err != nil || len(res.Errors) > 0 {
		t.Fatal(err, res.Errors)
	}
	if w := res.Object["spec"].(map[string]any)["weight"]; w != int64(10) {
		t.Fatalf("weight %#v", w)
	}
}

func TestNotJSON(t *testing.T) {
	_, fs := ValidateNodePool(context.Background(), map[string]any{"spec": func() {}})
	if len(fs) != 1 || !fs.HasErrors() || !strings.Contains(fs[0].Detail, "not JSON") {
		t.Fatalf("got %v", fs)
	}
}

// The rules guide is generated from the catalogue: the examples are HCL a
// reader copies, in block syntax and `terraform fmt` layout.
func TestRuleExamplesAreHCL(t *testing.T) {
	if n := rulestest.CheckExamples(t, Category); n != 2 {
		t.Fatalf("%d rules checked, want crd-validation and crd-unknown-field", n)
	}
}
