package provider

import (
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/migration"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// Every tombstone attribute has its advice in HCL, names itself, and says
// so when its value is not known yet.
func TestTombstonesAreComplete(t *testing.T) {
	n := 0
	for _, f := range migration.Fields() {
		if f.Attr.IsEmpty() {
			continue
		}
		n++
		if tombstoneAdvice[f.Attr.String()] == nil {
			t.Fatalf("%s: no HCL advice", f.Attr)
		}
		fd := tombstoneFinding(f, f.Attr, `"x"`)
		if fd.Path.String() != f.Attr.String() || !strings.Contains(fd.Detail, f.Attr.String()) || fd.Severity != rules.Error {
			t.Errorf("%s: %v", f.Attr, fd)
		}
		if !strings.Contains(tombstoneFinding(f, f.Attr, "").Detail, "known at apply") {
			t.Errorf("%s: an unknown value is not described", f.Attr)
		}
	}
	if n != len(tombstoneAdvice) {
		t.Errorf("%d tombstones, %d advices", n, len(tombstoneAdvice))
	}
}
