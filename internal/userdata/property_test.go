package userdata

import (
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/taints"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata/format"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata/lint"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata/shell"
)

// Random inputs for the renderers, from a fixed seed: values built over
// the alphabets Kubernetes and the renderers allow, with random lengths,
// and hostile variants with one or more characters that could end a
// quoting or start an expansion in bash, PowerShell, systemd, YAML or TOML
// inserted at random places.
type gen struct{ r *rand.Rand }

const (
	lowerAlnum = "abcdefghijklmnopqrstuvwxyz0123456789"
	alnum      = lowerAlnum + "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	// injection is what must never reach a script unvalidated; none of
	// these characters is valid in a qualified name, a label value, an
	// effect, a kubelet map token, a cluster name or a kubelet_extra_args
	// element.
	injection = "'\"`$\\ \t\n\r;|&<>(){}*?!#~,=:@^[]\x00"
	// quoting is the part of injection that is invalid anywhere in a
	// kubelet_extra_args element (its value may contain the rest).
	quoting = "'\"`$\\ \t\n\r"
	// flagValue is what a kubelet_extra_args value may contain: printable
	// ASCII but whitespace, quotes, `$`, backtick and backslash.
	flagValueChars = alnum + "!#%&()*+,-./:;<=>?@[]^_{|}~"
)

func (g gen) pick(s string) byte { return s[g.r.IntN(len(s))] }

// word is a random string of n characters from the alphabet, with the
// first and last from edge (Kubernetes names start and end alphanumeric).
func (g gen) word(n int, middle, edge string) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = g.pick(middle)
	}
	b[0], b[n-1] = g.pick(edge), g.pick(edge)
	return string(b)
}

// length is a random length in [1, limit], short more often than long, with
// the limit itself now and then.
func (g gen) length(limit int) int {
	switch g.r.IntN(10) {
	case 0:
		return limit
	case 1, 2:
		return 1 + g.r.IntN(limit)
	}
	return 1 + g.r.IntN(min(limit, 12))
}

// qualifiedName is an optional DNS-subdomain prefix and "/", then a name.
func (g gen) qualifiedName() string {
	name := g.word(g.length(63), alnum+"-_.", alnum)
	if g.r.IntN(2) == 0 {
		return name
	}
	labels := make([]string, 1+g.r.IntN(3))
	for i := range labels {
		labels[i] = g.word(g.length(20), lowerAlnum+"-", lowerAlnum)
	}
	return strings.Join(labels, ".") + "/" + name
}

func (g gen) labelValue() string {
	if g.r.IntN(5) == 0 {
		return ""
	}
	return g.word(g.length(63), alnum+"-_.", alnum)
}

func (g gen) mapToken() string { return g.word(g.length(16), alnum+"._%+-", alnum+"._%+-") }

func (g gen) clusterName() string { return g.word(g.length(100), alnum+"-_", alnum) }

// extraArg is a kubelet flag kubelet_extra_args accepts (never one that
// overrides the rendered taints or labels).
func (g gen) extraArg() string {
	name := "--" + g.word(g.length(20), alnum+"-", alnum)
	if name == "--register-with-taints" || name == "--node-labels" {
		name += "-x"
	}
	if g.r.IntN(4) == 0 {
		return name
	}
	v := g.word(g.length(20), flagValueChars, flagValueChars)
	return name + "=" + v[:g.r.IntN(len(v)+1)]
}

// spoil inserts 1-3 characters of alphabet at random places.
func (g gen) spoil(s, alphabet string) string {
	for n := 1 + g.r.IntN(3); n > 0; n-- {
		i := g.r.IntN(len(s) + 1)
		s = s[:i] + string(g.pick(alphabet)) + s[i:]
	}
	return s
}

// maybe spoils s with probability 1/odds and records it.
func (g gen) maybe(s, alphabet string, odds int, bad *bool) string {
	if g.r.IntN(odds) != 0 {
		return s
	}
	*bad = true
	return g.spoil(s, alphabet)
}

func (g gen) taints(n int, bad *bool) []taints.Taint {
	var out []taints.Taint
	for range n {
		out = append(out, taints.Taint{
			Key:    g.maybe(g.qualifiedName(), injection, 14, bad),
			Value:  g.maybe(g.labelValue(), injection, 14, bad),
			Effect: g.maybe(taints.Effects[g.r.IntN(3)], injection, 14, bad),
		})
	}
	return out
}

// labels are n labels the kubelet takes (none in the kubernetes.io or
// k8s.io domains, which the kubelet refuses or Karpenter filters out).
func (g gen) labels(n int, bad *bool) map[string]string {
	m := map[string]string{}
	for len(m) < n {
		spoiled := false
		k := g.maybe(g.qualifiedName(), injection, 14, &spoiled)
		if _, dup := m[k]; dup || lint.KubeletRefusesLabel(k) || lint.IsForbiddenLabel(k) {
			continue
		}
		m[k] = g.maybe(g.labelValue(), injection, 14, &spoiled)
		*bad = *bad || spoiled
	}
	return m
}

func (g gen) kubeletMap(bad *bool) map[string]string {
	if g.r.IntN(2) == 0 {
		return nil
	}
	m := map[string]string{}
	for n := 1 + g.r.IntN(3); len(m) < n; {
		spoiled := false
		k := g.maybe(g.mapToken(), injection, 20, &spoiled)
		if _, dup := m[k]; dup {
			continue
		}
		m[k] = g.maybe(g.mapToken(), injection, 20, &spoiled)
		*bad = *bad || spoiled
	}
	return m
}

// joinMap is "k<sep>v" pairs, keys sorted, joined by ",".
func joinMap(m map[string]string, sep string) string {
	var pairs []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		pairs = append(pairs, k+sep+m[k])
	}
	return strings.Join(pairs, ",")
}

// kubeletFields follows a rendered bootstrap.sh call to what the kubelet
// receives: the --kubelet-extra-args value, split and unquoted as systemd
// does.
func kubeletFields(t *testing.T, argv []string) []string {
	t.Helper()
	i := slices.Index(argv, "--kubelet-extra-args")
	if i < 0 || i+1 >= len(argv) {
		t.Fatalf("no --kubelet-extra-args in %q", argv)
	}
	fields, _, err := shell.SplitSystemd(argv[i+1])
	if err != nil {
		t.Fatalf("extra args %q do not split: %v", argv[i+1], err)
	}
	return fields
}

// parseLabelArg reads a --node-labels value back as the kubelet does.
func parseLabelArg(t *testing.T, v string) map[string]string {
	t.Helper()
	m := map[string]string{}
	if v == "" {
		return m
	}
	for _, pair := range strings.Split(v, ",") {
		k, val, ok := strings.Cut(pair, "=")
		if !ok {
			t.Fatalf("label pair %q", pair)
		}
		m[k] = val
	}
	return m
}

// TestRenderedBashYieldsIntendedArgv renders AL2 userData and the Custom
// bootstrap.sh format for random taints (keys, values, effects), labels,
// kubelet maps, kubelet_extra_args and cluster names, parses the bash back
// with the shell parser and checks bootstrap.sh and the kubelet get exactly
// the intended arguments; a hostile value anywhere must be rejected before
// anything is rendered, by every format.
func TestRenderedBashYieldsIntendedArgv(t *testing.T) {
	g := gen{rand.New(rand.NewPCG(2024, 7))}
	rendered, rejected := 0, 0
	for range 1500 {
		// A hostile value in the taints or the cluster name must stop
		// both renderers; one in the NodePool labels or kubelet maps only
		// AL2 (the bootstrap block has neither), one in node_labels or
		// kubelet_extra_args only the bootstrap block.
		var common, al2Only, customOnly bool
		ts := g.taints(g.r.IntN(4), &common)
		startup := g.taints(g.r.IntN(2), &common)
		name := g.maybe(g.clusterName(), injection, 14, &common)
		labels := g.labels(g.r.IntN(4), &al2Only)
		kubelet := manifest.Kubelet{SystemReserved: g.kubeletMap(&al2Only), KubeReserved: g.kubeletMap(&al2Only), EvictionHard: g.kubeletMap(&al2Only), EvictionSoft: g.kubeletMap(&al2Only)}
		nodeLabels := g.labels(g.r.IntN(3), &customOnly)
		var extra []string
		for n := g.r.IntN(4); n > 0; n-- {
			a := g.extraArg()
			switch g.r.IntN(16) {
			case 0:
				a, customOnly = g.spoil(a, quoting), true
			case 1:
				a, customOnly = []string{"--register-with-taints=a:NoSchedule", "--node-labels=a=b", "--register-with-taints"}[g.r.IntN(3)], true
			}
			extra = append(extra, a)
		}
		all := append(slices.Clone(ts), startup...)
		if len(taints.Duplicates(all)) > 0 {
			continue
		}
		alBad, customBad := common || al2Only, common || customOnly

		// Karpenter's AL2 rendering.
		o := baseOptions()
		o.ClusterName, o.Taints, o.StartupTaints, o.Labels, o.Kubelet, o.NodePoolName, o.NodeClassName = name, ts, startup, labels, kubelet, "", ""
		out, fs := Render(amifamily.AL2, o)
		if alBad != fs.HasErrors() || (alBad && out != "") {
			t.Fatalf("AL2: hostile=%v but findings %v (output %q)", alBad, fs, out)
		}
		// The bootstrap block's bootstrap.sh and nodeadm formats.
		b := Bootstrap{Format: FormatBootstrapSh, ClusterName: name, APIServerEndpoint: "https://x.example.com", CertificateAuthority: "Y2E=",
			ServiceCIDR: "10.0.0.0/16", RegisterWithTaints: all, NodeLabels: nodeLabels, KubeletExtraArgs: extra, PreBootstrapScript: "echo pre"}
		cout, cfs := RenderCustom(b)
		nb := b
		nb.Format = FormatNodeadm
		nout, nfs := RenderCustom(nb)
		if customBad != cfs.HasErrors() || (customBad && cout != "") || customBad != nfs.HasErrors() || (customBad && nout != "") {
			t.Fatalf("custom: hostile=%v but findings %v / %v (output %q / %q)", customBad, cfs, nfs, cout, nout)
		}
		if alBad || customBad {
			rejected++
		}
		if !alBad {
			checkAL2Argv(t, out, o)
		}
		if !customBad {
			checkCustomArgv(t, cout, b)
			rendered++
		}
	}
	if rendered < 200 || rejected < 200 {
		t.Fatalf("rendered %d, rejected %d: the generator is off", rendered, rejected)
	}
	t.Logf("rendered %d, rejected %d", rendered, rejected)
}

// checkAL2Argv parses Karpenter's bootstrap part back and compares the
// bootstrap.sh argv and the kubelet's arguments with the inputs.
func checkAL2Argv(t *testing.T, out string, o Options) {
	t.Helper()
	a, err := format.ReadArchive(out)
	if err != nil {
		t.Fatal(err)
	}
	calls, err := BootstrapCalls(a.Parts[len(a.Parts)-1].Body)
	if err != nil || len(calls) != 1 {
		t.Fatalf("%v %v", calls, err)
	}
	wantTaints := append(append(slices.Clone(o.Taints), o.StartupTaints...), taints.Unregistered)
	labels := EffectiveLabels(amifamily.AL2, o)
	extra := []string{`--node-labels="` + joinMap(labels, "=") + `"`, `--register-with-taints="` + taints.Join(wantTaints) + `"`, "--max-pods=110"}
	for _, m := range []struct {
		flag, sep string
		m         map[string]string
	}{{"--system-reserved", "=", o.Kubelet.SystemReserved}, {"--kube-reserved", "=", o.Kubelet.KubeReserved},
		{"--eviction-hard", "<", o.Kubelet.EvictionHard}, {"--eviction-soft", "<", o.Kubelet.EvictionSoft}} {
		if len(m.m) > 0 {
			extra = append(extra, m.flag+`="`+joinMap(m.m, m.sep)+`"`)
		}
	}
	want := []string{eksBootstrapPath, o.ClusterName, "--apiserver-endpoint", o.ClusterEndpoint, "--b64-cluster-ca", o.CABundle,
		"--dns-cluster-ip", o.KubeDNSIP, "--use-max-pods", "false", "--kubelet-extra-args", strings.Join(extra, " ")}
	if !slices.Equal(calls[0], want) {
		t.Fatalf("AL2 argv\n got %q\nwant %q", calls[0], want)
	}
	fields := kubeletFields(t, calls[0])
	checkKubeletTaints(t, fields, wantTaints)
	if got := parseLabelArg(t, flagIn(t, fields, "--node-labels")); !maps.Equal(got, labels) {
		t.Fatalf("kubelet labels %v, want %v", got, labels)
	}
	if len(o.Kubelet.EvictionHard) > 0 && flagIn(t, fields, "--eviction-hard") != joinMap(o.Kubelet.EvictionHard, "<") {
		t.Fatalf("kubelet --eviction-hard %q", flagIn(t, fields, "--eviction-hard"))
	}
}

// checkCustomArgv does the same for the Custom bootstrap.sh format.
func checkCustomArgv(t *testing.T, out string, b Bootstrap) {
	t.Helper()
	calls, err := BootstrapCalls(out)
	if err != nil || len(calls) != 1 {
		t.Fatalf("%v %v", calls, err)
	}
	wantTaints := EffectiveTaints(b.RegisterWithTaints, nil)
	var extra []string
	if len(b.NodeLabels) > 0 {
		extra = append(extra, "--node-labels="+joinMap(b.NodeLabels, "="))
	}
	extra = append(extra, "--register-with-taints="+taints.Join(wantTaints))
	for _, a := range b.KubeletExtraArgs {
		if n, v, ok := strings.Cut(a, "="); ok && strings.ContainsAny(v, "<>") {
			a = n + `="` + v + `"`
		}
		extra = append(extra, a)
	}
	want := []string{eksBootstrapPath, b.ClusterName, "--apiserver-endpoint", b.APIServerEndpoint, "--b64-cluster-ca", b.CertificateAuthority,
		"--kubelet-extra-args", strings.Join(extra, " ")}
	if !slices.Equal(calls[0], want) {
		t.Fatalf("custom argv\n got %q\nwant %q", calls[0], want)
	}
	fields := kubeletFields(t, calls[0])
	checkKubeletTaints(t, fields, wantTaints)
	if got := parseLabelArg(t, flagIn(t, fields, "--node-labels")); !maps.Equal(got, b.NodeLabels) && len(b.NodeLabels) > 0 {
		t.Fatalf("kubelet labels %v, want %v", got, b.NodeLabels)
	}
	// Every extra arg reaches the kubelet as written, as one argument.
	if got := fields[len(fields)-len(b.KubeletExtraArgs):]; !slices.Equal(got, b.KubeletExtraArgs) && len(b.KubeletExtraArgs) > 0 {
		t.Fatalf("kubelet extra args %q, want %q", got, b.KubeletExtraArgs)
	}
}

func flagIn(t *testing.T, fields []string, flag string) string {
	t.Helper()
	for _, f := range fields {
		if v, ok := strings.CutPrefix(f, flag+"="); ok {
			return v
		}
	}
	return ""
}

func checkKubeletTaints(t *testing.T, fields []string, want []taints.Taint) {
	t.Helper()
	got := flagIn(t, fields, "--register-with-taints")
	if parsed, err := taints.Parse(got); err != nil || !slices.Equal(parsed, want) {
		t.Fatalf("kubelet parses %q to %v (%v), want %v", got, parsed, err, want)
	}
}
