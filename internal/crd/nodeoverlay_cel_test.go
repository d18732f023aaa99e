package crd

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/apis/v1alpha1"

	// The AWS provider's labels and restricted domain are registered in
	// Karpenter's globals by the packages this binary links; the suite's
	// loops take Karpenter's own (core) entries, ownOverlayCases the AWS
	// ones.
	awsapis "github.com/aws/karpenter-provider-aws/pkg/apis"
	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
)

// overlayCase is one create of Karpenter's NodeOverlay CEL suite
// (sigs.k8s.io/karpenter v1.14.1 pkg/apis/v1alpha1/nodeoverlay_validation_test.go),
// translated: the same object, the API server's create replaced by
// NodeOverlay.Validate, the runtime validation by Karpenter's own
// RuntimeValidate where the suite calls it.
type overlayCase struct {
	name   string
	spec   func(*v1alpha1.NodeOverlaySpec)
	create bool
	// runtime is the expected RuntimeValidate outcome; nil where the
	// suite does not call it.
	runtime *bool
}

func yes() *bool { b := true; return &b }
func no() *bool  { b := false; return &b }

func reqs(rs ...v1alpha1.NodeSelectorRequirement) func(*v1alpha1.NodeOverlaySpec) {
	return func(s *v1alpha1.NodeOverlaySpec) { s.Requirements = rs }
}

func req(key string, op corev1.NodeSelectorOperator, values ...string) v1alpha1.NodeSelectorRequirement {
	return v1alpha1.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
}

func price(p string) func(*v1alpha1.NodeOverlaySpec) {
	return func(s *v1alpha1.NodeOverlaySpec) { s.Price = &p }
}

func priceAdjustment(p string) func(*v1alpha1.NodeOverlaySpec) {
	return func(s *v1alpha1.NodeOverlaySpec) { s.PriceAdjustment = &p }
}

func capacity(name corev1.ResourceName, q string) func(*v1alpha1.NodeOverlaySpec) {
	return func(s *v1alpha1.NodeOverlaySpec) { s.Capacity = corev1.ResourceList{name: resource.MustParse(q)} }
}

func overlaySuite() []overlayCase {
	exists := corev1.NodeSelectorOpExists
	in, notIn := corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn
	gt, lt := corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt
	gte, lte := karpv1.NodeSelectorOpGte, karpv1.NodeSelectorOpLte
	long := strings.Repeat("a1", 125) // the suite's 250 random lower-case alphanumerics
	cases := []overlayCase{
		{"Requirements/should fail for no values for In operator", reqs(req("Test", in)), false, no()},
		{"Requirements/should fail for no values for NotIn operator", reqs(req("Test", notIn)), false, no()},
		{"Requirements/should succeed for valid requirement keys", reqs(req("Test", exists)), true, yes()},
		{"Requirements/should succeed for valid requirement keys (several)", reqs(req("Test", exists), req("test.com/Test", exists), req("test.com.com/test", exists), req("key-only", exists)), true, yes()},
		{"Requirements/should fail for invalid requirement keys: test.com.com}", reqs(req("test.com.com}", exists)), false, no()},
		{"Requirements/should fail for invalid requirement keys: Test.com/test", reqs(req("Test.com/test", exists)), false, no()},
		{"Requirements/should fail for invalid requirement keys: test/test/test", reqs(req("test/test/test", exists)), false, no()},
		{"Requirements/should fail for invalid requirement keys: test/", reqs(req("test/", exists)), false, no()},
		{"Requirements/should fail for invalid requirement keys: /test", reqs(req("/test", exists)), false, no()},
		{"Requirements/should allow for the karpenter.sh/nodepool label", reqs(req(karpv1.NodePoolLabelKey, in, "silly-name")), true, yes()},
		{"Requirements/should fail at runtime for requirement keys that are too long (domain)", reqs(req(fmt.Sprintf("test.com.test.%s/test", long), exists)), true, no()},
		{"Requirements/should fail at runtime for requirement keys that are too long (name)", reqs(req(fmt.Sprintf("test.com.test/test-%s", long), exists)), true, no()},
		{"Requirements/should allow supported ops", reqs(
			req(corev1.LabelTopologyZone, in, "test"), req(corev1.LabelTopologyZone, gt, "1"), req(corev1.LabelTopologyZone, lt, "1"),
			req(corev1.LabelTopologyZone, gte, "1"), req(corev1.LabelTopologyZone, lte, "1"), req(corev1.LabelTopologyZone, notIn, "1"),
			req(corev1.LabelTopologyZone, exists)), true, yes()},
		{"Requirements/should fail for unsupported ops", reqs(req(corev1.LabelTopologyZone, "unknown", "test")), false, no()},
		{"Requirements/should allow non-empty set after removing overlapped value", reqs(
			req(corev1.LabelTopologyZone, in, "test", "foo"), req(corev1.LabelTopologyZone, notIn, "test", "bar")), true, yes()},
		{"Requirements/should allow empty requirements", reqs(req("test", exists)), true, yes()},
	}
	for _, domain := range core(karpv1.RestrictedLabelDomains) {
		cases = append(cases, overlayCase{"Requirements/should fail for restricted domains: " + domain, reqs(req(domain+"/test", in, "test")), false, no()})
	}
	for _, domain := range []string{"kubernetes.io", "k8s.io"} {
		cases = append(cases,
			overlayCase{"Requirements/should allow kubernetes domains exceptions: " + domain, reqs(req(domain+"/test", in, "test")), true, yes()},
			overlayCase{"Requirements/should allow kubernetes subdomains exceptions: " + domain, reqs(req("subdomain."+domain+"/test", in, "test")), true, yes()})
	}
	// Capacity type is validated at runtime (its values), so the suite
	// leaves it out, with the nodepool label.
	for _, label := range core(karpv1.WellKnownLabels.Difference(sets.New(karpv1.NodePoolLabelKey, karpv1.CapacityTypeLabelKey))) {
		cases = append(cases, overlayCase{"Requirements/should allow well known label exceptions: " + label, reqs(req(label, in, "test")), true, yes()})
	}
	for _, op := range []corev1.NodeSelectorOperator{gt, lt, gte, lte} {
		for _, values := range [][]string{{}, {"1", "2"}, {"a"}, {"-1"}} {
			cases = append(cases, overlayCase{fmt.Sprintf("Requirements/should fail with invalid %s values %q", op, values),
				reqs(req(corev1.LabelTopologyZone, op, values...)), false, no()})
		}
	}
	cases = append(cases, overlayCase{"shout not be able to set both price and priceAdjustment",
		func(s *v1alpha1.NodeOverlaySpec) { price("0.432")(s); priceAdjustment("+10%")(s) }, false, nil})
	// The suite's "priceAdjustment" invalid-input table sets price, as
	// its "price" table does (upstream's code, kept as written); the
	// same inputs as priceAdjustment follow below, from its pattern.
	for _, in := range []string{"+42", ".5", "42.", "42%", "3,14", "1e10", "0x42", "forty-two", "42a", "42 ", " 42", "42.0.0", "-", ".", "-100.0%", "-101.1%", "-129"} {
		cases = append(cases, overlayCase{fmt.Sprintf("priceAdjustment/Invalid Input %q (as price)", in), price(in), false, nil})
	}
	for _, tc := range []struct {
		name, in string
		ok       bool
	}{
		{"should not allow an unsigned priceAdjustment percentage", "1%", false},
		{"should not allow an unsigned priceAdjustment integer", "1", false},
		{"should not allow an unsigned priceAdjustment float", "1.3", false},
		{"should allow positive percentage value for priceAdjustment field", "+1%", true},
		{"should allow negative percentage less then 0%", "-1%", true},
		{"should allow negative percentage -100%", "-100%", true},
		{"should allow positive percentage greater then 100%", "+100.102%", true},
		{"should allow positive percentage greater then 100% with an integer", "+298%", true},
		{"should allow positive integer value", "+43", true},
		{"should allow negative integer value", "-43", true},
		{"should allow positive float value", "+34.43", true},
		{"should allow negative float value", "-34.43", true},
	} {
		cases = append(cases, overlayCase{"priceAdjustment/" + tc.name, priceAdjustment(tc.in), tc.ok, nil})
	}
	for _, in := range []string{"+42", ".5", "42.", "42%", "3,14", "1e10", "0x42", "forty-two", "42a", "42 ", " 42", "42.0.0", "-", ".", "-.42"} {
		cases = append(cases, overlayCase{fmt.Sprintf("price/Invalid Input %q", in), price(in), false, nil})
	}
	cases = append(cases,
		overlayCase{"price/should allow integer value", price("43"), true, nil},
		overlayCase{"price/should allow float value", price("34.43"), true, nil},
		overlayCase{"Capacity/should allow custom resources", capacity("smarter-devices/fuse", "1"), true, yes()},
		overlayCase{"Capacity/should not allow cpu resources override", capacity(corev1.ResourceCPU, "1"), false, no()},
		overlayCase{"Capacity/should not allow memory resources override", capacity(corev1.ResourceMemory, "34Gi"), false, no()},
		overlayCase{"Capacity/should not allow pod resources override", capacity(corev1.ResourcePods, "324"), false, no()},
	)
	return cases
}

// core is the set without the entries the AWS provider registers (its
// domain), sorted: the sets Karpenter's suite loops over in its own module.
func core(s sets.Set[string]) []string {
	var out []string
	for _, v := range sets.List(s) {
		if !strings.HasPrefix(v, awsapis.Group) {
			out = append(out, v)
		}
	}
	return out
}

// ownOverlayCases are not in Karpenter's suite: the priceAdjustment
// table's inputs on priceAdjustment itself, the weight bounds, and the AWS
// labels, whose CRD rule lists the karpenter.k8s.aws keys allowed: the
// labels added to the AWS provider after that list (capacity reservations,
// tenancy, placement groups) are rejected by the API server although
// RuntimeValidate knows them.
func ownOverlayCases() []overlayCase {
	var cases []overlayCase
	for _, label := range []string{awsv1.LabelInstanceFamily, awsv1.LabelInstanceCategory, awsv1.LabelInstanceGeneration, awsv1.LabelInstanceSize,
		awsv1.LabelInstanceGPUName, awsv1.LabelInstanceCPU, awsv1.LabelInstanceMemory} {
		cases = append(cases, overlayCase{"AWS well known label allowed by the CRD: " + label, reqs(req(label, corev1.NodeSelectorOpIn, "test")), true, yes()})
	}
	for _, label := range []string{awsv1.LabelCapacityReservationType, awsv1.LabelPlacementGroupID, awsv1.LabelInstanceTenancy} {
		cases = append(cases, overlayCase{"AWS well known label the CRD's list lacks: " + label, reqs(req(label, corev1.NodeSelectorOpExists)), false, yes()})
	}
	// The CRD lets the class label through; Karpenter's runtime
	// validation does not (ValidationSucceeded=False, the overlay unused).
	cases = append(cases, overlayCase{"AWS class label: accepted, then fails runtime validation", reqs(req(awsv1.LabelNodeClass, corev1.NodeSelectorOpIn, "default")), true, no()})
	cases = append(cases, overlayCase{"AWS restricted domain", reqs(req(awsapis.Group+"/test", corev1.NodeSelectorOpIn, "test")), false, no()})
	for _, in := range []string{"42%", ".5%", "3,14", "1e10", "0x42", "forty-two", "+42a", "+42 ", " +42", "+42.0.0", "-", "+", ".", "-101.1%", "-100.5%", "+-1"} {
		cases = append(cases, overlayCase{fmt.Sprintf("priceAdjustment/Invalid Input %q", in), priceAdjustment(in), false, nil})
	}
	weight := func(w int32) func(*v1alpha1.NodeOverlaySpec) {
		return func(s *v1alpha1.NodeOverlaySpec) { s.Weight = &w }
	}
	return append(cases,
		overlayCase{"weight 0 is below the minimum", weight(0), false, nil},
		overlayCase{"weight 10001 is above the maximum", weight(10001), false, nil},
		overlayCase{"weight 10000", weight(10000), true, nil},
		overlayCase{"capacity ephemeral-storage is restricted", capacity(corev1.ResourceEphemeralStorage, "10Gi"), false, no()},
	)
}

// TestKarpenterNodeOverlayCELSuite runs the creates of Karpenter's own
// NodeOverlay CEL suite through NodeOverlay.Validate, and its runtime
// validations through Karpenter's RuntimeValidate: every accepted create
// must be accepted, every rejected one rejected.
func TestKarpenterNodeOverlayCELSuite(t *testing.T) {
	ctx := context.Background()
	cases := append(overlaySuite(), ownOverlayCases()...)
	names := map[string]bool{}
	for _, tc := range cases {
		if names[tc.name] {
			t.Fatalf("duplicate case %q", tc.name)
		}
		names[tc.name] = true
		t.Run(tc.name, func(t *testing.T) {
			o := v1alpha1.NodeOverlay{
				TypeMeta:   metav1.TypeMeta{APIVersion: "karpenter.sh/v1alpha1", Kind: "NodeOverlay"},
				ObjectMeta: metav1.ObjectMeta{Name: "overlay-test"},
				Spec: v1alpha1.NodeOverlaySpec{Requirements: []v1alpha1.NodeSelectorRequirement{
					{Key: karpv1.CapacityTypeLabelKey, Operator: corev1.NodeSelectorOpExists},
				}},
			}
			tc.spec(&o.Spec)
			obj := overlayObject(t, o)
			res, err := NodeOverlay.Validate(ctx, obj)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(res.Errors) == 0; got != tc.create {
				t.Errorf("create accepted = %v, want %v; errors: %v", got, tc.create, res.Errors)
			}
			if tc.runtime != nil {
				err := o.RuntimeValidate(ctx)
				if got := err == nil; got != *tc.runtime {
					t.Errorf("RuntimeValidate ok = %v, want %v (%v)", got, *tc.runtime, err)
				}
			}
		})
	}
	if n := len(overlaySuite()); n < 90 {
		t.Errorf("the translated suite has %d creates; the loops over Karpenter's label sets went missing", n)
	}
}

// overlayObject is o as JSON decodes it, the form Validate takes.
func overlayObject(t *testing.T, o v1alpha1.NodeOverlay) map[string]any {
	t.Helper()
	j, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := json.Unmarshal(j, &obj); err != nil {
		t.Fatal(err)
	}
	// Marshalling writes an empty status and a null creationTimestamp a
	// client would not send.
	delete(obj, "status")
	if md, ok := obj["metadata"].(map[string]any); ok {
		delete(md, "creationTimestamp")
	}
	return obj
}

func TestNodeOverlayErrorsLandOnAttributes(t *testing.T) {
	for crdPath, want := range map[string]string{
		"spec.requirements[1].key":      "requirements[1].key",
		"spec.priceAdjustment":          "price_adjustment",
		"spec.capacity":                 "capacity",
		"spec.capacity[nvidia.com/gpu]": `capacity["nvidia.com/gpu"]`,
		"spec.weight":                   "weight",
		"metadata.name":                 "name",
		"spec":                          "",
	} {
		if got := NodeOverlay.TerraformPath(crdPath).String(); got != want {
			t.Errorf("TerraformPath(%q) = %q, want %q", crdPath, got, want)
		}
	}
}
