package suggest

import "testing"

func TestClosest(t *testing.T) {
	labels := []string{"kubernetes.io/arch", "topology.kubernetes.io/zone", "karpenter.sh/capacity-type", "kubernetes.io/os"}
	for _, c := range []struct{ in, want string }{
		{"kubernetes.io/archh", "kubernetes.io/arch"},
		{"topology.kubernetes.io/zon", "topology.kubernetes.io/zone"},
		{"Karpenter.sh/Capacity-Type", "karpenter.sh/capacity-type"},
		{"kubernetes.io/arch", ""}, // exact: nothing to suggest
		{"example.com/team", ""},   // not a typo of anything
		{"alias-latest-drfit", ""}, // no candidate close enough in this list
		{"", ""},
	} {
		if got := Closest(c.in, labels); got != c.want {
			t.Errorf("Closest(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := Hint("alias-latest-drfit", []string{"alias-latest-drift", "alias-format"}); got != ` (did you mean "alias-latest-drift"?)` {
		t.Errorf("Hint = %q", got)
	}
}

func TestDistance(t *testing.T) {
	if d := Distance("karpenter.sh/unregisterd", "karpenter.sh/unregistered"); d != 1 {
		t.Fatalf("distance %d, want 1", d)
	}
	if d := Distance("Taint", "taint"); d != 1 {
		t.Fatalf("case-sensitive: %d", d)
	}
}
