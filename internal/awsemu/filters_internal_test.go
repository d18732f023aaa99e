package awsemu

import (
	"net/url"
	"testing"
)

func TestWildcardMatch(t *testing.T) {
	for _, tc := range []struct {
		pattern, s string
		want       bool
	}{
		{"", "", true},
		{"", "a", false},
		{"*", "", true},
		{"*", "anything", true},
		{"a*", "abc", true},
		{"a*c", "abbbc", true},
		{"a*c", "abbbd", false},
		{"*-1.32-*", "amazon-eks-node-1.32-v20251209", true},
		{"a?c", "abc", true},
		{"a?c", "ac", false},
		{"a??", "abc", true},
		{"*a*b*", "xxaxxbxx", true},
		{"*a*b*", "xxbxxaxx", false},
		{"ABC", "abc", false}, // case-sensitive
		{`a\*c`, "a*c", true}, // escaped star is literal
		{`a\*c`, "abc", false},
		{`a\?c`, "a?c", true},
		{`a\\c`, `a\c`, true},
		{"**", "x", true},
		{"é?", "éa", true}, // runes, not bytes
	} {
		if got := wildcardMatch(tc.pattern, tc.s); got != tc.want {
			t.Errorf("wildcardMatch(%q, %q) = %v, want %v", tc.pattern, tc.s, got, tc.want)
		}
	}
}

func TestParseFilters(t *testing.T) {
	form := url.Values{
		"Filter.2.Name":    {"b"},
		"Filter.2.Value.2": {"b2"},
		"Filter.2.Value.1": {"b1"},
		"Filter.10.Name":   {"c"},
		"Filter.1.Name":    {"a"},
		"Filter.1.Value.1": {"a1"},
	}
	fs, err := parseFilters(form)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 3 || fs[0].name != "a" || fs[1].name != "b" || fs[1].values[0] != "b1" || fs[1].values[1] != "b2" ||
		fs[2].name != "c" || len(fs[2].values) != 0 {
		t.Errorf("parsed %+v", fs)
	}
	if fs[2].matchAny([]string{"x"}) {
		t.Error("a filter without values must match nothing")
	}
	if _, err := parseFilters(url.Values{"Filter.1.Value.1": {"x"}}); err == nil {
		t.Error("a filter without a name must be an error")
	}
}

func TestPageTokens(t *testing.T) {
	form := url.Values{"Action": {"DescribeImages"}, "MaxResults": {"10"}}
	pr, err := parsePageRequest(form, 5, 1000)
	if err != nil {
		t.Fatal(err)
	}
	start, end, next, err := pr.page(25, 0)
	if err != nil || start != 0 || end != 10 || next == "" {
		t.Fatalf("page 1: %d %d %q %v", start, end, next, err)
	}
	form.Set("NextToken", next)
	form.Set("MaxResults", "20") // changing the page size keeps the position
	pr, _ = parsePageRequest(form, 5, 1000)
	start, end, next, err = pr.page(25, 0)
	if err != nil || start != 10 || end != 25 || next != "" {
		t.Fatalf("page 2: %d %d %q %v", start, end, next, err)
	}
	form.Set("Owner.1", "self") // a different query
	pr, _ = parsePageRequest(form, 5, 1000)
	if _, _, _, err := pr.page(25, 0); err == nil || err.code != "InvalidPaginationToken" {
		t.Errorf("token of another query accepted: %v", err)
	}
}
