package versions

import (
	"strings"
	"testing"
)

func TestParseKarpenter(t *testing.T) {
	cases := []struct {
		in      string
		want    string
		wantErr bool
	}{
		{"1.14", "1.14", false},
		{"1.4.0", "1.4.0", false},
		{"v1.3.2", "1.3.2", false},
		{"1.0", "1.0", false},
		{"1.15", "", true},
		{"2.0", "", true},
		{"latest", "", true},
		{"", "", true},
	}
	for _, c := range cases {
		v, err := ParseKarpenter(c.in)
		if (err != nil) != c.wantErr {
			t.Fatalf("ParseKarpenter(%q) error = %v, wantErr %v", c.in, err, c.wantErr)
		}
		if err == nil && v.String() != c.want {
			t.Errorf("ParseKarpenter(%q) = %s, want %s", c.in, v, c.want)
		}
	}
}

func TestKarpenterAtLeast(t *testing.T) {
	v, _ := ParseKarpenter("1.2")
	// 1.2 without a patch is read as 1.2.0: the fix of 1.2.2 is not assumed.
	if v.AtLeast(2, 2) {
		t.Error("1.2 must not count as at least 1.2.2")
	}
	if !v.AtLeast(2, 0) || !v.AtLeast(1, 9) || v.AtLeast(3, 0) {
		t.Error("minor comparison wrong")
	}
	v, _ = ParseKarpenter("1.2.3")
	if !v.AtLeast(2, 2) {
		t.Error("1.2.3 is at least 1.2.2")
	}
}

func TestParseKubernetes(t *testing.T) {
	for in, want := range map[string]int{"1.32": 32, "1.33.1": 33, "v1.30.4-eks-a737599": 30} {
		v, err := ParseKubernetes(in)
		if err != nil || v.Minor != want {
			t.Errorf("ParseKubernetes(%q) = %v, %v; want minor %d", in, v, err, want)
		}
	}
	for _, in := range []string{"", "1", "1.x", "2.1", "132"} {
		if _, err := ParseKubernetes(in); err == nil {
			t.Errorf("ParseKubernetes(%q) should fail", in)
		}
	}
	if v, _ := ParseKubernetes("1.25"); v.SupportedByKarpenter() {
		t.Error("1.25 is below Karpenter's minimum")
	}
}

// A pre-v1 release is named as one, with the way to v1; a release tag
// ("v1.14.1") is the same release as "1.14.1".
func TestParseKarpenterPreV1AndTags(t *testing.T) {
	for _, s := range []string{"0.37", "v0.37.0", "0.32.1"} {
		_, err := ParseKarpenter(s)
		if err == nil || !strings.Contains(err.Error(), "is a pre-v1 release") || !strings.Contains(err.Error(), V1MigrationURL) ||
			strings.Contains(err.Error(), "is not a Karpenter version") {
			t.Errorf("ParseKarpenter(%q): %v", s, err)
		}
	}
	v, err := ParseKarpenter("v1.14.1")
	if err != nil || v != (Karpenter{Minor: 14, Patch: 1}) || v.String() != "1.14.1" {
		t.Errorf("v1.14.1: %v, %v", v, err)
	}
}
