package ami

import (
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

func kv(s string) versions.Karpenter {
	v, err := versions.ParseKarpenter(s)
	if err != nil {
		panic(err)
	}
	return v
}

func k8s(s string) versions.Kubernetes {
	v, err := versions.ParseKubernetes(s)
	if err != nil {
		panic(err)
	}
	return v
}

func TestParseAlias(t *testing.T) {
	cases := []struct {
		alias    string
		karp     string
		wantRule string // "" = valid without findings
		wantSev  rules.Severity
		family   amifamily.Family
		contains string
	}{
		{"al2023@latest", "1.14", "", 0, amifamily.AL2023, ""},
		{"al2@v20251209", "1.14", "", 0, amifamily.AL2, ""},
		{"bottlerocket@1.51.0", "1.14", "", 0, amifamily.Bottlerocket, ""},
		{"bottlerocket@v1.51.0-47438798", "1.14", "", 0, amifamily.Bottlerocket, ""},
		{"windows2022@latest", "1.14", "", 0, amifamily.Windows2022, ""},
		{"windows2025@latest", "1.9", "", 0, amifamily.Windows2025, ""},
		{"windows2025@latest", "1.8", RuleAliasFamily.ID, rules.Error, "", "needs Karpenter 1.9"},
		{"AL2023@latest", "1.14", RuleAliasFamily.ID, rules.Error, "", `write "al2023"`},
		{"ubuntu@latest", "1.14", RuleAliasFamily.ID, rules.Error, "", "family is not supported"},
		{"al2023-latest", "1.14", RuleAliasFormat.ID, rules.Error, "", "improperly formatted"},
		{"al2023@", "1.14", RuleAliasFormat.ID, rules.Error, "", "improperly formatted"},
		{"al2023@v20251209@x", "1.14", RuleAliasMultipleAt.ID, rules.Error, "", "log.Fatalf"},
		{"bottlerocket@1.51.0-47438798-extra-long", "1.14", RuleAliasFormat.ID, rules.Error, "", "at most 30"},
		{"windows2022@2025.11.12", "1.14", RuleAliasWindowsVersion.ID, rules.Error, "", "only specify version 'latest'"},
		{"al2023@20251209", "1.14", RuleAliasVersionShape.ID, rules.Warning, amifamily.AL2023, `"v20251209" (with the leading v)`},
		{"bottlerocket@1.51", "1.14", RuleAliasVersionShape.ID, rules.Warning, amifamily.Bottlerocket, "x.y.z"},
	}
	for _, c := range cases {
		a, fs := ParseAlias(c.alias, kv(c.karp), rules.Root("alias"))
		if c.wantRule == "" {
			if len(fs) > 0 || a.Family != c.family {
				t.Errorf("%s: got %v %v", c.alias, a, fs)
			}
			continue
		}
		got := fs.ByRule(c.wantRule)
		if len(got) != 1 || got[0].Severity != c.wantSev || !strings.Contains(got[0].Detail, c.contains) {
			t.Errorf("%s (karpenter %s): want one %s %s containing %q, got %v", c.alias, c.karp, c.wantSev, c.wantRule, c.contains, fs)
		}
		if a.Family != c.family {
			t.Errorf("%s: family %q, want %q", c.alias, a.Family, c.family)
		}
		if got[0].Path.String() != "alias" {
			t.Errorf("%s: path %s", c.alias, got[0].Path)
		}
	}
}

func TestSSMParameters(t *testing.T) {
	type want map[string]string
	cases := []struct {
		alias, k8s, karp string
		want             want
		rule             string
	}{
		{"al2023@latest", "1.32", "1.14", want{
			"amd64/standard": "/aws/service/eks/optimized-ami/1.32/amazon-linux-2023/x86_64/standard/recommended/image_id",
			"amd64/nvidia":   "/aws/service/eks/optimized-ami/1.32/amazon-linux-2023/x86_64/nvidia/recommended/image_id",
			"amd64/neuron":   "/aws/service/eks/optimized-ami/1.32/amazon-linux-2023/x86_64/neuron/recommended/image_id",
			"arm64/standard": "/aws/service/eks/optimized-ami/1.32/amazon-linux-2023/arm64/standard/recommended/image_id",
			"arm64/nvidia":   "/aws/service/eks/optimized-ami/1.32/amazon-linux-2023/arm64/nvidia/recommended/image_id",
		}, ""},
		// arm64 nvidia is only queried from Karpenter 1.4.
		{"al2023@v20251209", "1.32", "1.3", want{
			"amd64/standard": "/aws/service/eks/optimized-ami/1.32/amazon-linux-2023/x86_64/standard/amazon-eks-node-al2023-x86_64-standard-1.32-v20251209/image_id",
			"amd64/nvidia":   "/aws/service/eks/optimized-ami/1.32/amazon-linux-2023/x86_64/nvidia/amazon-eks-node-al2023-x86_64-nvidia-1.32-v20251209/image_id",
			"amd64/neuron":   "/aws/service/eks/optimized-ami/1.32/amazon-linux-2023/x86_64/neuron/amazon-eks-node-al2023-x86_64-neuron-1.32-v20251209/image_id",
			"arm64/standard": "/aws/service/eks/optimized-ami/1.32/amazon-linux-2023/arm64/standard/amazon-eks-node-al2023-arm64-standard-1.32-v20251209/image_id",
		}, ""},
		{"al2@v20251209", "1.31", "1.14", want{
			"amd64/standard": "/aws/service/eks/optimized-ami/1.31/amazon-linux-2/amazon-eks-node-1.31-v20251209/image_id",
			"arm64/standard": "/aws/service/eks/optimized-ami/1.31/amazon-linux-2-arm64/amazon-eks-arm64-node-1.31-v20251209/image_id",
			"amd64/nvidia":   "/aws/service/eks/optimized-ami/1.31/amazon-linux-2-gpu/amazon-eks-gpu-node-1.31-v20251209/image_id",
			"amd64/neuron":   "/aws/service/eks/optimized-ami/1.31/amazon-linux-2-gpu/amazon-eks-gpu-node-1.31-v20251209/image_id",
		}, ""},
		{"al2@latest", "1.33", "1.14", nil, RuleAL2Kubernetes.ID},
		// Leading v trimmed; neuron on the standard x86_64 image from 1.3.
		{"bottlerocket@v1.51.0", "1.32", "1.14", want{
			"amd64/standard": "/aws/service/bottlerocket/aws-k8s-1.32/x86_64/1.51.0/image_id",
			"amd64/neuron":   "/aws/service/bottlerocket/aws-k8s-1.32/x86_64/1.51.0/image_id",
			"arm64/standard": "/aws/service/bottlerocket/aws-k8s-1.32/arm64/1.51.0/image_id",
			"amd64/nvidia":   "/aws/service/bottlerocket/aws-k8s-1.32-nvidia/x86_64/1.51.0/image_id",
			"arm64/nvidia":   "/aws/service/bottlerocket/aws-k8s-1.32-nvidia/arm64/1.51.0/image_id",
		}, ""},
		// 1.1-1.2: no neuron at all.
		{"bottlerocket@latest", "1.32", "1.2", want{
			"amd64/standard": "/aws/service/bottlerocket/aws-k8s-1.32/x86_64/latest/image_id",
			"arm64/standard": "/aws/service/bottlerocket/aws-k8s-1.32/arm64/latest/image_id",
			"amd64/nvidia":   "/aws/service/bottlerocket/aws-k8s-1.32-nvidia/x86_64/latest/image_id",
			"arm64/nvidia":   "/aws/service/bottlerocket/aws-k8s-1.32-nvidia/arm64/latest/image_id",
		}, ""},
		{"windows2022@latest", "1.32", "1.14", want{
			"amd64/standard": "/aws/service/ami-windows-latest/Windows_Server-2022-English-Core-EKS_Optimized-1.32/image_id",
			"amd64/nvidia":   "/aws/service/ami-windows-latest/Windows_Server-2022-English-Core-EKS_Optimized-1.32/image_id",
			"amd64/neuron":   "/aws/service/ami-windows-latest/Windows_Server-2022-English-Core-EKS_Optimized-1.32/image_id",
		}, ""},
		{"windows2025@latest", "1.32", "1.14", nil, RuleWindows2025Kubernetes.ID},
	}
	for _, c := range cases {
		a, fs := ParseAlias(c.alias, kv(c.karp), rules.Path{})
		if fs.HasErrors() {
			t.Fatalf("%s: %v", c.alias, fs)
		}
		qs, fs := SSMParameters(a, k8s(c.k8s), kv(c.karp), rules.Root("alias"))
		if c.rule != "" {
			if len(fs.ByRule(c.rule)) != 1 || qs != nil {
				t.Errorf("%s on %s: want %s, got %v", c.alias, c.k8s, c.rule, fs)
			}
			continue
		}
		got := ParameterMap(qs)
		if len(got) != len(c.want) {
			t.Errorf("%s on %s (karpenter %s): got %d keys %v, want %d", c.alias, c.k8s, c.karp, len(got), got, len(c.want))
		}
		for k, v := range c.want {
			if got[k] != v {
				t.Errorf("%s on %s: %s = %q, want %q", c.alias, c.k8s, k, got[k], v)
			}
		}
	}
}

func TestVariantRequirementsSwappedBefore103(t *testing.T) {
	n := variantRequirements(amifamily.NVIDIA, kv("1.0.2"))
	if len(n) != 1 || n[0].Key != LabelAcceleratorCount {
		t.Fatalf("1.0.2 nvidia should carry accelerator-count (PR #6976): %v", n)
	}
	n = variantRequirements(amifamily.NVIDIA, kv("1.0.3"))
	if n[0].Key != LabelGPUCount {
		t.Fatalf("1.0.3 nvidia should carry gpu-count: %v", n)
	}
	if s := variantRequirements(amifamily.Standard, kv("1.14")); len(s) != 2 || s[0].Operator != OpDoesNotExist {
		t.Fatalf("standard: %v", s)
	}
}
