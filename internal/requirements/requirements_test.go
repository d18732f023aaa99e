package requirements

import (
	"strings"
	"testing"
)

// Upstream's compatibility matrices (kubernetes-sigs/karpenter v1.14.1
// pkg/scheduling/requirements_test.go "should be compatible with well-known
// v1 labels undefined" and "should be strictly compatible"), on the zone
// label: row.Compatible(column) succeeds where the digit is 1. Columns and
// rows follow compatOrder.
var compatOrder = append([]string{"unconstrained"}, fixtureNames...)

var lenientMatrix = map[string]string{
	"unconstrained": "111111111111111",
	"exists":        "110111111111111",
	"doesNotExist":  "101000100010000",
	"inA":           "110101000010000",
	"inB":           "110011100010000",
	"inAB":          "110111100010000",
	"notInA":        "111011111111111",
	"in1":           "110000110100001",
	"in9":           "110000101111000",
	"in19":          "110000111111001",
	"notIn12":       "111111101111111",
	"greaterThan1":  "110000101111101",
	"greaterThan9":  "110000100011100",
	"lessThan1":     "110000100010011",
	"lessThan9":     "110000110111011",
}

// Strict differs only where the receiver does not define the label.
var strictUnconstrained = "101000100010000"

func sets(key string) map[string]Requirements {
	out := map[string]Requirements{"unconstrained": NewRequirements()}
	for name, r := range fixtures(key, nil) {
		out[name] = NewRequirements(r)
	}
	return out
}

func TestCompatibleMatchesUpstreamMatrices(t *testing.T) {
	s := sets(LabelZone)
	for _, strict := range []bool{false, true} {
		for _, row := range compatOrder {
			want := lenientMatrix[row]
			if strict && row == "unconstrained" {
				want = strictUnconstrained
			}
			for j, col := range compatOrder {
				var err error
				if strict {
					err = s[row].Compatible(s[col])
				} else {
					err = s[row].Compatible(s[col], AllowUndefinedWellKnownLabels)
				}
				if ok := err == nil; ok != (want[j] == '1') {
					t.Errorf("strict=%v %s.Compatible(%s) = %v, upstream says %c", strict, row, col, err, want[j])
				}
			}
		}
	}
}

// The AMI-variant question: an instance type defines every GPU label (as
// DoesNotExist when it has no GPU), an image variant requires
// instance-gpu-count Exists (nvidia) or DoesNotExist (standard). Strictly, a
// set that does not define the GPU label cannot satisfy an image that needs
// it; leniently it can.
func TestStrictVersusLenientWithGPULabels(t *testing.T) {
	nvidia := NewRequirements(New(LabelInstanceGPUCount, Exists))
	standard := NewRequirements(New(LabelInstanceAcceleratorCount, DoesNotExist), New(LabelInstanceGPUCount, DoesNotExist))
	g5g := NewRequirements(New(LabelInstanceGPUCount, In, "1"), New(LabelInstanceAcceleratorCount, DoesNotExist), New(LabelArch, In, "arm64"))
	m5 := NewRequirements(New(LabelInstanceGPUCount, DoesNotExist), New(LabelInstanceAcceleratorCount, DoesNotExist), New(LabelArch, In, "amd64"))
	undefined := NewRequirements(New(LabelArch, In, "amd64"))

	cases := []struct {
		name             string
		typ, image       Requirements
		strict, lenient  bool
		strictErrContain string
	}{
		{"gpu type, nvidia image", g5g, nvidia, true, true, ""},
		{"gpu type, standard image", g5g, standard, false, false, "instance-gpu-count"},
		{"cpu type, nvidia image", m5, nvidia, false, false, "instance-gpu-count"},
		{"cpu type, standard image", m5, standard, true, true, ""},
		{"gpu label undefined, nvidia image", undefined, nvidia, false, true, `label "karpenter.k8s.aws/instance-gpu-count" does not have known values`},
		// DoesNotExist only excludes, so an undefined label satisfies it either way.
		{"gpu label undefined, standard image", undefined, standard, true, true, ""},
	}
	for _, c := range cases {
		strictErr := c.typ.Compatible(c.image)
		if (strictErr == nil) != c.strict {
			t.Errorf("%s: strict = %v, want %v", c.name, strictErr, c.strict)
		}
		if c.strictErrContain != "" && (strictErr == nil || !strings.Contains(strictErr.Error(), c.strictErrContain)) {
			t.Errorf("%s: strict error %v should mention %q", c.name, strictErr, c.strictErrContain)
		}
		if got := c.typ.IsCompatible(c.image, AllowUndefinedWellKnownLabels); got != c.lenient {
			t.Errorf("%s: lenient = %v, want %v", c.name, got, c.lenient)
		}
	}
}

// Upstream's "Error Messages" cases for undefined custom keys.
func TestCompatibleErrorHints(t *testing.T) {
	unconstrained := NewRequirements()
	cases := map[string]string{
		"zone":                         `label "zone" does not have known values (typo of "topology.kubernetes.io/zone"?)`,
		"arch":                         `label "arch" does not have known values (typo of "kubernetes.io/arch"?)`,
		"topology.kubernetes.io/regio": `label "topology.kubernetes.io/regio" does not have known values (typo of "topology.kubernetes.io/region"?)`,
	}
	for key, want := range cases {
		err := unconstrained.Compatible(NewRequirements(New(key, Exists)), AllowUndefinedWellKnownLabels)
		if err == nil || err.Error() != want {
			t.Errorf("%s: got %v, want %s", key, err, want)
		}
	}
	err := unconstrained.Compatible(NewRequirements(New("deployment", Exists)))
	if err == nil || err.Error() != `label "deployment" does not have known values` {
		t.Errorf("custom key: %v", err)
	}
}

// NotIn on a key the other side has as DoesNotExist is compatible (both only
// exclude), unlike In.
func TestIntersectsExcludingRequirementsNeverConflict(t *testing.T) {
	typ := NewRequirements(New(LabelInstanceGPUName, DoesNotExist))
	if err := typ.Intersects(NewRequirements(New(LabelInstanceGPUName, NotIn, "t4"))); err != nil {
		t.Errorf("NotIn vs DoesNotExist: %v", err)
	}
	if err := typ.Intersects(NewRequirements(New(LabelInstanceGPUName, In, "t4"))); err == nil {
		t.Error("In vs DoesNotExist must conflict")
	} else if !strings.Contains(err.Error(), "key karpenter.k8s.aws/instance-gpu-name, karpenter.k8s.aws/instance-gpu-name In [t4] not in karpenter.k8s.aws/instance-gpu-name DoesNotExist") {
		t.Errorf("message: %v", err)
	}
	// Keys only one side defines are ignored.
	if err := typ.Intersects(NewRequirements(New("example.com/team", In, "a"))); err != nil {
		t.Errorf("custom key: %v", err)
	}
	if typ.Overlaps(NewRequirements(New(LabelInstanceGPUName, In, "t4"))) {
		t.Error("fast path disagrees")
	}
}

func TestFromSpecsMergesKeysAndSkipsUnknown(t *testing.T) {
	reqs, complete := FromSpecs([]Spec{
		{Key: LabelArch, Operator: "In", Values: []string{"amd64", "arm64"}},
		{Key: LabelArch, Operator: "NotIn", Values: []string{"arm64"}, MinValues: ptr(1)},
		{Key: LabelInstanceCPU, Operator: "Gt", Unknown: Unknown{Values: true}},
	})
	if complete {
		t.Error("a spec with unknown values must make the set incomplete")
	}
	if got := reqs.String(); got != "kubernetes.io/arch In [amd64] minValues 1" {
		t.Errorf("got %s", got)
	}
	if !reqs.HasMinValues() {
		t.Error("HasMinValues")
	}
	labels := FromLabels(map[string]string{"example.com/team": "a"})
	if !labels.Get("example.com/team").Has("a") || labels.Get("example.com/team").Has("b") {
		t.Error("labels are In requirements")
	}
}

// FromLabels builds In requirements from labels (a NodePool's template
// labels constrain its nodes exactly like single-value requirements).
func FromLabels(labels map[string]string) Requirements {
	out := make(Requirements, len(labels))
	for k, v := range labels {
		out.Add(New(k, In, v))
	}
	return out
}

// AllowUndefinedWellKnownLabels is Karpenter's lenient mode (scheduling,
// offerings): a well-known label that the receiver does not define counts
// as compatible. Without it the check is strict, which is what AMI-to-
// instance-type mapping uses since aws/karpenter-provider-aws#7925: an image
// that requires instance-gpu-count Exists only maps to types that define it.
func AllowUndefinedWellKnownLabels(o *compatOptions) { o.allowUndefined = IsWellKnown }
