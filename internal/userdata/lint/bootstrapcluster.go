package lint

import (
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata/format"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata/shell"
)

// BootstrapCall is one bootstrap.sh call of userData written by hand.
type BootstrapCall struct {
	// Line is the call's line in its script; Where names the MIME part
	// ("" for a plain script).
	Line  int
	Where string
	// Cluster is the cluster name argument when the script writes it out
	// (ClusterKnown), e.g. `bootstrap.sh my-cluster`.
	Cluster      string
	ClusterKnown bool
	// Endpoint and CA report --apiserver-endpoint and --b64-cluster-ca:
	// without both bootstrap.sh asks eks:DescribeCluster for the named
	// cluster at boot.
	Endpoint, CA bool
}

// BootstrapCalls lists the bootstrap.sh calls of the userData's shell
// scripts (the whole script, or its text/x-shellscript MIME parts), with
// the script's variables followed, as bootstrap.sh's case loop reads its
// arguments: options take the next word, the first other word is the
// cluster name.
func BootstrapCalls(ud string) []BootstrapCall {
	var out []BootstrapCall
	for _, s := range shellScripts(ud) {
		f, err := shell.Parse(s.body)
		if err != nil {
			continue
		}
		vars := shell.CollectVars(f)
		for _, call := range shell.Calls(f) {
			args := shell.ResolveArgs(call.Call.Args, vars.EnvAt(call.Call))
			idx := shell.BootstrapIndexIn(len(args), func(i int) (string, bool) { return args[i].Value, args[i].Known })
			if idx < 0 || !strings.HasSuffix(args[idx].Value, "bootstrap.sh") {
				continue
			}
			bc := BootstrapCall{Line: int(call.Call.Pos().Line()), Where: s.where}
			positional := false
			for j := idx + 1; j < len(args); j++ {
				a := args[j]
				if !a.Known {
					if !positional && !strings.HasPrefix(a.Prefix, "-") {
						positional = true // a cluster name from a variable
					}
					continue
				}
				opt, _, hasValue := strings.Cut(a.Value, "=")
				if bootstrapOptions[opt] {
					bc.Endpoint = bc.Endpoint || opt == "--apiserver-endpoint"
					bc.CA = bc.CA || opt == "--b64-cluster-ca"
					if !hasValue {
						j++
					}
					continue
				}
				if !positional && !strings.HasPrefix(a.Value, "-") {
					positional = true
					bc.Cluster, bc.ClusterKnown = a.Value, true
				}
			}
			out = append(out, bc)
		}
	}
	return out
}

// shellScript is one shell script of a userData: its text, and where it
// stands ("" for the whole userData, else its MIME part).
type shellScript struct{ body, where string }

// shellScripts are the shell scripts of a userData as cloud-init reads
// them: the whole userData, or the text/x-shellscript parts of its MIME
// archive (one without a closing boundary read to its end); none when
// the archive cannot be read.
func shellScripts(ud string) []shellScript {
	if !format.LooksLikeMIME(ud) {
		return []shellScript{{ud, ""}}
	}
	a, err := format.ReadArchive(ud)
	if me, ok := err.(*format.MIMEError); ok && me.Unterminated() {
		a, err = format.ReadUnterminated(ud, me)
	}
	if err != nil {
		return nil
	}
	var out []shellScript
	for i, p := range a.Parts {
		if isShellPart(p) {
			out = append(out, shellScript{p.Body, partName(i)})
		}
	}
	return out
}
