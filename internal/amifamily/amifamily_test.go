package amifamily

import (
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

func TestFamilies(t *testing.T) {
	if f, ok := Parse("AL2023"); !ok || f != AL2023 {
		t.Fatal("AL2023")
	}
	if _, ok := Parse("al2023"); ok {
		t.Fatal("the enum is case-sensitive")
	}
	if _, err := ParseError("Ubuntu"); err == nil {
		t.Fatal("Ubuntu is gone since 1.0")
	}
	if Windows2025.AvailableIn(versions.Karpenter{Minor: 8, Patch: -1}) || !Windows2025.AvailableIn(versions.DefaultKarpenter) {
		t.Fatal("Windows2025 arrived in 1.9")
	}
	if Windows2022.Model().OS() != "windows" || Custom.Model().OS() != "linux" || Windows2019.Model().WindowsBuild() != "10.0.17763" || Bottlerocket.AliasName() != "bottlerocket" {
		t.Fatal("family facts")
	}
	for _, f := range Families {
		if f.Model().Family() != f {
			t.Errorf("%s's model says it is %s", f, f.Model().Family())
		}
	}
	if m := Family("").Model(); m.Format() != "" || !m.KarpenterBootstraps() || m.AliasName() != "" || m.DefaultBlockDevices() != nil {
		t.Error("an unknown family must not answer as Custom or any other family")
	}
}
