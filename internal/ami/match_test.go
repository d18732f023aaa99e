package ami

import (
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
)

func TestCompatibleIsStrict(t *testing.T) {
	nvidia := []Requirement{{Key: LabelArch, Operator: OpIn, Values: []string{"arm64"}}, {Key: LabelGPUCount, Operator: OpExists}}
	standard := []Requirement{{Key: LabelArch, Operator: OpIn, Values: []string{"arm64"}}, {Key: LabelAcceleratorCount, Operator: OpDoesNotExist}, {Key: LabelGPUCount, Operator: OpDoesNotExist}}
	g5g := Instance{Name: "g5g.xlarge", Architecture: "arm64", GPUCount: 1, GPUManufacturer: "nvidia", GPUName: "t4g"}
	m6g := Instance{Name: "m6g.large", Architecture: "arm64"}
	if !Compatible(nvidia, g5g.Labels(amifamily.AL2023)) || Compatible(standard, g5g.Labels(amifamily.AL2023)) {
		t.Fatal("g5g must match nvidia only")
	}
	// Strict: a type without a GPU does not satisfy gpu-count Exists (the lenient
	// matching of #7925 would have let it through).
	if Compatible(nvidia, m6g.Labels(amifamily.AL2023)) || !Compatible(standard, m6g.Labels(amifamily.AL2023)) {
		t.Fatal("m6g must match standard only")
	}
	win := []Requirement{{Key: LabelArch, Operator: OpIn, Values: []string{"amd64"}}, {Key: LabelOS, Operator: OpIn, Values: []string{"windows"}}, {Key: LabelWindowsBuild, Operator: OpIn, Values: []string{"10.0.20348"}}}
	m5 := Instance{Name: "m5.large", Architecture: "amd64"}
	if !Compatible(win, m5.Labels(amifamily.Windows2022)) || Compatible(win, m5.Labels(amifamily.Windows2019)) || Compatible(win, m5.Labels(amifamily.AL2023)) {
		t.Fatal("windows build/os matching")
	}
	if got := g5g.String(); got != "g5g.xlarge (arm64, 1 NVIDIA t4g)" {
		t.Fatal(got)
	}
}

func TestForInstanceArm64GPUOnAL2(t *testing.T) {
	res := Result{Alias: &Alias{Family: amifamily.AL2, Version: "latest"}, AMIs: []AMI{
		{ID: "ami-gpu", Requirements: withArch(variantRequirements(amifamily.NVIDIA, kv("1.14")), "amd64")},
		{ID: "ami-arm", Requirements: withArch(variantRequirements(amifamily.Standard, kv("1.14")), "arm64")},
	}}
	g5g := Instance{Name: "g5g.xlarge", Architecture: "arm64", GPUCount: 1, GPUManufacturer: "nvidia", GPUName: "t4g"}
	_, fs := ForInstance(res, g5g, Mapping{Family: amifamily.AL2, Kubernetes: k8s("1.32"), Karpenter: kv("1.14")})
	got := fs.ByRule(RuleArm64GPU.ID)
	want := `AL2 publishes no arm64 NVIDIA image; g5g.xlarge (arm64, 1 NVIDIA t4g) cannot start with alias al2@latest (Karpenter: "no instance types satisfy requirements of amis [ami-gpu ami-arm]"). Use "al2023@latest" (arm64 nvidia, EKS AMI ≥ v20250403, Karpenter ≥ 1.4) or "bottlerocket@latest" (aws-k8s-1.32-nvidia, arm64).`
	if len(got) != 1 || got[0].Detail != want {
		t.Fatalf("got %v\nwant %s", fs, want)
	}
	res.Alias = &Alias{Family: amifamily.AL2023, Version: "latest"}
	_, fs = ForInstance(res, g5g, Mapping{Family: amifamily.AL2023, Kubernetes: k8s("1.32"), Karpenter: kv("1.3")})
	if got := fs.ByRule(RuleArm64GPU.ID); len(got) != 1 || !strings.Contains(got[0].Detail, "Karpenter 1.3 does not query") {
		t.Fatalf("AL2023 before 1.4: %v", fs)
	}
}
