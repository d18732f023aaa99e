package lint

import (
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/taints"
)

// expectNoErrors asserts that no finding fails the plan.
func expectNoErrors(t *testing.T, fs rules.Findings) {
	t.Helper()
	for _, f := range fs {
		if f.Severity == rules.Error {
			t.Fatalf("unexpected error finding: %v", f)
		}
	}
}

// The unregistered-taint check reads what the parsed script hands to the
// kubelet: the taint written anywhere else does not count.
func TestUnregisteredTaintIsReadFromTheParsedScript(t *testing.T) {
	wrong := "/etc/eks/bootstrap.sh c --kubelet-extra-args '--register-with-taints=a:NoSchedule'\n"
	for name, ud := range map[string]string{
		"comment":            "#!/bin/bash\n# TODO karpenter.sh/unregistered:NoExecute\n" + wrong,
		"echo":               "#!/bin/bash\necho 'add karpenter.sh/unregistered:NoExecute later'\n" + wrong,
		"here-document":      "#!/bin/bash\ncat > /tmp/notes <<EOF\n--register-with-taints=karpenter.sh/unregistered:NoExecute\nEOF\n" + wrong,
		"unused var":         "#!/bin/bash\nT=karpenter.sh/unregistered:NoExecute\n" + wrong,
		"the '=' form":       "#!/bin/bash\n/etc/eks/bootstrap.sh c --kubelet-extra-args='--register-with-taints=karpenter.sh/unregistered:NoExecute'\n",
		"sudo drops env":     "#!/bin/bash\nexport KUBELET_EXTRA_ARGS=--register-with-taints=karpenter.sh/unregistered:NoExecute\nsudo /etc/eks/bootstrap.sh c\n",
		"not exported":       "#!/bin/bash\nKUBELET_EXTRA_ARGS=--register-with-taints=karpenter.sh/unregistered:NoExecute\n/etc/eks/bootstrap.sh c\n",
		"powershell comment": "<powershell>\n# karpenter.sh/unregistered:NoExecute\n& \"$env:ProgramFiles\\Amazon\\EKS\\Start-EKSBootstrap.ps1\" -EKSClusterName c -KubeletExtraArgs '--register-with-taints=a:NoSchedule'\n</powershell>\n",
	} {
		t.Run(name, func(t *testing.T) {
			expectRule(t, lintFor(t, amifamily.Custom, ud), "unregistered-taint-missing", rules.Error)
			if got := RegisteredTaints(ud, v1_14); hasUnregistered(got) {
				t.Fatalf("RegisteredTaints counts the unregistered taint: %v", got)
			}
		})
	}
	for name, ud := range map[string]string{
		"variable in extra args":  "#!/bin/bash\nT=karpenter.sh/unregistered:NoExecute\n/etc/eks/bootstrap.sh c --kubelet-extra-args \"--register-with-taints=$T\"\n",
		"variable as flag value":  "#!/bin/bash\nTAINTS=karpenter.sh/unregistered:NoExecute,a:NoSchedule\n/etc/eks/bootstrap.sh c --kubelet-extra-args --register-with-taints=$TAINTS\n",
		"variable built up":       "#!/bin/bash\nARGS=--node-labels=a=b\nARGS=\"$ARGS --register-with-taints=karpenter.sh/unregistered:NoExecute\"\n/etc/eks/bootstrap.sh c --kubelet-extra-args \"$ARGS\"\n",
		"unquoted options":        "#!/bin/bash\nOPTS=\"--kubelet-extra-args --register-with-taints=karpenter.sh/unregistered:NoExecute\"\n/etc/eks/bootstrap.sh c $OPTS\n",
		"exported environment":    "#!/bin/bash\nexport KUBELET_EXTRA_ARGS='--register-with-taints=karpenter.sh/unregistered:NoExecute'\n/etc/eks/bootstrap.sh c\n",
		"command environment":     "#!/bin/bash\nKUBELET_EXTRA_ARGS='--register-with-taints=karpenter.sh/unregistered:NoExecute' /etc/eks/bootstrap.sh c\n",
		"env wrapper":             "#!/bin/bash\nenv KUBELET_EXTRA_ARGS=--register-with-taints=karpenter.sh/unregistered:NoExecute /etc/eks/bootstrap.sh c\n",
		"sudo -E keeps env":       "#!/bin/bash\nexport KUBELET_EXTRA_ARGS=--register-with-taints=karpenter.sh/unregistered:NoExecute\nsudo -E /etc/eks/bootstrap.sh c\n",
		"assigned in the branch":  "#!/bin/bash\nif [ -f /x ]; then\n  T=karpenter.sh/unregistered:NoExecute\n  /etc/eks/bootstrap.sh c --kubelet-extra-args \"--register-with-taints=$T\"\nfi\n",
		"bootstrap.sh in var":     "#!/bin/bash\nB=/etc/eks/bootstrap.sh\n$B c --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n",
		"powershell variables":    "<powershell>\n[string]$EKSBootstrapScriptFile = \"$env:ProgramFiles\\Amazon\\EKS\\Start-EKSBootstrap.ps1\"\n$Taints = 'karpenter.sh/unregistered:NoExecute'\n& $EKSBootstrapScriptFile -EKSClusterName 'c' -KubeletExtraArgs \"--node-labels=a=b --register-with-taints=$Taints\" 3>&1 4>&1\n</powershell>\n",
		"powershell continuation": "<powershell>\n& 'C:\\Program Files\\Amazon\\EKS\\Start-EKSBootstrap.ps1' `\n  -EKSClusterName c `\n  -kubeletextra:'--register-with-taints=\"karpenter.sh/unregistered:NoExecute\"'\n</powershell>\n",
	} {
		t.Run("resolved: "+name, func(t *testing.T) {
			fs := lintFor(t, amifamily.Custom, ud)
			expectNone(t, fs, "unregistered-taint-missing")
			expectNoErrors(t, fs)
			if got := RegisteredTaints(ud, v1_14); !hasUnregistered(got) {
				t.Fatalf("RegisteredTaints %v", got)
			}
		})
	}
	// What only the node knows is not claimed to be missing: a warning
	// says the check could not be made, and why.
	for name, c := range map[string]struct{ ud, why string }{
		"command substitution":  {"#!/bin/bash\n/etc/eks/bootstrap.sh c --kubelet-extra-args \"--register-with-taints=$(cat /etc/taints)\"\n", "command substitution `$(cat /etc/taints)`"},
		"never assigned":        {"#!/bin/bash\n/etc/eks/bootstrap.sh c --kubelet-extra-args \"$EXTRA\"\n", "`$EXTRA`, which the script never assigns"},
		"assigned in a branch":  {"#!/bin/bash\nif [ -f /x ]; then T=karpenter.sh/unregistered:NoExecute; fi\n/etc/eks/bootstrap.sh c --kubelet-extra-args \"--register-with-taints=$T\"\n", "only in a branch"},
		"read at boot":          {"#!/bin/bash\nT=a:NoSchedule\nread -r T < /etc/taints\n/etc/eks/bootstrap.sh c --kubelet-extra-args \"--register-with-taints=$T\"\n", "`$T`"},
		"unquoted unknown":      {"#!/bin/bash\n/etc/eks/bootstrap.sh c --kubelet-extra-args '--node-labels=a=b' $MORE\n", "may expand to a --kubelet-extra-args"},
		"function called later": {"#!/bin/bash\nT=a:NoSchedule\nboot() { /etc/eks/bootstrap.sh c --kubelet-extra-args \"--register-with-taints=$T\"; }\nT=karpenter.sh/unregistered:NoExecute\nboot\n", "`$T`"},
		"powershell variable":   {"<powershell>\n& $env:ProgramFiles\\Amazon\\EKS\\Start-EKSBootstrap.ps1 -EKSClusterName c -KubeletExtraArgs $env:KUBELET_ARGS\n</powershell>\n", "-KubeletExtraArgs on line 2"},
	} {
		t.Run("unknown: "+name, func(t *testing.T) {
			fs := lintFor(t, amifamily.Custom, c.ud)
			expectRule(t, fs, "unregistered-taint-missing", rules.Warning, "cannot verify", c.why, "only decided at boot")
			expectNoErrors(t, fs)
			if got := RegisteredTaints(c.ud, v1_14); !hasUnregistered(got) {
				t.Fatalf("an unverifiable taint must not fail NodePools: %v", got)
			}
		})
	}
}

// bootstrap.sh keeps the last --kubelet-extra-args and the kubelet the
// last --register-with-taints.
func TestLastOneWins(t *testing.T) {
	for name, c := range map[string]struct {
		ud      string
		family  amifamily.Family
		repeats string
	}{
		"two --register-with-taints": {bs + "--kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute --register-with-taints=a:NoSchedule'\n", amifamily.Custom,
			"--register-with-taints is given 2 times"},
		"two --kubelet-extra-args": {bs + "--kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute' \\\n  --kubelet-extra-args '--node-labels=team=a'\n", amifamily.Custom,
			"passes --kubelet-extra-args 2 times"},
		"flags of two NodeConfigs":     {"MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"B\"\n\n--B\nContent-Type: application/node.eks.aws\n\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    flags: ['--register-with-taints=karpenter.sh/unregistered:NoExecute']\n--B\nContent-Type: application/node.eks.aws\n\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    flags: ['--register-with-taints=a:NoSchedule']\n--B--\n", amifamily.Custom, ""},
		"flag over registerWithTaints": {"apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      registerWithTaints: [{key: karpenter.sh/unregistered, effect: NoExecute}]\n    flags: ['--register-with-taints=a:NoSchedule']\n", amifamily.Custom, ""},
		"powershell parameter twice":   {"<powershell>\n& $env:ProgramFiles\\Amazon\\EKS\\Start-EKSBootstrap.ps1 -EKSClusterName c -KubeletExtraArgs '--register-with-taints=karpenter.sh/unregistered:NoExecute' -KubeletExtraArgs '--node-labels=a=b'\n</powershell>\n", amifamily.Custom, ""},
	} {
		t.Run(name, func(t *testing.T) {
			fs := lintFor(t, c.family, c.ud)
			expectRule(t, fs, "unregistered-taint-missing", rules.Error)
			if c.repeats != "" {
				expectRule(t, fs, "option-repeated", rules.Warning, c.repeats, "only the last")
			}
			if got := RegisteredTaints(c.ud, v1_14); hasUnregistered(got) {
				t.Fatalf("the discarded unregistered taint is counted: %v", got)
			}
		})
	}
	t.Run("the finding explains the discarded list", func(t *testing.T) {
		fs := lintFor(t, amifamily.Custom, bs+"--kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute' --kubelet-extra-args '--register-with-taints=a:NoSchedule'\n")
		expectRule(t, fs, "unregistered-taint-missing", rules.Error, "registers the node with a:NoSchedule", "listed earlier", "keeps only the last --kubelet-extra-args")
	})
	t.Run("an empty --register-with-taints clears the list", func(t *testing.T) {
		fs := lintFor(t, amifamily.Custom, bs+"--kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute --register-with-taints='\n")
		expectRule(t, fs, "unregistered-taint-missing", rules.Error)
	})
	t.Run("the last one with the taint is fine", func(t *testing.T) {
		fs := lintFor(t, amifamily.Custom, bs+"--kubelet-extra-args '--register-with-taints=a:NoSchedule --register-with-taints=karpenter.sh/unregistered:NoExecute'\n")
		expectNone(t, fs, "unregistered-taint-missing")
		expectRule(t, fs, "option-repeated", rules.Warning, "e.g. --register-with-taints=a:NoSchedule,karpenter.sh/unregistered:NoExecute")
	})
	t.Run("every occurrence is parsed by the kubelet", func(t *testing.T) {
		fs := lintFor(t, amifamily.Custom, bs+"--kubelet-extra-args '--register-with-taints=a=b/c:NoSchedule --register-with-taints=karpenter.sh/unregistered:NoExecute'\n")
		expectRule(t, fs, "kubelet-taint-invalid", rules.Error, "a=b/c:NoSchedule")
	})
}

// Custom userData without a #! line is not run by cloud-init, and is still
// linted as shell.
func TestCustomWithoutShebang(t *testing.T) {
	t.Run("bootstrap.sh call", func(t *testing.T) {
		fs := lintFor(t, amifamily.Custom, "/etc/eks/bootstrap.sh c --kubelet-extra-args='--register-with-taints=karpenter.sh/unregistered:NoExecute'\n")
		expectRule(t, fs, "userdata-not-run-by-cloud-init", rules.Error, "no #! line", "Unhandled non-multipart (text/x-not-multipart) userdata", "#!/bin/bash")
		expectRule(t, fs, "bootstrap-option-equals", rules.Error, "--kubelet-extra-args=")
	})
	t.Run("registers the taint", func(t *testing.T) {
		fs := lintFor(t, amifamily.Custom, "\n/etc/eks/bootstrap.sh c --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n")
		expectRule(t, fs, "userdata-not-run-by-cloud-init", rules.Error, "bootstrap.sh call on line 2 never runs")
		expectNone(t, fs, "unregistered-taint-missing")
	})
	t.Run("other text is a warning", func(t *testing.T) {
		expectRule(t, lintFor(t, amifamily.Custom, "machine:\n  type: worker\n"), "userdata-not-run-by-cloud-init", rules.Warning, "If the AMI reads its userData in another way")
		expectRule(t, lintFor(t, amifamily.Custom, "{\"ignition\": {\"version\": \"3.4.0\"}}\n"), "userdata-not-run-by-cloud-init", rules.Warning, "Unhandled non-multipart")
	})
	for name, ud := range map[string]string{
		"shebang":         bs + "--kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n",
		"leading space":   "\n  " + bs + "--kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n",
		"python":          "#!/usr/bin/env python3\nprint('hi')\n",
		"cloud-config":    "#cloud-config\nruncmd:\n- [/etc/eks/bootstrap.sh, c]\n",
		"upper case":      "#Cloud-Config\npackages: [jq]\n",
		"boothook":        "#cloud-boothook\n#!/bin/sh\necho hi\n",
		"include":         "#include\nhttps://example.com/userdata\n",
		"jinja template":  "## template: jinja\n#!/bin/bash\necho {{ v1.instance_id }}\n",
		"bottlerocket":    "[settings.kubernetes.node-taints]\n'karpenter.sh/unregistered' = [':NoExecute']\n",
		"powershell":      "<powershell>\nWrite-Host hi\n</powershell>\n",
		"nodeconfig":      "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec: {}\n",
		"mime":            "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"B\"\n\n--B\nContent-Type: text/x-shellscript\n\n#!/bin/bash\necho hi\n--B--\n",
		"empty":           "",
		"only whitespace": " \n",
	} {
		t.Run("cloud-init runs "+name, func(t *testing.T) {
			expectNone(t, lintFor(t, amifamily.Custom, ud), "userdata-not-run-by-cloud-init")
		})
	}
}

// systemd splits NODEADM_KUBELET_ARGS at whitespace: a flag inside a longer
// entry reaches the kubelet too.
func TestNodeConfigTaintFlagInsideAnEntry(t *testing.T) {
	nc := "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    flags:\n    - --node-labels=a=b --register-with-taints=x:NoSchedule\n"
	fs := lintFor(t, amifamily.AL2023, nc)
	expectRule(t, fs, "nodeconfig-register-with-taints-flag", rules.Error, `"--register-with-taints=x:NoSchedule"`, "systemd splits it at whitespace")
	expectNone(t, lintFor(t, amifamily.AL2023, "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    flags:\n    - --node-labels=a=b --v=2\n"), "nodeconfig-register-with-taints-flag")
}

func TestMessages(t *testing.T) {
	t.Run("registerWithTaints not a list", func(t *testing.T) {
		nc := "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      registerWithTaints: karpenter.sh/unregistered:NoExecute\n"
		fs := lintFor(t, amifamily.Custom, nc)
		expectRule(t, fs, "nodeconfig-invalid", rules.Error, `"karpenter.sh/unregistered:NoExecute"`, "kubelet cannot decode it and exits", "registerWithTaints: [{key: karpenter.sh/unregistered, effect: NoExecute}]")
		expectNone(t, fs, "unregistered-taint-missing")
		// On AL2023 Karpenter's own list replaces it, whatever it is.
		fs = lintFor(t, amifamily.AL2023, nc)
		expectNone(t, fs, "nodeconfig-invalid")
		expectRule(t, fs, "nodeconfig-field-overridden", rules.Warning, "spec.kubelet.config.registerWithTaints")
	})
	t.Run("bottlerocket overridden settings", func(t *testing.T) {
		fs := lintFor(t, amifamily.Bottlerocket, "[settings.kubernetes]\ncluster-name = 'mine'\napi-server = 'https://x'\ncluster-certificate = 'Y2E='\nmax-pods = 42\n")
		expectRule(t, fs, "bottlerocket-setting-overridden", rules.Warning, `cluster-name = "mine"`, "the cluster name", "Karpenter writes the name of the cluster it runs in")
		expectRule(t, fs, "bottlerocket-setting-overridden", rules.Warning, `api-server = "https://x"`, "Karpenter writes the endpoint of the cluster it runs in")
		expectRule(t, fs, "bottlerocket-setting-overridden", rules.Warning, `cluster-certificate = "Y2E="`, "Karpenter writes the CA bundle of the cluster it runs in")
		expectRule(t, fs, "bottlerocket-setting-overridden", rules.Warning, "max-pods = 42", "kubelet.maxPods")
		for _, f := range fs.ByRule("bottlerocket-setting-overridden") {
			if !strings.Contains(f.Detail, "max-pods") && strings.Contains(f.Detail, "maxPods") {
				t.Errorf("max pods advice on another key: %s", f.Detail)
			}
		}
	})
	t.Run("PowerShell fix for PowerShell userData", func(t *testing.T) {
		fs := lintFor(t, amifamily.Custom, "<powershell>\n& $env:ProgramFiles\\Amazon\\EKS\\Start-EKSBootstrap.ps1 -EKSClusterName c\n</powershell>\n")
		expectRule(t, fs, "unregistered-taint-missing", rules.Error, "Start-EKSBootstrap.ps1 call on line 2", "-KubeletExtraArgs '--register-with-taints=karpenter.sh/unregistered:NoExecute'")
		for _, f := range fs.ByRule("unregistered-taint-missing") {
			if strings.Contains(f.Detail, "--kubelet-extra-args '") {
				t.Errorf("bootstrap.sh advice for PowerShell: %s", f.Detail)
			}
		}
	})
}

// RegisteredTaints returns the last list, for NodePools' startup taints.
func TestRegisteredTaintsLastOneWins(t *testing.T) {
	got := RegisteredTaints(bs+"--kubelet-extra-args '--register-with-taints=x:NoSchedule' --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute,gpu:NoSchedule'\n", v1_14)
	if taints.Join(got) != "karpenter.sh/unregistered:NoExecute,gpu:NoSchedule" {
		t.Fatalf("got %v", got)
	}
}
