package ami

import (
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// FuzzParseAlias feeds arbitrary aliases, Karpenter and Kubernetes versions
// to the alias parser and the SSM path builder. Neither may panic; findings
// name a rule, the path and a detail; an accepted alias is within the CRD's
// limits, prints back as it was written, and every SSM parameter it maps to
// is an absolute path that embeds the Kubernetes minor and the version.
//
//	go test ./internal/ami -run '^$' -fuzz FuzzParseAlias -fuzztime 60s
func FuzzParseAlias(f *testing.F) {
	for _, s := range []string{
		"al2023@latest", "al2023@v20251209", "al2@v20251209", "al2@latest", "bottlerocket@1.51.0",
		"bottlerocket@v1.51.0-47438798", "windows2019@latest", "windows2022@latest", "windows2025@latest",
		"windows2022@v1", "AL2023@latest", "al2023@20251209", "al2023@v20251209@x", "al2023", "@latest",
		"al2023@", "x@y", "al2023@" + strings.Repeat("9", 40), "al2023@v2025120\n9", "al2023@../../x",
	} {
		f.Add(s, 14, 32)
	}
	f.Add("windows2025@latest", 8, 35)
	f.Add("al2@latest", 0, 33)
	f.Fuzz(func(t *testing.T, s string, karpenterMinor, k8sMinor int) {
		kv := versions.Karpenter{Minor: ((karpenterMinor % 15) + 15) % 15, Patch: -1}
		k := versions.Kubernetes{Minor: ((k8sMinor % 40) + 40) % 40}
		p := rules.Root("ami_selector_terms").Index(0).Attr("alias")
		a, fs := ParseAlias(s, kv, p)
		for _, fi := range fs {
			if fi.Rule == nil || fi.Detail == "" || fi.Path.String() != p.String() {
				t.Fatalf("malformed finding %+v", fi)
			}
		}
		if fs.HasErrors() {
			if a != (Alias{}) {
				t.Fatalf("%q: an alias (%v) despite errors %v", s, a, fs)
			}
			return
		}
		if len(s) > maxAliasLength || strings.Count(s, "@") != 1 {
			t.Fatalf("%q accepted", s)
		}
		if a.String() != s {
			t.Fatalf("%q parsed to %q", s, a.String())
		}
		qs, sfs := SSMParameters(a, k, kv, p)
		for _, fi := range sfs {
			if fi.Rule == nil || fi.Detail == "" {
				t.Fatalf("malformed finding %+v", fi)
			}
		}
		for _, q := range qs {
			if !strings.HasPrefix(q.Name, "/aws/service/") || !strings.Contains(q.Name, k.String()) {
				t.Fatalf("%q on %s: parameter %q", s, k, q.Name)
			}
			if !a.Latest() && !strings.Contains(q.Name, strings.TrimPrefix(a.Version, "v")) {
				t.Fatalf("%q: parameter %q does not embed the version", s, q.Name)
			}
			if q.Arch != "amd64" && q.Arch != "arm64" {
				t.Fatalf("%q: parameter %q for architecture %q", s, q.Name, q.Arch)
			}
		}
	})
}
