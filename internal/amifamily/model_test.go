package amifamily

import (
	"slices"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// TestArm64GPUGapFollowsTheParameters: the arm64 GPU gap a family reports is
// exactly the absence of an arm64 NVIDIA parameter among those Karpenter
// reads for its alias, at every release, so the fact is stated once.
func TestArm64GPUGapFollowsTheParameters(t *testing.T) {
	k8s := versions.Kubernetes{Minor: 32}
	for _, f := range AliasFamilies() {
		m := f.Model()
		if !m.SupportsArch("arm64") {
			continue
		}
		for minor := versions.MinKarpenterMinor; minor <= versions.MaxKarpenterMinor; minor++ {
			kv := versions.Karpenter{Minor: minor, Patch: -1}
			ps, refusal := m.SSMParameters(LatestVersion, k8s, kv)
			if refusal != nil {
				t.Fatalf("%s on 1.32: %s", f, refusal.Detail)
			}
			has := slices.ContainsFunc(ps, func(p Parameter) bool { return p.Arch == "arm64" && slices.Contains(p.Variants, NVIDIA) })
			if gap := m.Arm64GPUGap(kv); has == (gap != "") {
				t.Errorf("%s at Karpenter %s: arm64 nvidia parameter %v, gap %q", f, kv, has, gap)
			}
		}
	}
}

// TestNeuronGapFollowsTheParameters: the same for Neuron on Bottlerocket
// from 1.1 (1.0 gave Neuron the NVIDIA image, still no Neuron driver).
func TestNeuronGapFollowsTheParameters(t *testing.T) {
	k8s := versions.Kubernetes{Minor: 32}
	for _, f := range AliasFamilies() {
		m := f.Model()
		for minor := 1; minor <= versions.MaxKarpenterMinor; minor++ {
			kv := versions.Karpenter{Minor: minor, Patch: -1}
			ps, refusal := m.SSMParameters(LatestVersion, k8s, kv)
			if refusal != nil { // Windows2025: Kubernetes 1.35
				ps, _ = m.SSMParameters(LatestVersion, versions.Kubernetes{Minor: 35}, kv)
			}
			has := slices.ContainsFunc(ps, func(p Parameter) bool { return p.Variants == nil || slices.Contains(p.Variants, Neuron) })
			if gap := m.NeuronGap(kv); has == (gap != "") {
				t.Errorf("%s at Karpenter %s: neuron parameter %v, gap %q", f, kv, has, gap)
			}
		}
	}
}

func TestRefusals(t *testing.T) {
	kv := versions.DefaultKarpenter
	if _, r := AL2.Model().SSMParameters(LatestVersion, versions.Kubernetes{Minor: 33}, kv); r == nil || !r.TooNew {
		t.Error("AL2 is refused from Kubernetes 1.33")
	}
	if _, r := Windows2025.Model().SSMParameters(LatestVersion, versions.Kubernetes{Minor: 34}, kv); r == nil || r.TooNew {
		t.Error("Windows2025 needs Kubernetes 1.35")
	}
	if _, r := Windows2025.Model().SSMParameters(LatestVersion, versions.Kubernetes{Minor: 35}, kv); r != nil {
		t.Error("Windows2025 on 1.35")
	}
}

func TestOfClass(t *testing.T) {
	for _, c := range []struct {
		family, alias string
		want          Family
		ok            bool
	}{
		{"", "", Custom, true},
		{"", "al2023", AL2023, true},
		{"", "AL2023", "", false},
		{"Bottlerocket", "al2023", Bottlerocket, true},
		{"", "windows2025", Windows2025, true},
	} {
		if got, ok := OfClass(c.family, c.alias); got != c.want || ok != c.ok {
			t.Errorf("OfClass(%q, %q) = %q, %v", c.family, c.alias, got, ok)
		}
	}
}

func TestFromImage(t *testing.T) {
	g, ok := FromImage("windows", "Windows_Server-2022-English-Core-EKS_Optimized-1.32", "")
	if !ok || !g.Sure || !g.Reads(Windows2019) || g.Reads(AL2) || g.Fix != Windows2022 || g.Linted() {
		t.Errorf("windows: %+v", g)
	}
	g, ok = FromImage("", "my-al2023-image", "")
	if !ok || g.Sure || !g.Reads(AL2023) || g.Reads(AL2) {
		t.Errorf("al2023 by word: %+v", g)
	}
	if _, ok := FromImage("", "ubuntu-eks", ""); ok {
		t.Error("no hint")
	}
}
