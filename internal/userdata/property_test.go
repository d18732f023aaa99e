package userdata

import (
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/taints"
)

// Random valid and hostile taint/label material.
var (
	validKeys   = []string{"team", "example.com/dedicated", "a.b-c.io/x_y.z", "k8s-app", "Z9"}
	validValues = []string{"", "gpu", "a-b_c.d", "X1", "v" + strings.Repeat("x", 61)}
	hostile     = []string{"a'b", "$(reboot)", "`id`", "a\nb", "a b", "a\"b", "a\\b", "a;b", "'; curl x | sh; '", "a/b", "${IFS}", "-x"}
)

func pick(r *rand.Rand, s []string) string { return s[r.Intn(len(s))] }

// kubeletArgv follows a rendered bootstrap.sh call to what the kubelet
// receives: the --kubelet-extra-args value, split and unquoted as systemd
// does, and returns the --register-with-taints and --node-labels values.
func kubeletArgv(t *testing.T, argv []string) (taintArg, labelArg string) {
	t.Helper()
	i := slices.Index(argv, "--kubelet-extra-args")
	if i < 0 || i+1 >= len(argv) {
		t.Fatalf("no --kubelet-extra-args in %q", argv)
	}
	fields, _, err := splitSystemd(argv[i+1])
	if err != nil {
		t.Fatalf("extra args %q do not split: %v", argv[i+1], err)
	}
	for _, f := range fields {
		if v, ok := strings.CutPrefix(f, "--register-with-taints="); ok {
			taintArg = v
		}
		if v, ok := strings.CutPrefix(f, "--node-labels="); ok {
			labelArg = v
		}
	}
	return taintArg, labelArg
}

// TestRenderedBashYieldsIntendedArgv renders AL2 and Custom bootstrap.sh
// userData for random taints and labels, parses the bash back with the
// shell parser and checks bootstrap.sh and the kubelet get exactly the
// intended arguments; a hostile value anywhere must be rejected before
// anything is rendered.
func TestRenderedBashYieldsIntendedArgv(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	rendered, rejected := 0, 0
	for iter := 0; iter < 400; iter++ {
		var ts []taints.Taint
		labels := map[string]string{}
		bad := false
		for n := r.Intn(4); n > 0; n-- {
			t := taints.Taint{Key: pick(r, validKeys) + string(rune('a'+n)), Value: pick(r, validValues), Effect: pick(r, taints.Effects)}
			if r.Intn(8) == 0 {
				t.Value, bad = pick(r, hostile), true
			}
			ts = append(ts, t)
		}
		for n := r.Intn(3); n > 0; n-- {
			k, v := pick(r, validKeys)+"-l"+string(rune('a'+n)), pick(r, validValues)
			if r.Intn(8) == 0 {
				v, bad = pick(r, hostile), true
			}
			labels[k] = v
		}
		name := "cluster-" + pick(r, []string{"a", "b_1", "C2"})
		if r.Intn(10) == 0 {
			name, bad = pick(r, hostile), true
		}
		if len(taints.Duplicates(ts)) > 0 {
			continue
		}

		// Karpenter's AL2 rendering.
		o := baseOptions()
		o.ClusterName, o.Taints, o.Labels, o.NodePoolName, o.NodeClassName = name, ts, labels, "", ""
		out, fs := Render(AL2, o)
		if bad != fs.HasErrors() || (bad && out != "") {
			t.Fatalf("hostile=%v but findings %v (output %q)", bad, fs, out)
		}
		// The bootstrap block's bootstrap.sh format.
		b := Bootstrap{Format: FormatBootstrapSh, ClusterName: name, APIServerEndpoint: "https://x.example.com", CertificateAuthority: "Y2E=",
			RegisterWithTaints: ts, NodeLabels: labels, PreBootstrapScript: "echo pre"}
		cout, cfs := RenderCustom(b)
		if bad != cfs.HasErrors() || (bad && cout != "") {
			t.Fatalf("custom: hostile=%v but findings %v (output %q)", bad, cfs, cout)
		}
		if bad {
			rejected++
			continue
		}
		rendered++

		a, err := readArchive(out)
		if err != nil {
			t.Fatal(err)
		}
		calls, err := BootstrapCalls(a.Parts[len(a.Parts)-1].Body)
		if err != nil || len(calls) != 1 {
			t.Fatalf("%v %v", calls, err)
		}
		wantTaints := taints.Join(EffectiveTaints(ts, nil))
		el := EffectiveLabels(AL2, o)
		wantArgv := []string{eksBootstrapPath, name, "--apiserver-endpoint", o.ClusterEndpoint, "--b64-cluster-ca", o.CABundle,
			"--dns-cluster-ip", o.KubeDNSIP, "--use-max-pods", "false", "--kubelet-extra-args",
			"--node-labels=\"" + joinLabels(el) + "\" --register-with-taints=\"" + wantTaints + "\" --max-pods=110"}
		if !slices.Equal(calls[0], wantArgv) {
			t.Fatalf("AL2 argv\n got %q\nwant %q", calls[0], wantArgv)
		}
		gotTaints, gotLabels := kubeletArgv(t, calls[0])
		if gotTaints != wantTaints || gotLabels != joinLabels(el) {
			t.Fatalf("kubelet got taints %q labels %q", gotTaints, gotLabels)
		}
		if parsed, err := taints.Parse(gotTaints); err != nil || !slices.Equal(parsed, EffectiveTaints(ts, nil)) {
			t.Fatalf("kubelet parses %q to %v, %v", gotTaints, parsed, err)
		}

		ccalls, err := BootstrapCalls(cout)
		if err != nil || len(ccalls) != 1 {
			t.Fatalf("%v %v", ccalls, err)
		}
		gotTaints, gotLabels = kubeletArgv(t, ccalls[0])
		if gotTaints != wantTaints || gotLabels != joinLabels(labels) {
			t.Fatalf("custom kubelet got taints %q labels %q", gotTaints, gotLabels)
		}
		if ccalls[0][1] != name {
			t.Fatalf("cluster name %q", ccalls[0][1])
		}
	}
	if rendered < 100 || rejected < 50 {
		t.Fatalf("rendered %d, rejected %d: the generator is off", rendered, rejected)
	}
}
