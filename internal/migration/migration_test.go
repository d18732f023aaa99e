package migration

import (
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules/rulestest"
)

func TestSecondsDuration(t *testing.T) {
	for in, want := range map[string]string{
		"2592000": "720h", "30": "30s", "90": "1m30s", "3600": "1h", "0": "0s", "3661": "1h1m1s",
		"-5": "-5", "1.5": "1.5", "99999999999999999999": "99999999999999999999",
	} {
		if got := SecondsDuration(in); got != want {
			t.Errorf("SecondsDuration(%q) = %q, want %q", in, got, want)
		}
	}
}

// Every field says where it went in YAML (the resource's tombstones say it
// in HCL: the provider's TestTombstonesAreComplete).
func TestFieldsAreComplete(t *testing.T) {
	for _, a := range []rules.Path{AttrDisruptionExpireAfter, AttrKubelet, AttrTTLUntilExpired, AttrTTLAfterEmpty} {
		if f, ok := ByAttr(a); !ok || f.Attr.String() != a.String() {
			t.Fatalf("no field for %s", a)
		}
	}
	seen := map[string]bool{}
	for _, f := range Fields() {
		if f.yaml == nil || f.Rule == nil || f.Kind == "" || f.was == "" {
			t.Errorf("%s: incomplete", f.Manifest)
		}
		if seen[f.Kind+f.Manifest] {
			t.Errorf("%s listed twice", f.Manifest)
		}
		seen[f.Kind+f.Manifest] = true
	}
}

func TestScan(t *testing.T) {
	obj := map[string]any{"spec": map[string]any{
		"ttlSecondsUntilExpired": float64(2592000),
		"disruption":             map[string]any{"consolidationPolicy": "WhenUnderutilized", "expireAfter": "720h"},
		"template": map[string]any{
			"metadata": map[string]any{"annotations": map[string]any{"karpenter.sh/do-not-consolidate": "true", "team": "a"}},
			"spec":     map[string]any{"nodeClassRef": map[string]any{"apiVersion": "karpenter.k8s.aws/v1beta1"}},
		},
	}}
	var got []string
	for _, f := range Scan("Provisioner", obj) {
		got = append(got, f.Field.Rule.ID+" "+f.Path)
	}
	want := []string{
		"v1beta1-expire-after-in-disruption spec.disruption.expireAfter",
		"v1beta1-node-class-ref-api-version spec.template.spec.nodeClassRef.apiVersion",
		"v1alpha5-provisioner-field spec.ttlSecondsUntilExpired",
		"v1beta1-when-underutilized spec.disruption.consolidationPolicy",
		"v1beta1-annotation-removed spec.template.metadata.annotations[karpenter.sh/do-not-consolidate]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, f := range Scan(NodePool, obj) {
		switch f.Field.Rule.ID {
		case "v1alpha5-provisioner-field":
			if !strings.Contains(f.Message, "expireAfter: 720h") {
				t.Errorf("the seconds are not converted: %s", f.Message)
			}
		case "v1beta1-node-class-ref-api-version":
			if !strings.Contains(f.Message, "group: karpenter.k8s.aws.") {
				t.Errorf("the group is not named: %s", f.Message)
			}
		}
	}
	// Fields of the other kind, and a class's, are not looked for.
	if fs := Scan(EC2NodeClass, obj); len(fs) != 0 {
		t.Errorf("EC2NodeClass: %v", fs)
	}
	if fs := Scan("AWSNodeTemplate", map[string]any{"spec": map[string]any{"amiSelector": map[string]any{"aws-ids": "ami-1"}}}); len(fs) != 1 || !strings.Contains(fs[0].Message, "amiSelectorTerms") {
		t.Errorf("AWSNodeTemplate: %v", fs)
	}
	// Malformed shapes are not found, and never panic.
	for _, o := range []map[string]any{nil, {"spec": "x"}, {"spec": map[string]any{"disruption": []any{1}}}, {"spec": map[string]any{"template": map[string]any{"metadata": map[string]any{"annotations": "x"}}}}} {
		if fs := Scan(NodePool, o); len(fs) != 0 {
			t.Errorf("%v: %v", o, fs)
		}
	}
}

func TestRuleExamplesAreWellFormed(t *testing.T) {
	if n := rulestest.CheckExamples(t, Category); n != 7 {
		t.Fatalf("%d rules in %s", n, Category)
	}
}
