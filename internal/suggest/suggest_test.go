package suggest

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

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

func TestClosestName(t *testing.T) {
	args := []string{"type", "min_generation", "consolidate_after", "families"}
	for _, c := range []struct{ in, want string }{
		{"tpye", "type"}, {"minGeneration", "min_generation"}, {"consolidateAfter", "consolidate_after"},
		{"familes", "families"}, {"Families", "families"}, {"type", ""}, {"categories", ""},
	} {
		if got := ClosestName(c.in, args); got != c.want {
			t.Errorf("ClosestName(%q) = %q, want %q", c.in, got, c.want)
		}
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

func TestUndeclaredKeys(t *testing.T) {
	pool := map[string]any{
		"families": "list", "weight": "number",
		"taints":     []any{map[string]any{"key": "", "value": "", "effect": ""}},
		"disruption": map[string]any{"consolidate_after": "", "budgets": []any{map[string]any{"nodes": "", "reasons": ""}}},
	}
	pools := map[string]any{Wildcard: pool}
	value := map[string]any{
		"gpu": map[string]any{
			"familes": []any{"g5"}, "weight": 10,
			"taints":     []any{map[string]any{"key": "k", "efect": "NoSchedule"}},
			"disruption": map[string]any{"consolidateAfter": "1m", "budgets": []any{map[string]any{"nodes": "1", "reason": []any{"Empty"}}}},
		},
		"general": map[string]any{"families": []any{"m5"}, "minGeneration": 5, "labels": nil},
		"odd":     "not an object", // a type error, not a key
	}
	var got []string
	for _, u := range UndeclaredKeys(value, pools) {
		got = append(got, u.String())
	}
	want := []string{
		`["general"].labels (the keys here are disruption, families, taints, weight)`,
		`["general"].minGeneration (the keys here are disruption, families, taints, weight)`,
		`["gpu"].disruption.budgets[0].reason (did you mean "reasons"?)`,
		`["gpu"].disruption.consolidateAfter (did you mean "consolidate_after"?)`,
		`["gpu"].familes (did you mean "families"?)`,
		`["gpu"].taints[0].efect (did you mean "effect"?)`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if u := UndeclaredKeys(map[string]any{"example.com/x": 1}, map[string]any{"a": ""}); len(u) != 1 || u[0].Path != `["example.com/x"]` {
		t.Errorf("a key that is no identifier: %v", u)
	}
	for _, v := range []any{nil, "x", []any{1}, map[string]any{}} {
		if u := UndeclaredKeys(v, pools); len(u) != 0 {
			t.Errorf("%v: %v", v, u)
		}
	}
}

// FuzzUndeclaredKeys: any JSON value against any JSON shape never panics,
// and every key reported is one the shape does not declare there, reported
// once.
func FuzzUndeclaredKeys(f *testing.F) {
	f.Add(`{"gpu":{"familes":["g5"],"taints":[{"efect":"x"}]}}`, `{"*":{"families":null,"taints":[{"effect":null}]}}`)
	f.Add(`[{"a":1},{"b":2}]`, `[{"a":null}]`)
	f.Add(`{"*":1}`, `{"*":{"*":null}}`)
	f.Add(`null`, `[]`)
	f.Fuzz(func(t *testing.T, value, shape string) {
		var v, s any
		if json.Unmarshal([]byte(value), &v) != nil || json.Unmarshal([]byte(shape), &s) != nil {
			return
		}
		seen := map[string]bool{}
		for _, u := range UndeclaredKeys(v, s) {
			if seen[u.Path] {
				t.Fatalf("%s reported twice", u.Path)
			}
			seen[u.Path] = true
			if u.Meant != "" && !slices.Contains(u.Declared, u.Meant) {
				t.Fatalf("%s: meant %q is not declared %v", u.Path, u.Meant, u.Declared)
			}
		}
	})
}
