package nodepool

import (
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

func TestLocatePointsAtTheFamilyRequirement(t *testing.T) {
	p := Pool{Unknown: rules.Unknowns{}, Empty: PathSet{}}
	p.Manifest.Spec.Template.Spec.Requirements = []manifest.Requirement{
		{Key: "karpenter.sh/capacity-type", Operator: "In", Values: []string{"spot"}},
		{Key: "kubernetes.io/arch", Operator: "In", Values: []string{"arm64"}},
		{Key: "karpenter.k8s.aws/instance-family", Operator: "In", Values: []string{"g5g"}},
	}
	fs := rules.Findings{
		rules.New(ruleArm64GPU, pathRequirements, "x"),
		rules.New(ruleArm64GPU, pathRequirements.Index(0).Attr("values"), "y"),
	}
	got := Locate(p, fs)
	if got[0].Path.String() != "requirements[2].values" || got[1].Path.String() != "requirements[0].values" {
		t.Fatalf("paths: %s, %s", got[0].Path, got[1].Path)
	}
	if fs[0].Path.String() != "requirements" {
		t.Fatal("Locate must not change its input")
	}
	// Without a family requirement, the architecture one.
	p.Manifest.Spec.Template.Spec.Requirements = p.Manifest.Spec.Template.Spec.Requirements[:2]
	if got := Locate(p, fs); got[0].Path.String() != "requirements[1].values" {
		t.Fatalf("arch: %s", got[0].Path)
	}
	// Nothing to point at: the list.
	p.Manifest.Spec.Template.Spec.Requirements = nil
	if got := Locate(p, fs); got[0].Path.String() != "requirements" {
		t.Fatalf("none: %s", got[0].Path)
	}
}
