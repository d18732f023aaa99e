package userdata

import (
	"errors"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/taints"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

func TestEffectiveTaintsAndLabels(t *testing.T) {
	own := []taints.Taint{{Key: taints.UnregisteredKey, Value: "x", Effect: taints.NoExecute}}
	if got := EffectiveTaints(own, nil); len(got) != 1 {
		t.Fatalf("MatchTaint ignores the value; got %v", got)
	}
	if got := EffectiveTaints(nil, []taints.Taint{{Key: "s", Effect: taints.NoSchedule}}); taints.Join(got) != "s:NoSchedule,karpenter.sh/unregistered:NoExecute" {
		t.Fatalf("got %v", got)
	}
	o := baseOptions()
	o.Labels = map[string]string{"a": "1", "kubernetes.io/x": "2", "team.k8s.io/y": "3", "node-restriction.kubernetes.io/z": "4", "example.com/w": "5"}
	l := EffectiveLabels(amifamily.AL2, o)
	for _, k := range []string{"kubernetes.io/x", "team.k8s.io/y", "node-restriction.kubernetes.io/z"} {
		if _, ok := l[k]; ok {
			t.Errorf("%s not filtered", k)
		}
	}
	if l["karpenter.sh/do-not-sync-taints"] != "true" || l["karpenter.sh/capacity-type"] != "on-demand" || l["a"] != "1" {
		t.Fatalf("got %v", l)
	}
	if _, ok := EffectiveLabels(amifamily.Custom, o)["karpenter.sh/do-not-sync-taints"]; ok {
		t.Fatal("Custom gets do-not-sync-taints")
	}
	o.Karpenter = versions.Karpenter{Minor: 4, Patch: 9}
	if _, ok := EffectiveLabels(amifamily.AL2, o)["karpenter.sh/do-not-sync-taints"]; ok {
		t.Fatal("do-not-sync-taints before 1.5")
	}
}

func TestRenderRejectsUnsafeInputs(t *testing.T) {
	cases := map[string]struct {
		mod  func(*Options)
		f    amifamily.Family
		rule string
		path string
		want string
	}{
		"cluster name injection":  {func(o *Options) { o.ClusterName = "c'; reboot; '" }, amifamily.AL2, "script-value-unsafe", "", "not an EKS cluster name"},
		"endpoint with quote":     {func(o *Options) { o.ClusterEndpoint = "https://x'$(id)" }, amifamily.Windows2022, "script-value-unsafe", "", "http(s) URL"},
		"empty endpoint":          {func(o *Options) { o.ClusterEndpoint = "" }, amifamily.AL2, "bootstrap-input-missing", "", "endpoint is empty"},
		"empty name":              {func(o *Options) { o.ClusterName = "" }, amifamily.Bottlerocket, "bootstrap-input-missing", "", "cluster name is empty"},
		"CA with newline":         {func(o *Options) { o.CABundle = "Y2Ex\nY2Ex" }, amifamily.AL2, "script-value-unsafe", "", "certificate authority"},
		"CA not base64":           {func(o *Options) { o.CABundle = "not-base64!" }, amifamily.AL2023, "cluster-ca-not-base64", "", "decoding CABundle"},
		"CIDR missing":            {func(o *Options) { o.ClusterCIDR = "" }, amifamily.AL2023, "cluster-cidr-missing", "", "resolving cluster CIDR"},
		"CIDR invalid":            {func(o *Options) { o.ClusterCIDR = "10.0.0.0" }, amifamily.AL2023, "cluster-cidr-missing", "", "is not a CIDR"},
		"DNS not an IP":           {func(o *Options) { o.Kubelet.ClusterDNS = []string{"kube-dns"} }, amifamily.AL2, "script-value-unsafe", "kubelet.cluster_dns[0]", "not an IP address"},
		"taint value with quote":  {func(o *Options) { o.Taints = []taints.Taint{{Key: "k", Value: "a'b", Effect: taints.NoSchedule}} }, amifamily.AL2, "kubelet-taint-invalid", "taints[0].value", `has value "a'b"`},
		"startup taint effect":    {func(o *Options) { o.StartupTaints = []taints.Taint{{Key: "k"}} }, amifamily.AL2, "kubelet-taint-invalid", "startup_taints[0].effect", "effect is required"},
		"label value with space":  {func(o *Options) { o.Labels = map[string]string{"team": "a b"} }, amifamily.Windows2019, "kubelet-label-invalid", `labels["team"]`, `value "a b"`},
		"kubelet map injection":   {func(o *Options) { o.Kubelet.SystemReserved = map[string]string{"cpu": "1'"} }, amifamily.AL2, "script-value-unsafe", `kubelet.system_reserved["cpu"]`, "system_reserved"},
		"capacity type injection": {func(o *Options) { o.CapacityType = "$(id)" }, amifamily.AL2, "kubelet-label-invalid", "", "karpenter.sh/capacity-type"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			o := baseOptions()
			c.mod(&o)
			out, fs := Render(c.f, o)
			if out != "" {
				t.Fatalf("rendered despite %v", fs)
			}
			for _, f := range fs.ByRule(c.rule) {
				if f.Path.String() == c.path && strings.Contains(f.Detail, c.want) && f.Severity == rules.Error {
					return
				}
			}
			t.Fatalf("want %s at %q containing %q, got %v", c.rule, c.path, c.want, fs)
		})
	}
}

func TestRenderCustomFindings(t *testing.T) {
	base := func(f BootstrapFormat) Bootstrap {
		return Bootstrap{Format: f, ClusterName: "c", APIServerEndpoint: "https://x", CertificateAuthority: "Y2E=", ServiceCIDR: "10.0.0.0/16"}
	}
	cases := map[string]struct {
		b    Bootstrap
		mod  func(*Bootstrap)
		rule string
		sev  rules.Severity
		path string
		want string
	}{
		"unknown format":          {base("ignition"), nil, "bootstrap-input-missing", rules.Error, "format", "not one of"},
		"nodeadm without CA":      {base(FormatNodeadm), func(b *Bootstrap) { b.CertificateAuthority = "" }, "bootstrap-input-missing", rules.Error, "certificate_authority", "nodeadm rejects"},
		"nodeadm without CIDR":    {base(FormatNodeadm), func(b *Bootstrap) { b.ServiceCIDR = "" }, "cluster-cidr-missing", rules.Error, "service_cidr", "spec.cluster.cidr"},
		"bottlerocket endpoint":   {base(FormatBottlerocket), func(b *Bootstrap) { b.APIServerEndpoint = "" }, "bootstrap-input-missing", rules.Error, "api_server_endpoint", "never joins"},
		"bottlerocket pre script": {base(FormatBottlerocket), func(b *Bootstrap) { b.PreBootstrapScript = "echo hi" }, "bootstrap-script-unsupported", rules.Error, "pre_bootstrap_script", "runs no shell userData"},
		"bottlerocket extra args": {base(FormatBottlerocket), func(b *Bootstrap) { b.KubeletExtraArgs = []string{"--max-pods=3"} }, "bootstrap-script-unsupported", rules.Error, "kubelet_extra_args[0]", "no free-form kubelet flags"},
		"extra arg with space":    {base(FormatBootstrapSh), func(b *Bootstrap) { b.KubeletExtraArgs = []string{"--a=b --c=d"} }, "bootstrap-kubelet-arg-invalid", rules.Error, "kubelet_extra_args[0]", "one flag"},
		"extra arg overrides":     {base(FormatNodeadm), func(b *Bootstrap) { b.KubeletExtraArgs = []string{"--x", "--register-with-taints=a:NoSchedule"} }, "bootstrap-kubelet-arg-invalid", rules.Error, "kubelet_extra_args[1]", "override"},
		"duplicate taints": {base(FormatBootstrapSh), func(b *Bootstrap) {
			b.RegisterWithTaints = []taints.Taint{{Key: "a", Value: "1", Effect: taints.NoSchedule}, {Key: "a", Value: "2", Effect: taints.NoSchedule}}
		}, "kubelet-taint-invalid", rules.Error, "register_with_taints[1]", "unique by key and effect"},
		"taint value slash": {base(FormatNodeadm), func(b *Bootstrap) {
			b.RegisterWithTaints = []taints.Taint{{Key: "a", Value: "x/y", Effect: taints.NoSchedule}}
		}, "kubelet-taint-invalid", rules.Error, "register_with_taints[0].value", "no `/`"},
		"restricted label":   {base(FormatBottlerocket), func(b *Bootstrap) { b.NodeLabels = map[string]string{"node-role.kubernetes.io/gpu": ""} }, "kubelet-label-restricted", rules.Error, `node_labels["node-role.kubernetes.io/gpu"]`, "refuses to start"},
		"pre script syntax":  {base(FormatNodeadm), func(b *Bootstrap) { b.PreBootstrapScript = "if true; then" }, "shell-syntax-error", rules.Error, "pre_bootstrap_script", "does not parse"},
		"pre script exits":   {base(FormatBootstrapSh), func(b *Bootstrap) { b.PreBootstrapScript = "exit 0" }, "bootstrap-script-unsafe", rules.Error, "pre_bootstrap_script", "`exit`"},
		"trailing backslash": {base(FormatBootstrapSh), func(b *Bootstrap) { b.PreBootstrapScript = "yum install -y jq \\" }, "bootstrap-script-unsafe", rules.Error, "", "instead of one"},
		"own bootstrap call": {base(FormatBootstrapSh), func(b *Bootstrap) { b.PostBootstrapScript = "/etc/eks/bootstrap.sh again" }, "bootstrap-script-unsafe", rules.Error, "", "2 bootstrap.sh calls"},
		"hostile DNS":        {base(FormatBootstrapSh), func(b *Bootstrap) { b.ClusterDNS = "10.0.0.10' ; reboot" }, "script-value-unsafe", rules.Error, "cluster_dns", "not an IP"},
		"hostile CIDR":       {base(FormatBootstrapSh), func(b *Bootstrap) { b.ServiceCIDR = "x" }, "script-value-unsafe", rules.Error, "service_cidr", "not a CIDR"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			b := c.b
			if c.mod != nil {
				c.mod(&b)
			}
			out, fs := RenderCustom(b)
			if out != "" {
				t.Fatalf("rendered despite %v:\n%s", fs, out)
			}
			for _, f := range fs.ByRule(c.rule) {
				if f.Path.String() == c.path && strings.Contains(f.Detail, c.want) {
					if f.Severity != c.sev {
						t.Fatalf("%s has severity %s, want %s", f, f.Severity, c.sev)
					}
					return
				}
			}
			t.Fatalf("want %s at %q containing %q, got %v", c.rule, c.path, c.want, fs)
		})
	}
}

func TestRenderCustomRegistersTaintsOnce(t *testing.T) {
	b := Bootstrap{Format: FormatBootstrapSh, ClusterName: "c", RegisterWithTaints: []taints.Taint{taints.Unregistered, {Key: "a", Effect: taints.NoSchedule}}}
	out, fs := RenderCustom(b)
	if fs.HasErrors() || strings.Count(out, "karpenter.sh/unregistered") != 1 || !strings.Contains(out, "--register-with-taints=karpenter.sh/unregistered:NoExecute,a:NoSchedule") {
		t.Fatalf("%v\n%s", fs, out)
	}
}

// A userData the renderer cannot combine with Karpenter's part is reported
// with the formats the family takes.
func TestRenderErrorMessage(t *testing.T) {
	f := renderError(amifamily.AL2023, errors.New("boom"))
	if f.Rule.ID != "userdata-format-mismatch" || f.Severity != rules.Error {
		t.Fatalf("%v", f)
	}
	for _, want := range []string{"boom", "launches no node", "a NodeConfig document (YAML or JSON), a shell script or a multipart MIME archive"} {
		if !strings.Contains(f.Detail, want) {
			t.Errorf("%q missing from %q", want, f.Detail)
		}
	}
}

// Grace periods come from the class as written: each is printed as
// Karpenter's metav1.Duration prints it, and one that does not parse (the
// class reports it) is left out rather than rendered for the kubelet.
func TestRenderEvictionSoftGracePeriodAsKarpenterPrintsIt(t *testing.T) {
	o := baseOptions()
	o.Kubelet.EvictionSoftGracePeriod = map[string]string{"memory.available": "soon", "nodefs.available": "90s"}
	for _, c := range []struct {
		f    amifamily.Family
		want string
	}{
		{amifamily.AL2, `--eviction-soft-grace-period="nodefs.available=1m30s"`},
		{amifamily.AL2023, "evictionSoftGracePeriod:\n        nodefs.available: 1m30s\n"},
		{amifamily.Bottlerocket, `'nodefs.available' = '1m30s'`},
	} {
		out, fs := Render(c.f, o)
		if fs.HasErrors() || !strings.Contains(out, c.want) || strings.Contains(out, "soon") {
			t.Errorf("%s: want %q and no %q:\n%v\n%s", c.f, c.want, "soon", fs, out)
		}
	}
}
