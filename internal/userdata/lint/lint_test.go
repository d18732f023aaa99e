package lint

import (
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

var v1_14 = versions.DefaultKarpenter

func lintFor(t *testing.T, f amifamily.Family, ud string) rules.Findings {
	t.Helper()
	return UserData(f, ud, v1_14)
}

// expectRule asserts that rule id is reported with severity sev and a
// detail containing every fragment.
func expectRule(t *testing.T, fs rules.Findings, id string, sev rules.Severity, fragments ...string) {
	t.Helper()
	got := fs.ByRule(id)
	if len(got) == 0 {
		t.Fatalf("want %s, got %v", id, fs)
	}
	for _, f := range got {
		if f.Severity != sev {
			continue
		}
		ok := true
		for _, fr := range fragments {
			if !strings.Contains(f.Detail, fr) {
				ok = false
			}
		}
		if ok {
			return
		}
	}
	t.Fatalf("no %s finding with severity %s containing %q: %v", id, sev, fragments, got)
}

func expectNone(t *testing.T, fs rules.Findings, ids ...string) {
	t.Helper()
	for _, id := range ids {
		if got := fs.ByRule(id); len(got) > 0 {
			t.Fatalf("unexpected %s: %v", id, got)
		}
	}
}

const bs = "#!/bin/bash\n/etc/eks/bootstrap.sh my-cluster "

// errorRules lists the rules of the error-severity findings.
func errorRules(fs rules.Findings) []string {
	var ids []string
	for _, f := range fs {
		if f.Severity == rules.Error {
			ids = append(ids, f.Rule.ID)
		}
	}
	return ids
}

// The three forms of the AL2 bootstrap.sh call that decide whether the
// taint reaches the kubelet: --opt=value (never matched by bootstrap.sh's
// case loop), --opt 'value', and quotes inside the value
// (awslabs/amazon-eks-ami templates/al2/runtime/bootstrap.sh).
func TestSeedForms(t *testing.T) {
	t.Run("equals form is an error and explained", func(t *testing.T) {
		fs := lintFor(t, amifamily.Custom, bs+`--kubelet-extra-args='--register-with-taints="k:NoExecute"'`+"\n")
		expectRule(t, fs, "bootstrap-option-equals", rules.Error,
			`--kubelet-extra-args=--register-with-taints="k:NoExecute"`, "never matches its `case`", "silently ignored", "--kubelet-extra-args '<value>'")
		// The kubelet never sees the taint, so nothing is registered.
		expectRule(t, fs, "unregistered-taint-missing", rules.Error)
		if got := errorRules(fs); len(got) != 2 {
			t.Fatalf("want exactly those two errors, got %v", fs)
		}
	})
	for name, args := range map[string]string{
		"space-separated flag value": `'--register-with-taints "k:NoExecute"'`,
		"flag=value":                 `'--register-with-taints=k:NoExecute'`,
	} {
		t.Run(name+" is accepted", func(t *testing.T) {
			ud := bs + "--kubelet-extra-args " + args + "\n"
			// AL2 userData: no error at all (Karpenter's own call adds
			// the unregistered taint; calling bootstrap.sh is a warning).
			if fs := lintFor(t, amifamily.AL2, ud); fs.HasErrors() {
				t.Fatalf("errors for an accepted form: %v", fs)
			}
			// Custom: the form works, so the only error is that k is not
			// karpenter.sh/unregistered ...
			fs := lintFor(t, amifamily.Custom, ud)
			if got := errorRules(fs); len(got) != 1 || got[0] != "unregistered-taint-missing" {
				t.Fatalf("want only unregistered-taint-missing, got %v", fs)
			}
			c := &lintCtx{format: amifamily.FormatCustom}
			c.lintShell(ud, "")
			if reg := c.registeredTaints(); len(reg) != 1 || reg[0].String() != "k:NoExecute" {
				t.Fatalf("registered %v", reg)
			}
			// ... and with that taint it has no error.
			ud = strings.ReplaceAll(ud, "k:NoExecute", "karpenter.sh/unregistered:NoExecute")
			if fs := lintFor(t, amifamily.Custom, ud); fs.HasErrors() {
				t.Fatalf("errors for an accepted form: %v", fs)
			}
		})
	}
}

func TestBootstrapShChecks(t *testing.T) {
	t.Run("other --opt= forms", func(t *testing.T) {
		fs := lintFor(t, amifamily.Custom, bs+"--apiserver-endpoint=https://x --b64-cluster-ca=\"$CA\" --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n")
		expectRule(t, fs, "bootstrap-option-equals", rules.Error, "--apiserver-endpoint=https://x", "ignores the option")
		expectRule(t, fs, "bootstrap-option-equals", rules.Error, "--b64-cluster-ca=...")
	})
	t.Run("missing continuation", func(t *testing.T) {
		fs := lintFor(t, amifamily.Custom, bs+"\n--kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n")
		expectRule(t, fs, "bootstrap-continuation-missing", rules.Error, "Line 3", "command not found")
	})
	t.Run("wrappers and nesting", func(t *testing.T) {
		fs := lintFor(t, amifamily.Custom, "#!/bin/bash\nif true; then\n  sudo -E bash /etc/eks/bootstrap.sh c --kubelet-extra-args='--node-labels=a=b'\nfi\n")
		expectRule(t, fs, "bootstrap-option-equals", rules.Error, "Line 3")
	})
	t.Run("single quote inside extra args", func(t *testing.T) {
		fs := lintFor(t, amifamily.Custom, bs+`--kubelet-extra-args "--node-labels='a=b' --register-with-taints=karpenter.sh/unregistered:NoExecute"`+"\n")
		expectRule(t, fs, "kubelet-args-single-quote", rules.Error, "Environment='KUBELET_EXTRA_ARGS=<value>'")
	})
	t.Run("literal quotes reach the kubelet", func(t *testing.T) {
		fs := lintFor(t, amifamily.Custom, bs+`--kubelet-extra-args "--register-with-taints=\\\"karpenter.sh/unregistered:NoExecute\\\""`+"\n")
		expectRule(t, fs, "kubelet-taint-invalid", rules.Error, "unsupported taint effect", "Literal quote characters reach the kubelet")
	})
	t.Run("taint value with slash", func(t *testing.T) {
		fs := lintFor(t, amifamily.Custom, bs+"--kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute,team=a/b:NoSchedule'\n")
		expectRule(t, fs, "kubelet-taint-invalid", rules.Error, "team=a/b:NoSchedule", "invalid taint spec")
	})
	t.Run("taint without effect", func(t *testing.T) {
		fs := lintFor(t, amifamily.Custom, bs+"--kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute,team'\n")
		expectRule(t, fs, "kubelet-taint-invalid", rules.Error, "effect is required")
	})
	for name, args := range map[string]string{
		"space after comma":   "--register-with-taints=karpenter.sh/unregistered:NoExecute, team=a:NoSchedule",
		"quoted space":        `--register-with-taints="karpenter.sh/unregistered:NoExecute, team=a:NoSchedule"`,
		"stray second taint":  "--register-with-taints=karpenter.sh/unregistered:NoExecute team=a:NoSchedule",
		"space before comma ": "--register-with-taints=karpenter.sh/unregistered:NoExecute ,team=a:NoSchedule",
	} {
		t.Run(name, func(t *testing.T) {
			fs := lintFor(t, amifamily.Custom, bs+"--kubelet-extra-args '"+args+"'\n")
			expectRule(t, fs, "kubelet-taints-space", rules.Error, "space inside the taint list")
		})
	}
	t.Run("unquoted redirect inside the value", func(t *testing.T) {
		fs := lintFor(t, amifamily.Custom, bs+"--kubelet-extra-args '--eviction-hard=memory.available<500Mi --register-with-taints=karpenter.sh/unregistered:NoExecute'\n")
		expectRule(t, fs, "kubelet-args-unquoted-redirect", rules.Warning, "memory.available<500Mi")
		expectNone(t, fs, "kubelet-taint-invalid", "unregistered-taint-missing")
	})
	t.Run("unquoted redirect in the shell", func(t *testing.T) {
		fs := lintFor(t, amifamily.Custom, bs+"--kubelet-extra-args --eviction-hard=memory.available<500Mi\n")
		expectRule(t, fs, "kubelet-args-unquoted-redirect", rules.Warning, "memory.available<500Mi")
	})
	t.Run("quoted redirect is fine", func(t *testing.T) {
		fs := lintFor(t, amifamily.Custom, bs+"--kubelet-extra-args '--eviction-hard=\"memory.available<500Mi\" --register-with-taints=karpenter.sh/unregistered:NoExecute' >> /var/log/bootstrap.log 2>&1\n")
		expectNone(t, fs, "kubelet-args-unquoted-redirect")
	})
	t.Run("unknown option", func(t *testing.T) {
		fs := lintFor(t, amifamily.Custom, bs+"--max-pods 110 --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n")
		expectRule(t, fs, "bootstrap-option-unknown", rules.Warning, "--max-pods")
	})
	t.Run("restricted and invalid labels", func(t *testing.T) {
		fs := lintFor(t, amifamily.AL2, bs+"--kubelet-extra-args '--node-labels=node-role.kubernetes.io/worker=true,node.kubernetes.io/lifecycle=spot,kubernetes.io/arch=amd64,team=a b'\n")
		expectRule(t, fs, "kubelet-label-restricted", rules.Error, "node-role.kubernetes.io/worker", "unknown 'kubernetes.io' or 'k8s.io' labels")
		if d := fs.ByRule("kubelet-label-restricted")[0].Detail; strings.Contains(d, "sets node.kubernetes.io/lifecycle") || strings.Contains(d, "sets kubernetes.io/arch") {
			t.Fatalf("allowed labels reported: %s", d)
		}
	})
	t.Run("syntax error", func(t *testing.T) {
		fs := lintFor(t, amifamily.AL2, "#!/bin/bash\necho 'unterminated\n")
		expectRule(t, fs, "shell-syntax-error", rules.Error, "does not parse")
		// The script's bootstrap call is never read: no claim that the
		// userData has none with the taint.
		fs = lintFor(t, amifamily.Custom, "#!/bin/bash\nif [ -f /etc/eks/bootstrap.sh ]; then\n  /etc/eks/bootstrap.sh my-cluster --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n")
		expectRule(t, fs, "shell-syntax-error", rules.Error, "does not parse")
		expectNone(t, fs, "unregistered-taint-missing")
	})
	t.Run("AL2 calls bootstrap.sh", func(t *testing.T) {
		expectRule(t, lintFor(t, amifamily.AL2, bs+"\n"), "al2-bootstrap-sh-call", rules.Warning, "bootstrapped twice")
		expectNone(t, lintFor(t, amifamily.Custom, bs+"--kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n"), "al2-bootstrap-sh-call")
	})
}

func TestUnregisteredTaint(t *testing.T) {
	missing := bs + "--kubelet-extra-args '--node-labels=team=a'\n"
	t.Run("before 1.3 the node is deleted", func(t *testing.T) {
		fs := UserData(amifamily.Custom, missing, versions.Karpenter{Minor: 2, Patch: 1})
		expectRule(t, fs, "unregistered-taint-missing", rules.Error, "missing required startup taint, karpenter.sh/unregistered", "15-minute registration timeout")
	})
	t.Run("from 1.3 registration races", func(t *testing.T) {
		fs := UserData(amifamily.Custom, missing, versions.Karpenter{Minor: 3, Patch: 0})
		expectRule(t, fs, "unregistered-taint-missing", rules.Error, "UnregisteredTaintMissing", "registration races")
	})
	t.Run("did you mean uninitialized", func(t *testing.T) {
		fs := lintFor(t, amifamily.Custom, bs+"--kubelet-extra-args '--register-with-taints=karpenter.sh/uninitialized:NoExecute'\n")
		expectRule(t, fs, "unregistered-taint-missing", rules.Error, "Did you mean karpenter.sh/unregistered:NoExecute instead of karpenter.sh/uninitialized")
	})
	t.Run("did you mean NoExecute", func(t *testing.T) {
		fs := lintFor(t, amifamily.Custom, bs+"--kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoSchedule'\n")
		expectRule(t, fs, "unregistered-taint-missing", rules.Error, "effect must be NoExecute")
	})
	t.Run("empty Custom userData", func(t *testing.T) {
		expectRule(t, lintFor(t, amifamily.Custom, ""), "unregistered-taint-missing", rules.Error, "does not register")
	})
	for name, ud := range map[string]string{
		"nodeadm registerWithTaints": "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      registerWithTaints:\n      - key: karpenter.sh/unregistered\n        effect: NoExecute\n",
		"nodeadm flags":              "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    flags:\n    - --register-with-taints=\"karpenter.sh/unregistered:NoExecute\"\n",
		"nodeadm in MIME":            "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"B\"\n\n--B\nContent-Type: application/node.eks.aws\n\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    flags: [\"--register-with-taints=karpenter.sh/unregistered:NoExecute\"]\n--B--\n",
		"bottlerocket node-taints":   "[settings.kubernetes]\ncluster-name = 'c'\n[settings.kubernetes.node-taints]\n'karpenter.sh/unregistered' = [':NoExecute']\n",
		"bootstrap.sh extra args":    bs + "--kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n",
		"through a variable":         "#!/bin/bash\nT=karpenter.sh/unregistered:NoExecute\n/etc/eks/bootstrap.sh c --kubelet-extra-args \"--register-with-taints=$T\"\n",
	} {
		t.Run("recognised in "+name, func(t *testing.T) {
			expectNone(t, lintFor(t, amifamily.Custom, ud), "unregistered-taint-missing")
		})
	}
	t.Run("bottlerocket near miss", func(t *testing.T) {
		fs := lintFor(t, amifamily.Custom, "[settings.kubernetes.node-taints]\n'karpenter.sh/unregistered' = [':NoSchedule']\n")
		expectRule(t, fs, "unregistered-taint-missing", rules.Error, "effect must be NoExecute")
	})
	t.Run("nodeadm invalid registerWithTaints", func(t *testing.T) {
		fs := lintFor(t, amifamily.Custom, "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      registerWithTaints:\n      - key: karpenter.sh/unregistered\n        effect: NoExecute\n      - key: team\n        value: a/b\n        effect: NoSchedule\n")
		expectRule(t, fs, "kubelet-taint-invalid", rules.Error, "a/b")
	})
}

func TestAL2023Checks(t *testing.T) {
	nc := func(body string) string { return "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n" + body }
	t.Run("flag overrides registerWithTaints", func(t *testing.T) {
		fs := lintFor(t, amifamily.AL2023, nc("  kubelet:\n    flags:\n    - --register-with-taints=team=a:NoSchedule\n"))
		expectRule(t, fs, "nodeconfig-register-with-taints-flag", rules.Error, "--register-with-taints=team=a:NoSchedule", "flags override the config file")
	})
	t.Run("overridden fields", func(t *testing.T) {
		fs := lintFor(t, amifamily.AL2023, nc("  cluster:\n    name: x\n    cidr: 10.0.0.0/16\n  kubelet:\n    config:\n      maxPods: 42\n      registerWithTaints: []\n"))
		for _, f := range []string{"spec.cluster.name", "spec.cluster.cidr", "spec.kubelet.config.maxPods", "spec.kubelet.config.registerWithTaints"} {
			expectRule(t, fs, "nodeconfig-field-overridden", rules.Warning, f)
		}
		if n := len(fs.ByRule("nodeconfig-field-overridden")); n != 4 {
			t.Fatalf("%d overridden findings", n)
		}
	})
	t.Run("labels in flags", func(t *testing.T) {
		fs := lintFor(t, amifamily.AL2023, nc("  kubelet:\n    flags: ['--node-labels=node-role.kubernetes.io/gpu=true']\n"))
		expectRule(t, fs, "kubelet-label-restricted", rules.Error, "node-role.kubernetes.io/gpu")
	})
	t.Run("bootstrap.sh on AL2023", func(t *testing.T) {
		fs := lintFor(t, amifamily.AL2023, "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"B\"\n\n--B\nContent-Type: text/x-shellscript\n\n#!/bin/bash\n/etc/eks/bootstrap.sh c\n--B--\n")
		expectRule(t, fs, "al2023-bootstrap-sh", rules.Error, "exits 1", "MIME part 1")
	})
	t.Run("a YAML map that is not a NodeConfig", func(t *testing.T) {
		fs := lintFor(t, amifamily.AL2023, "#cloud-config\npackages:\n- jq\n")
		expectRule(t, fs, "nodeconfig-invalid", rules.Error, "not a NodeConfig", "#cloud-config")
	})
	t.Run("comment-only script becomes an empty NodeConfig", func(t *testing.T) {
		fs := lintFor(t, amifamily.AL2023, "#!/bin/bash\n# nothing yet\n")
		expectRule(t, fs, "nodeconfig-invalid", rules.Warning, "not a NodeConfig")
	})
	t.Run("undecodable NodeConfig", func(t *testing.T) {
		fs := lintFor(t, amifamily.AL2023, nc("  kubelet:\n    flags: 3\n"))
		expectRule(t, fs, "nodeconfig-invalid", rules.Error, "does not decode")
	})
	t.Run("TOML on AL2023", func(t *testing.T) {
		expectRule(t, lintFor(t, amifamily.AL2023, "[settings.kubernetes]\nmax-pods = 3\n"), "userdata-format-mismatch", rules.Error, "Bottlerocket settings TOML")
	})
}

func TestBottlerocketChecks(t *testing.T) {
	t.Run("invalid TOML", func(t *testing.T) {
		expectRule(t, lintFor(t, amifamily.Bottlerocket, "[settings.kubernetes\n"), "bottlerocket-toml-invalid", rules.Error, "invalid UserData")
	})
	t.Run("typed value of the wrong type", func(t *testing.T) {
		expectRule(t, lintFor(t, amifamily.Bottlerocket, "[settings.kubernetes]\nmax-pods = 'x'\n"), "bottlerocket-toml-invalid", rules.Error)
	})
	t.Run("dropped, overridden and unknown settings", func(t *testing.T) {
		fs := lintFor(t, amifamily.Bottlerocket, "[settings.kubernetes]\ncluster-name = 'x'\napi-server = 'y'\nnode-label = 'z'\n[settings.kubernetes.node-taints]\nteam = ['a:NoSchedule']\n[settings.kubernetes.node-labels]\n'kubernetes.io/role' = 'x'\n")
		expectRule(t, fs, "bottlerocket-unknown-setting", rules.Warning, "settings.kubernetes.node-label ")
		expectRule(t, fs, "bottlerocket-node-taints-dropped", rules.Warning, "team")
		expectRule(t, fs, "bottlerocket-setting-overridden", rules.Warning, "cluster-name")
		expectRule(t, fs, "bottlerocket-setting-overridden", rules.Warning, "api-server")
		expectRule(t, fs, "kubelet-label-restricted", rules.Error, "kubernetes.io/role")
	})
	t.Run("shell and MIME", func(t *testing.T) {
		expectRule(t, lintFor(t, amifamily.Bottlerocket, "#!/bin/bash\necho hi\n"), "userdata-format-mismatch", rules.Error, "a shell script")
		expectRule(t, lintFor(t, amifamily.Bottlerocket, "MIME-Version: 1.0\n"), "userdata-format-mismatch", rules.Error, "a MIME archive")
	})
}

func TestMIMEAndSizeChecks(t *testing.T) {
	for name, c := range map[string]struct {
		ud, want string
		f        amifamily.Family
	}{
		"AL2 not multipart":           {"Content-Type: text/x-shellscript\n\necho hi\n", "user data is not in multipart MIME format", amifamily.AL2},
		"AL2 no content type":         {"MIME-Version: 1.0\n\n--B\n", "does not define a content-type header", amifamily.AL2},
		"AL2 unreadable":              {"MIME-Version: 1.0\nbroken header\n\n", "unreadable user data", amifamily.AL2},
		"AL2 no boundary at all":      {"MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"B\"\n\n--B\nContent-Type: text/x-shellscript\n\necho hi\n", "unexpected EOF", amifamily.AL2},
		"AL2023 not multipart":        {"Content-Type: text/plain\n\nx", "archive is not in multipart format", amifamily.AL2023},
		"AL2023 missing content type": {"MIME-Version: 1.0\n\nx", "archive doesn't have Content-Type header", amifamily.AL2023},
	} {
		t.Run(name, func(t *testing.T) {
			expectRule(t, lintFor(t, c.f, c.ud), "mime-invalid", rules.Error, c.want)
		})
	}
	t.Run("Custom MIME is only a warning", func(t *testing.T) {
		expectRule(t, lintFor(t, amifamily.Custom, "Content-Type: text/plain\n\nx"), "mime-invalid", rules.Warning)
	})
	t.Run("unterminated", func(t *testing.T) {
		open := "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"B\"\n\n--B\nContent-Type: text/x-shellscript\n\n#!/bin/bash\necho hi\n--B\n"
		// Karpenter's own Custom examples end with "--B": Go's reader and
		// cloud-init's both read it; no finding for any consumer.
		for _, f := range []amifamily.Family{amifamily.AL2, amifamily.AL2023, amifamily.Custom} {
			expectNone(t, lintFor(t, f, open), "mime-unterminated")
		}
		expectNone(t, CustomOn(amifamily.AL2023, open, versions.DefaultKarpenter), "mime-unterminated")
		// No boundary line after the last part at all: cloud-init reads
		// it (and the part is still linted); nodeadm, on AL2023 images,
		// fails.
		cut := "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"B\"\n\n--B\nContent-Type: application/node.eks.aws\n\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      maxPods: 42\n"
		expectNone(t, lintFor(t, amifamily.Custom, cut), "mime-unterminated")
		expectNone(t, lintFor(t, amifamily.Custom, cut), "mime-invalid")
		expectNone(t, CustomOn(amifamily.AL2, cut, versions.DefaultKarpenter), "mime-unterminated")
		expectRule(t, CustomOn(amifamily.AL2023, cut, versions.DefaultKarpenter), "mime-unterminated", rules.Error, "nodeadm", "unexpected EOF", "--B--")
		shell := strings.Replace(cut, "Content-Type: application/node.eks.aws\n\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      maxPods: 42\n", "Content-Type: text/x-shellscript\n\n#!/bin/bash\nif true; then\n", 1)
		expectRule(t, lintFor(t, amifamily.Custom, shell), "shell-syntax-error", rules.Error)
		// For AL2 and AL2023 Karpenter reads the archive with Go's reader
		// and fails on the same input.
		expectRule(t, lintFor(t, amifamily.AL2023, cut), "mime-invalid", rules.Error, "unexpected EOF")
	})
	t.Run("size", func(t *testing.T) {
		big := "#!/bin/bash\n" + strings.Repeat("# padding\n", 1700)
		expectRule(t, lintFor(t, amifamily.AL2, big), "userdata-too-large", rules.Error, "UserDataSizeLimitExceeded")
	})
}

func TestAL2FormatMismatch(t *testing.T) {
	expectRule(t, lintFor(t, amifamily.AL2, "#cloud-config\npackages: [jq]\n"), "userdata-format-mismatch", rules.Error, "text/cloud-config")
	expectRule(t, lintFor(t, amifamily.AL2, "[settings.kubernetes]\nmax-pods = 3\n"), "userdata-format-mismatch", rules.Error, "Bottlerocket settings TOML")
}

func TestWindowsChecks(t *testing.T) {
	fs := lintFor(t, amifamily.Windows2025, "<PowerShell>\nWrite-Host hi\n</PowerShell>\n")
	expectRule(t, fs, "windows-powershell-tags", rules.Warning, "<powershell>")
	expectRule(t, fs, "windows-powershell-tags", rules.Warning, "</powershell>")
	expectNone(t, lintFor(t, amifamily.Windows2019, "Write-Host hi\n"), "windows-powershell-tags")
}

// AL2's kubelet mechanisms in a script on AL2023 nodes: the file and the
// variables do not exist there. On AL2 the same script is fine, and a
// drop-in that does not use AL2's variables is not reported.
func TestAL2MechanismsOnAL2023(t *testing.T) {
	jq := "#!/bin/bash\nset -e\njq '.maxPods = 110' /etc/kubernetes/kubelet/kubelet-config.json > /tmp/k.json\nmv /tmp/k.json /etc/kubernetes/kubelet/kubelet-config.json\n"
	expectRule(t, lintFor(t, amifamily.AL2023, jq), "al2023-al2-kubelet-config", rules.Error, "Line 3", "kubelet-config.json")
	expectNone(t, lintFor(t, amifamily.AL2, jq), "al2023-al2-kubelet-config")
	expectRule(t, CustomOn(amifamily.AL2023, jq, versions.DefaultKarpenter), "al2023-al2-kubelet-config", rules.Error)
	echo := "#!/bin/bash\nmkdir -p /etc/systemd/system/kubelet.service.d\necho -e \"[Service]\\nEnvironment='KUBELET_ARGS=--max-pods=50'\" > /etc/systemd/system/kubelet.service.d/99-pods.conf\n"
	expectRule(t, lintFor(t, amifamily.AL2023, echo), "al2023-al2-kubelet-config", rules.Error, "Line 3", "KUBELET_ARGS")
	other := "#!/bin/bash\ncat <<EOF > /etc/systemd/system/kubelet.service.d/99-limits.conf\n[Service]\nLimitNOFILE=1048576\nEOF\n"
	expectNone(t, lintFor(t, amifamily.AL2023, other), "al2023-al2-kubelet-config")
}
