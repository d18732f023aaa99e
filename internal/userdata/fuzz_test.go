package userdata

import (
	"slices"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/taints"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata/format"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata/lint"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata/shell"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// FuzzBottlerocket renders and lints arbitrary Bottlerocket userData: no
// panic; the linter rejects the TOML exactly when rendering fails; a
// rendered result is TOML that registers the unregistered taint.
func FuzzBottlerocket(f *testing.F) {
	f.Add(brUserData)
	f.Add("[settings.kubernetes]\nmax-pods = 'x'\n")
	f.Add("[settings.kubernetes.credential-providers.ecr-credential-provider]\nenabled = true\nimage-patterns = ['*.dkr.ecr.*']\nbogus = 1\n")
	f.Add("[settings.bootstrap-commands.x]\ncommands = [['echo']]\n")
	f.Add("settings = 3\n")
	f.Fuzz(func(t *testing.T, s string) {
		o := baseOptions()
		o.UserData = s
		o.InstanceStorePolicy = "RAID0"
		out, fs := Render(amifamily.Bottlerocket, o)
		lf := lint.UserData(amifamily.Bottlerocket, s, versions.DefaultKarpenter)
		invalid := len(lf.ByRule("bottlerocket-toml-invalid"))+len(lf.ByRule("userdata-format-mismatch")) > 0
		if invalid != (len(fs.ByRule("bottlerocket-toml-invalid")) > 0) {
			t.Fatalf("lint says invalid=%v, render says %v", invalid, fs)
		}
		if out == "" {
			return
		}
		var doc struct {
			Settings struct {
				Kubernetes struct {
					NodeTaints map[string][]string `toml:"node-taints"`
				} `toml:"kubernetes"`
			} `toml:"settings"`
		}
		if err := toml.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("rendered TOML does not parse: %v\n%s", err, out)
		}
		if !slices.Contains(doc.Settings.Kubernetes.NodeTaints[taints.UnregisteredKey], ":NoExecute") {
			t.Fatalf("unregistered taint lost:\n%s", out)
		}
	})
}

// FuzzMIME renders and lints arbitrary AL2/AL2023 userData: no panic; lint
// and render agree on whether the MIME archive is readable; a rendered
// archive reads back with Karpenter's part last.
func FuzzMIME(f *testing.F) {
	f.Add(mimeUserData)
	f.Add(shellUserData)
	f.Add(nodeConfigUD)
	f.Add("MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"B\"\n\n--B\nContent-Type: text/x-shellscript\nContent-Transfer-Encoding: quoted-printable\n\necho =3D\n--B\n")
	f.Add("Content-Type: multipart/mixed; boundary=\"//\"\n\n--//\n\n--//--")
	f.Add("MIME-Version: 1.0\nContent-Type: text/plain\n\nx")
	f.Fuzz(func(t *testing.T, s string) {
		for _, fam := range []amifamily.Family{amifamily.AL2, amifamily.AL2023} {
			o := baseOptions()
			o.UserData = s
			out, fs := Render(fam, o)
			lf := lint.UserData(fam, s, versions.DefaultKarpenter)
			if (len(lf.ByRule("mime-invalid")) > 0) != (len(fs.ByRule("mime-invalid")) > 0) {
				t.Fatalf("%s: lint %v, render %v", fam, lf.ByRule("mime-invalid"), fs)
			}
			if out == "" || strings.Contains(s, "--"+format.Boundary) {
				// A userData line starting with "--//" collides with
				// Karpenter's fixed boundary: Karpenter's own output is
				// then corrupt too (a known limitation, not checked).
				continue
			}
			a, err := format.ReadArchive(out)
			if err != nil {
				t.Fatalf("%s: rendered archive does not read back: %v\n%s", fam, err, out)
			}
			last := a.Parts[len(a.Parts)-1].Body
			if !strings.Contains(last, "karpenter.sh/unregistered") {
				t.Fatalf("%s: Karpenter's part is not last:\n%s", fam, out)
			}
		}
	})
}

// FuzzRenderCustom renders the bootstrap.sh format with arbitrary cluster
// name, taint value and label: either rejected, or the bash parses back to
// a bootstrap.sh call whose kubelet gets exactly the intended taints.
func FuzzRenderCustom(f *testing.F) {
	f.Add("prod", "gpu", "ml", "echo pre")
	f.Add("x'; reboot; '", "$(id)", "`id`", "exit 0")
	f.Add("prod", "", "", "echo \\")
	f.Add("prod", "a b", "a\nb", "cat <<EOF")
	f.Fuzz(func(t *testing.T, name, value, label, pre string) {
		ts := []taints.Taint{{Key: "dedicated", Value: value, Effect: taints.NoSchedule}}
		b := Bootstrap{Format: FormatBootstrapSh, ClusterName: name, RegisterWithTaints: ts,
			NodeLabels: map[string]string{"team": label}, PreBootstrapScript: pre}
		out, fs := RenderCustom(b)
		if fs.HasErrors() {
			if out != "" {
				t.Fatal("output despite errors")
			}
			return
		}
		calls, err := BootstrapCalls(out)
		if err != nil || len(calls) != 1 || calls[0][1] != name {
			t.Fatalf("%q: %v %v", out, calls, err)
		}
		i := slices.Index(calls[0], "--kubelet-extra-args")
		fields, _, err := shell.SplitSystemd(calls[0][i+1])
		if err != nil || !slices.Contains(fields, "--register-with-taints="+taints.Join(EffectiveTaints(ts, nil))) {
			t.Fatalf("kubelet args %q (%v)", fields, err)
		}
		for _, fam := range []BootstrapFormat{FormatNodeadm, FormatBottlerocket} {
			b.Format, b.APIServerEndpoint, b.CertificateAuthority, b.ServiceCIDR, b.PreBootstrapScript = fam, "https://x", "Y2E=", "10.0.0.0/16", ""
			if out, fs := RenderCustom(b); !fs.HasErrors() && lint.UserData(amifamily.Custom, out, versions.DefaultKarpenter).HasErrors() {
				t.Fatalf("%s output fails the linter: %v", fam, lint.UserData(amifamily.Custom, out, versions.DefaultKarpenter))
			}
		}
	})
}

// FuzzNodeConfig lints arbitrary userData with every family and renders it
// for AL2023, seeded with nodeadm NodeConfig documents (YAML and JSON): no
// panic, every finding names a rule, and a NodeConfig AL2023 accepts comes
// back as a MIME archive whose last part is Karpenter's NodeConfig.
func FuzzNodeConfig(f *testing.F) {
	f.Add(nodeConfigUD)
	f.Add("apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    flags: [\"--register-with-taints=a=b:NoSchedule\"]\n    config:\n      registerWithTaints: [{key: a, effect: NoSchedule}]\n")
	f.Add(`{"apiVersion":"node.eks.aws/v1alpha1","kind":"NodeConfig","spec":{"cluster":{"name":"x","cidr":"10.0.0.0/16"},"kubelet":{"config":{"maxPods":110}}}}`)
	f.Add("apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config: 3\n")
	f.Add("# just a comment\n")
	f.Add("kind: NodeConfig\napiVersion: v1\n---\nkind: NodeConfig\n")
	f.Add("apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec: &a\n  x: *a\n")
	f.Add("<powershell>\n& $EKSBootstrapScriptFile -EKSClusterName x -KubeletExtraArgs '--register-with-taints=a=b:NoSchedule'\n</powershell>\n")
	f.Add("<powershell>\n$a = @\"\n$(x `\n\"@\n[string]$b = \u201c$a\u201d\n& $b -Kubelet:\"`\"$(\" @args <# x\n</powershell>\n")
	f.Fuzz(func(t *testing.T, s string) {
		for _, fam := range amifamily.Families {
			for _, fi := range lint.UserData(fam, s, versions.DefaultKarpenter) {
				if fi.Rule == nil || fi.Detail == "" {
					t.Fatalf("%s: finding without rule or detail: %#v", fam, fi)
				}
			}
		}
		o := baseOptions()
		o.UserData = s
		out, fs := Render(amifamily.AL2023, o)
		for _, fi := range fs {
			if fi.Rule == nil || fi.Detail == "" {
				t.Fatalf("render: finding without rule or detail: %#v", fi)
			}
		}
		if out == "" || strings.Contains(s, "--"+format.Boundary) || !format.IsNodeConfigKind(s) {
			return
		}
		a, err := format.ReadArchive(out)
		if err != nil {
			t.Fatalf("rendered archive does not read back: %v\n%s", err, out)
		}
		if last := a.Parts[len(a.Parts)-1]; !strings.Contains(last.Body, "karpenter.sh/unregistered") {
			t.Fatalf("Karpenter's NodeConfig is not last:\n%s", out)
		}
	})
}
