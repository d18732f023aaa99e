package userdata

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/taints"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata/lint"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the renderers' output")

// golden compares got with testdata/name.golden, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	file := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run `go test ./internal/userdata -update` to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from %s:\n--- got ---\n%s\n--- want ---\n%s", name, file, got, want)
	}
}

func i32(v int32) *int32 { return &v }
func bp(v bool) *bool    { return &v }

// baseOptions are the cluster facts of Karpenter's own launch-template tests.
func baseOptions() Options {
	return Options{
		ClusterName:     "test-cluster",
		ClusterEndpoint: "https://test-cluster",
		CABundle:        "Y2EtYnVuZGxlCg==",
		ClusterCIDR:     "10.100.0.0/16",
		KubeDNSIP:       "10.0.100.10",
		NodePoolName:    "default",
		NodeClassName:   "default",
		Labels:          map[string]string{"testing/cluster": "unspecified"},
		Karpenter:       versions.DefaultKarpenter,
	}
}

// richOptions exercise taints with and without values, startup taints,
// labels (one filtered by RejectForbiddenLabels) and every kubelet setting.
func richOptions() Options {
	o := baseOptions()
	o.Taints = []taints.Taint{{Key: "dedicated", Value: "gpu", Effect: taints.NoSchedule}, {Key: "example.com/spot", Effect: taints.PreferNoSchedule}}
	o.StartupTaints = []taints.Taint{{Key: "node.cilium.io/agent-not-ready", Value: "true", Effect: taints.NoExecute}}
	o.Labels = map[string]string{"team": "ml", "example.com/tier": "gold", "node-role.kubernetes.io/gpu": "true"}
	o.CapacityType = "spot"
	o.Kubelet = manifest.Kubelet{
		MaxPods: i32(58), PodsPerCore: i32(4),
		SystemReserved: map[string]string{"memory": "100Mi", "cpu": "100m", "ephemeral-storage": "1Gi"},
		KubeReserved:   map[string]string{"memory": "200Mi", "cpu": "200m"},
		EvictionHard:   map[string]string{"nodefs.available": "10%", "memory.available": "500Mi"},
		EvictionSoft:   map[string]string{"memory.available": "1Gi", "nodefs.available": "15%"},
		// Written as a user may; rendered as Karpenter prints a
		// metav1.Duration (1m0s, 1m30s).
		EvictionSoftGracePeriod: map[string]string{
			"memory.available": "1m", "nodefs.available": "90s",
		},
		EvictionMaxPodGracePeriod:   i32(60),
		ImageGCHighThresholdPercent: i32(85),
		ImageGCLowThresholdPercent:  i32(80),
		CPUCFSQuota:                 bp(false),
	}
	return o
}

const (
	shellUserData = "#!/bin/bash\necho \"Running custom user data script\"\n"
	mimeUserData  = "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"BOUNDARY\"\n\n--BOUNDARY\nContent-Type: text/x-shellscript; charset=\"us-ascii\"\n\n#!/bin/bash\necho \"Running custom user data script\"\n\n--BOUNDARY\nContent-Type: text/cloud-config\n\npackages:\n- jq\n--BOUNDARY--\n"
	nodeConfigUD  = "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      shutdownGracePeriod: 30s\n    flags:\n    - --node-labels=team=ml\n"
	brUserData    = "[settings.kubernetes]\ncloud-provider = 'external'\nunknown-setting = 'dropped'\nmax-pods = 1\n\n[settings.kubernetes.node-labels]\ncustom = 'kept'\n'karpenter.sh/capacity-type' = 'overridden'\n\n[settings.kubernetes.node-taints]\nreplaced = ['me:NoSchedule']\n\n[settings.ntp]\ntime-servers = ['169.254.169.123']\n"
	psUserData    = "Write-Host \"Running custom user data script\""
)

func TestRenderGolden(t *testing.T) {
	ipv6 := baseOptions()
	ipv6.KubeDNSIP = "fd30:1c53:5f8a::a"
	ipv6.ClusterCIDR = "fd30:1c53:5f8a::/108"
	raid := richOptions()
	raid.InstanceStorePolicy = "RAID0"
	noCA := baseOptions()
	noCA.CABundle = ""
	old := baseOptions()
	old.Karpenter = versions.Karpenter{Minor: 4, Patch: 0} // before do-not-sync-taints
	brDefaultBind := raid
	brDefaultBind.BottlerocketDefaultBind = true
	// Two taints with one key share one node-taints array (Karpenter
	// appends to the key's list), in the NodePool's order.
	sharedKey := baseOptions()
	sharedKey.Taints = []taints.Taint{{Key: "a", Value: "1", Effect: taints.NoSchedule}}
	sharedKey.StartupTaints = []taints.Taint{{Key: "a", Value: "2", Effect: taints.NoExecute}}

	cases := []struct {
		name   string
		family amifamily.Family
		opts   Options
	}{
		{"al2_default", amifamily.AL2, baseOptions()},
		{"al2_no_ca_karpenter_1_4", amifamily.AL2, func() Options { o := noCA; o.Karpenter = old.Karpenter; return o }()},
		{"al2_shell_userdata", amifamily.AL2, with(baseOptions(), shellUserData)},
		{"al2_mime_userdata", amifamily.AL2, with(baseOptions(), mimeUserData)},
		{"al2_taints_labels_kubelet", amifamily.AL2, richOptions()},
		{"al2_ipv6", amifamily.AL2, ipv6},
		{"al2_raid0", amifamily.AL2, raid},
		{"al2023_default", amifamily.AL2023, baseOptions()},
		{"al2023_shell_userdata", amifamily.AL2023, with(baseOptions(), shellUserData)},
		{"al2023_nodeconfig_userdata", amifamily.AL2023, with(baseOptions(), nodeConfigUD)},
		{"al2023_mime_userdata", amifamily.AL2023, with(baseOptions(), mimeUserData)},
		{"al2023_taints_labels_kubelet_raid0", amifamily.AL2023, raid},
		{"al2023_ipv6", amifamily.AL2023, ipv6},
		{"bottlerocket_default", amifamily.Bottlerocket, baseOptions()},
		{"bottlerocket_userdata", amifamily.Bottlerocket, with(baseOptions(), brUserData)},
		{"bottlerocket_taints_labels_kubelet_raid0", amifamily.Bottlerocket, raid},
		{"bottlerocket_raid0_default_bind", amifamily.Bottlerocket, brDefaultBind},
		{"bottlerocket_ipv6", amifamily.Bottlerocket, ipv6},
		{"bottlerocket_shared_taint_key", amifamily.Bottlerocket, sharedKey},
		{"windows2022_default", amifamily.Windows2022, baseOptions()},
		{"windows2022_userdata", amifamily.Windows2022, with(baseOptions(), psUserData)},
		{"windows2022_ipv6", amifamily.Windows2022, ipv6},
		{"windows2019_taints_labels_kubelet", amifamily.Windows2019, richOptions()},
		{"windows2025_default", amifamily.Windows2025, baseOptions()},
		{"custom_passthrough", amifamily.Custom, with(baseOptions(), shellUserData)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, fs := Render(c.family, c.opts)
			if fs.HasErrors() {
				t.Fatalf("unexpected findings: %v", fs)
			}
			golden(t, c.name, got)
		})
	}
}

func TestRenderCustomGolden(t *testing.T) {
	full := Bootstrap{
		ClusterName:          "prod-1",
		APIServerEndpoint:    "https://ABCDEF.gr7.us-west-2.eks.amazonaws.com",
		CertificateAuthority: "Y2EtYnVuZGxlCg==",
		ServiceCIDR:          "172.20.0.0/16",
		ClusterDNS:           "172.20.0.10",
		RegisterWithTaints:   []taints.Taint{{Key: "dedicated", Value: "gpu", Effect: taints.NoSchedule}, {Key: "example.com/drain", Effect: taints.NoExecute}},
		NodeLabels:           map[string]string{"team": "ml", "node.kubernetes.io/lifecycle": "spot"},
		KubeletExtraArgs:     []string{"--max-pods=58", "--eviction-hard=memory.available<500Mi"},
		PreBootstrapScript:   "yum install -y jq\nsysctl -w vm.max_map_count=262144",
		PostBootstrapScript:  "echo bootstrapped > /var/log/bootstrapped\n",
	}
	minimal := Bootstrap{ClusterName: "prod-1", APIServerEndpoint: full.APIServerEndpoint, CertificateAuthority: full.CertificateAuthority, ServiceCIDR: full.ServiceCIDR}
	ipv6 := minimal
	ipv6.ServiceCIDR, ipv6.ClusterDNS = "fd30:1c53:5f8a::/108", "fd30:1c53:5f8a::a"
	brFull := full
	brFull.KubeletExtraArgs, brFull.PreBootstrapScript, brFull.PostBootstrapScript = nil, "", ""
	sharedKey := minimal
	sharedKey.RegisterWithTaints = []taints.Taint{{Key: "a", Value: "1", Effect: taints.NoSchedule}, {Key: "a", Value: "2", Effect: taints.NoExecute}}
	cases := []struct {
		name string
		b    Bootstrap
		f    BootstrapFormat
	}{
		{"custom_bootstrap_sh_minimal", minimal, FormatBootstrapSh},
		{"custom_bootstrap_sh_full", full, FormatBootstrapSh},
		{"custom_bootstrap_sh_ipv6", ipv6, FormatBootstrapSh},
		{"custom_bootstrap_sh_describe_cluster", Bootstrap{ClusterName: "prod-1"}, FormatBootstrapSh},
		{"custom_nodeadm_minimal", minimal, FormatNodeadm},
		{"custom_nodeadm_full", full, FormatNodeadm},
		{"custom_nodeadm_ipv6", ipv6, FormatNodeadm},
		{"custom_bottlerocket_minimal", minimal, FormatBottlerocket},
		{"custom_bottlerocket_full", brFull, FormatBottlerocket},
		{"custom_bottlerocket_ipv6", ipv6, FormatBottlerocket},
		{"custom_bottlerocket_shared_taint_key", sharedKey, FormatBottlerocket},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.b.Format = c.f
			got, fs := RenderCustom(c.b)
			if fs.HasErrors() {
				t.Fatalf("unexpected findings: %v", fs)
			}
			golden(t, c.name, got)
			// What RenderCustom writes, Lint accepts as Custom userData.
			if lf := lint.UserData(amifamily.Custom, got, versions.DefaultKarpenter); lf.HasErrors() {
				t.Fatalf("the rendered userData fails the linter: %v", lf)
			}
		})
	}
}

func with(o Options, ud string) Options { o.UserData = ud; return o }
