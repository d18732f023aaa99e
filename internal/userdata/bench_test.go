package userdata

import (
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/taints"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata/lint"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// BenchmarkRender is the userData of one NodePool on one class: Karpenter's
// layout per family with taints, labels, every kubelet setting and the
// user's own userData merged in.
//
//	go test ./internal/userdata -run '^$' -bench . -benchmem
func BenchmarkRender(b *testing.B) {
	for _, tc := range []struct {
		name string
		fam  amifamily.Family
		ud   string
	}{
		{"AL2/shell", amifamily.AL2, shellUserData},
		{"AL2/mime", amifamily.AL2, mimeUserData},
		{"AL2023/nodeconfig", amifamily.AL2023, nodeConfigUD},
		{"AL2023/mime", amifamily.AL2023, mimeUserData},
		{"Bottlerocket/toml", amifamily.Bottlerocket, brUserData},
		{"Windows2022/powershell", amifamily.Windows2022, psUserData},
	} {
		b.Run(tc.name, func(b *testing.B) {
			o := richOptions()
			o.UserData = tc.ud
			b.ReportAllocs()
			for b.Loop() {
				if out, fs := Render(tc.fam, o); out == "" || fs.HasErrors() {
					b.Fatal(fs)
				}
			}
		})
	}
}

// BenchmarkRenderCustom is the bootstrap block of a Custom class, per format.
func BenchmarkRenderCustom(b *testing.B) {
	for _, format := range []BootstrapFormat{FormatBootstrapSh, FormatNodeadm, FormatBottlerocket} {
		b.Run(string(format), func(b *testing.B) {
			bs := Bootstrap{Format: format, ClusterName: "prod", APIServerEndpoint: "https://prod.example.com", CertificateAuthority: "Y2EtYnVuZGxlCg==",
				ServiceCIDR: "10.100.0.0/16", RegisterWithTaints: []taints.Taint{{Key: "nvidia.com/gpu", Value: "true", Effect: taints.NoSchedule}},
				NodeLabels: map[string]string{"team": "ml"}}
			if format != FormatBottlerocket {
				bs.PreBootstrapScript = "sysctl --system"
			}
			b.ReportAllocs()
			for b.Loop() {
				if out, fs := RenderCustom(bs); out == "" || fs.HasErrors() {
					b.Fatal(fs)
				}
			}
		})
	}
}

// BenchmarkLint is the userData linter of the resources and of
// provider::karpenter::lint_user_data, per format.
func BenchmarkLint(b *testing.B) {
	for _, tc := range []struct {
		name string
		fam  amifamily.Family
		ud   string
	}{
		{"AL2/bootstrap.sh", amifamily.Custom, "#!/bin/bash\nset -ex\n/etc/eks/bootstrap.sh prod --b64-cluster-ca \"$CA\" --apiserver-endpoint \"$EP\" \\\n  --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute --node-labels=team=ml --max-pods=58'\n"},
		{"AL2/mime", amifamily.AL2, mimeUserData},
		{"AL2023/nodeconfig", amifamily.AL2023, nodeConfigUD},
		{"Bottlerocket/toml", amifamily.Bottlerocket, brUserData},
		{"Windows2022/powershell", amifamily.Windows2022, psUserData},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = lint.UserData(tc.fam, tc.ud, versions.DefaultKarpenter)
			}
		})
	}
}
