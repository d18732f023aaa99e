package userdata

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/taints"
)

// upstreamGolden reads a golden file of karpenter-provider-aws v1.14.1 from
// the module cache (the module is in go.mod), so the renderers are checked
// against Karpenter's own expected output without copying it here. The
// test is skipped when the module source is not available.
func upstreamGolden(t *testing.T, name string, args ...any) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/aws/karpenter-provider-aws").Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		t.Skipf("karpenter-provider-aws source not in the module cache: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "pkg/providers/launchtemplate/testdata", name))
	if err != nil {
		t.Skipf("upstream golden missing: %v", err)
	}
	return fmt.Sprintf(string(b), args...)
}

// upstreamOptions are the inputs of Karpenter's launch-template suite: a
// NodePool "default" with EC2NodeClass "default", label
// testing/cluster=unspecified, kube-dns 10.0.100.10, 110 pods.
func upstreamOptions() Options {
	o := baseOptions()
	o.InstanceTypeMaxPods = 110
	return o
}

func TestRenderMatchesKarpenterGoldenFiles(t *testing.T) {
	nc, npKey, np := "default", "karpenter.sh/nodepool", "default"
	cases := []struct {
		family   amifamily.Family
		input    string // upstream input golden, "" for none
		inArgs   []any
		expected string
		opts     func(*Options)
	}{
		{amifamily.AL2, "", nil, "al2_userdata_unmerged.golden", nil},
		{amifamily.AL2, "al2_userdata_input.golden", nil, "al2_userdata_merged.golden", nil},
		{amifamily.AL2, "al2_userdata_content_type_first_input.golden", nil, "al2_userdata_merged.golden", nil},
		{amifamily.AL2023, "", nil, "al2023_userdata_unmerged.golden", nil},
		{amifamily.AL2023, "al2023_shell_userdata_input.golden", nil, "al2023_shell_userdata_merged.golden", nil},
		{amifamily.AL2023, "al2023_yaml_userdata_input.golden", nil, "al2023_yaml_userdata_merged.golden", nil},
		{amifamily.AL2023, "al2023_mime_userdata_input.golden", nil, "al2023_mime_userdata_merged.golden", nil},
		{amifamily.Windows2022, "", nil, "windows_userdata_unmerged.golden", func(o *Options) { o.CapacityType = "spot" }},
		{amifamily.Windows2022, "windows_userdata_input.golden", nil, "windows_userdata_merged.golden", func(o *Options) { o.CapacityType = "spot" }},
		{amifamily.Bottlerocket, "", nil, "br_userdata_unmerged.golden", brTaints},
		{amifamily.Bottlerocket, "br_userdata_input.golden", []any{npKey}, "br_userdata_merged.golden", brTaints},
	}
	for _, c := range cases {
		t.Run(c.expected+"<"+c.input, func(t *testing.T) {
			o := upstreamOptions()
			if c.opts != nil {
				c.opts(&o)
			}
			if c.input != "" {
				o.UserData = upstreamGolden(t, c.input, c.inArgs...)
			}
			want := upstreamGolden(t, c.expected, nc, npKey, np)
			got, fs := Render(c.family, o)
			if fs.HasErrors() {
				t.Fatal(fs)
			}
			// Karpenter's suite compares with every "\n" removed
			// (ExpectLaunchTemplatesCreatedWithUserData), and its golden
			// files differ from the real output in newlines only; our own
			// golden files pin the exact bytes.
			if strings.ReplaceAll(got, "\n", "") != strings.ReplaceAll(want, "\n", "") {
				t.Errorf("differs from Karpenter's %s:\n--- got ---\n%s\n--- want ---\n%s", c.expected, got, want)
			}
		})
	}
}

// brTaints are the NodePool taints of Karpenter's Bottlerocket test.
func brTaints(o *Options) {
	o.Taints = []taints.Taint{{Key: "foo", Value: "bar", Effect: taints.NoExecute}}
	o.StartupTaints = []taints.Taint{{Key: "baz", Value: "bin", Effect: taints.NoExecute}}
}
