package nodeclass

import (
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// The userData rules whose docs examples are Custom classes with an alias
// (the catalogue test of internal/userdata/lint reads only examples
// without selector terms): Bad triggers the rule offline, Good does not.
func TestCustomAliasDocsExamples(t *testing.T) {
	for _, id := range []string{"mime-unterminated"} {
		r := rules.Lookup(id)
		if r == nil {
			t.Fatalf("%s not registered", id)
		}
		t.Run(id, func(t *testing.T) {
			bad, kv, _ := decodeClass(t, r.Bad)
			if fs := Validate(bad, kv); len(fs.ByRule(id)) == 0 {
				t.Errorf("Bad example does not trigger %s: %v\n%s", id, fs, r.Bad)
			}
			good, kv, _ := decodeClass(t, r.Good)
			if fs := Validate(good, kv); fs.HasErrors() {
				t.Errorf("Good example has errors: %v\n%s", fs, r.Good)
			}
		})
	}
}

// Karpenter's Custom family with a bottlerocket alias and a shell script
// calling bootstrap.sh: the images read only TOML, whatever amiFamily
// says, so the node never joins. With an al2023 alias the same script is
// bootstrap.sh on AL2023 (exits 1); with an al2 alias it is fine.
func TestCustomUserDataOnAliasImages(t *testing.T) {
	script := "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"BOUNDARY\"\n\n--BOUNDARY\nContent-Type: text/x-shellscript; charset=\"us-ascii\"\n\n#!/bin/bash\n/etc/eks/bootstrap.sh demo --apiserver-endpoint https://x.eks.amazonaws.com --b64-cluster-ca Y2E= --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n\n--BOUNDARY\n"
	for alias, want := range map[string]string{"bottlerocket@latest": "settings TOML", "al2023@latest": "exits 1", "al2@latest": ""} {
		t.Run(alias, func(t *testing.T) {
			c := Class{Family: "Custom"}
			c.Terms = append(c.Terms, ami.Term{Alias: alias})
			c.Spec.UserData = &script
			fs := validateUserData(c, versions.DefaultKarpenter)
			got := fs.ByRule("image-family-mismatch")
			switch {
			case want == "" && len(got) > 0:
				t.Errorf("%s: %v", alias, got)
			case want != "" && (len(got) != 1 || got[0].Severity != rules.Error || !strings.Contains(got[0].Detail, want) || !strings.Contains(got[0].Detail, alias)):
				t.Errorf("%s: want one error saying %q, got %v", alias, want, fs)
			}
		})
	}
}
