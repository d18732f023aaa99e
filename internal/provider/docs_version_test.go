package provider

import (
	"os"
	"regexp"
	"testing"

	"github.com/hashicorp/go-version"
)

// The version constraint of the documentation's required_providers admits
// the version `make install-mirror` builds, so the page works against a
// local build as it is written.
func TestIndexVersionConstraintAdmitsTheLocalBuild(t *testing.T) {
	mk, err := os.ReadFile("../../GNUmakefile")
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile("../../templates/index.md.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	local := regexp.MustCompile(`(?m)^LOCAL_VERSION \?= (\S+)$`).FindSubmatch(mk)
	constraint := regexp.MustCompile(`(?m)^\s+version = "([^"]+)"`).FindSubmatch(page)
	if local == nil || constraint == nil {
		t.Fatalf("LOCAL_VERSION %q, constraint %q", local, constraint)
	}
	c, err := version.NewConstraint(string(constraint[1]))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{string(local[1]), "0.1.0", "0.9.3"} {
		if !c.Check(version.Must(version.NewVersion(v))) {
			t.Errorf("%q does not admit %s", constraint[1], v)
		}
	}
}
