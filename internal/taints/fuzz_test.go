package taints

import (
	"reflect"
	"testing"
)

// FuzzParse checks that the kubelet parser never panics and that what it
// accepts round-trips through String/Join: a valid list renders to a value
// the kubelet parses back to the same taints.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"k1=v1:NoSchedule,k2:NoExecute", `"k:NoExecute"`, "karpenter.sh/unregistered:NoExecute",
		"a=b=c:NoSchedule", "k", "k=v", ",", "example.com/k=:PreferNoSchedule", "k:NoExecute:x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ts, err := Parse(s)
		if err != nil {
			return
		}
		again, err := Parse(Join(ts))
		if err != nil {
			t.Fatalf("%q parsed to %v, whose rendering %q does not parse: %v", s, ts, Join(ts), err)
		}
		if !reflect.DeepEqual(ts, again) {
			t.Fatalf("round trip of %q: %v != %v", s, ts, again)
		}
		for _, tt := range ts {
			// Parse already applied the key and value rules.
			for _, fe := range tt.Validate() {
				if fe.Field != "effect" {
					t.Fatalf("%q: Parse accepted what Validate rejects: %v", s, fe)
				}
			}
		}
	})
}
