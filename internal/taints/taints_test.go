package taints

import (
	"reflect"
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	cases := map[Taint]string{
		{Key: "k", Value: "v", Effect: NoSchedule}:  "k=v:NoSchedule",
		{Key: "k", Effect: NoExecute}:               "k:NoExecute",
		{Key: "k", Value: "v"}:                      "k=v:",
		{Key: "k"}:                                  "k",
		{Key: "example.com/k", Effect: "NoExecute"}: "example.com/k:NoExecute",
		{Key: UnregisteredKey, Effect: NoExecute}:   "karpenter.sh/unregistered:NoExecute",
	}
	for in, want := range cases {
		if got := in.String(); got != want {
			t.Errorf("%#v: got %q want %q", in, got, want)
		}
	}
	if got := Join([]Taint{{Key: "a", Value: "1", Effect: NoSchedule}, Unregistered}); got != "a=1:NoSchedule,karpenter.sh/unregistered:NoExecute" {
		t.Errorf("Join: %q", got)
	}
}

func TestParseAcceptsKubeletForms(t *testing.T) {
	got, err := Parse("k1=v1:NoSchedule,k2:NoExecute,example.com/k3=:PreferNoSchedule,k4")
	if err != nil {
		t.Fatal(err)
	}
	want := []Taint{
		{Key: "k1", Value: "v1", Effect: NoSchedule},
		{Key: "k2", Effect: NoExecute},
		{Key: "example.com/k3", Effect: PreferNoSchedule},
		{Key: "k4"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v", got)
	}
	if ts, err := Parse(""); err != nil || ts != nil {
		t.Fatalf("empty: %v %v", ts, err)
	}
}

func TestParseErrorsAsTheKubeletWordsThem(t *testing.T) {
	cases := map[string]string{
		`"k:NoExecute"`:    `invalid taint effect: NoExecute", unsupported taint effect`,
		"k:NoExecute:x":    "invalid taint spec: k:NoExecute:x",
		"k=v=w:NoSchedule": "invalid taint spec: k=v=w:NoSchedule",
		"k=a/b:NoSchedule": "invalid taint spec: k=a/b:NoSchedule, a valid label must be",
		"k=v:Schedule":     "invalid taint effect: Schedule, unsupported taint effect",
		" k:NoSchedule":    "invalid taint spec:  k:NoSchedule, name part must consist of",
		"":                 "invalid taint spec: , name part must be non-empty",
		"a:NoSchedule,":    "invalid taint spec: , name part must be non-empty",
		"k=v":              "invalid taint spec: k=v, name part must consist of",
		"-bad:NoSchedule":  "invalid taint spec: -bad:NoSchedule",
		"k=" + strings.Repeat("v", 64) + ":NoSchedule": "must be no more than 63 bytes",
	}
	for in, want := range cases {
		_, err := Parse(in)
		if in == "" {
			_, err = ParseOne(in)
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want an error containing %q", in, err, want)
		}
	}
}

func TestValidateIsStricterThanKarpentersCRD(t *testing.T) {
	// Karpenter's CRD pattern allows prefix/name values; the kubelet does not.
	errs := Taint{Key: "team", Value: "a/b", Effect: NoSchedule}.Validate()
	if len(errs) != 1 || errs[0].Field != "value" {
		t.Fatalf("got %v", errs)
	}
	if errs := (Taint{Key: "k"}).Validate(); len(errs) != 1 || errs[0].Field != "effect" || !strings.Contains(errs[0].Reason, "required") {
		t.Fatalf("missing effect: %v", errs)
	}
	if errs := (Taint{Key: "k", Effect: "Schedule"}).Validate(); len(errs) != 1 || !strings.Contains(errs[0].Reason, "unsupported") {
		t.Fatalf("bad effect: %v", errs)
	}
	for _, hostile := range []string{"a'b", "$(id)", "`id`", "a\nb", "a b"} {
		if errs := (Taint{Key: "k", Value: hostile, Effect: NoSchedule}).Validate(); len(errs) == 0 {
			t.Errorf("value %q accepted", hostile)
		}
		if errs := (Taint{Key: hostile, Effect: NoSchedule}).Validate(); len(errs) == 0 {
			t.Errorf("key %q accepted", hostile)
		}
	}
	if errs := Unregistered.Validate(); errs != nil {
		t.Fatal(errs)
	}
}

func TestDuplicatesAndMatches(t *testing.T) {
	ts := []Taint{{Key: "a", Value: "1", Effect: NoSchedule}, {Key: "a", Value: "2", Effect: NoSchedule}, {Key: "a", Effect: NoExecute}}
	if got := Duplicates(ts); !reflect.DeepEqual(got, []int{1}) {
		t.Fatalf("got %v", got)
	}
}
