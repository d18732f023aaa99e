package lint

import (
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata/shell"
)

// FuzzShellLint feeds arbitrary scripts to the shell linter of every
// family that runs shell: no panic, and every finding names a rule.
func FuzzShellLint(f *testing.F) {
	for _, s := range []string{
		bs + `--kubelet-extra-args='--register-with-taints="k:NoExecute"'`,
		bs + `--kubelet-extra-args '--register-with-taints "k:NoExecute"'`,
		bs + `--kubelet-extra-args '--register-with-taints=k:NoExecute'`,
		bs + "\\\n--kubelet-extra-args '--eviction-hard=memory.available<500Mi --node-labels=a=b,kubernetes.io/x=y'",
		bs + "--kubelet-extra-args --eviction-hard=memory.available<500Mi >> log 2>&1",
		"#!/bin/bash\nsudo bash /etc/eks/bootstrap.sh c --b64-cluster-ca=\"$CA\"\n--kubelet-extra-args x\n",
		"#!/bin/bash\ncat <<EOF\n$(echo hi)\nEOF\n",
		"#!/bin/bash\nT=x; T+=y; export A=\"$T\"\nif a; then B=(1 2); fi\nf() { local C; read -r D; }\n/etc/eks/bootstrap.sh c --kubelet-extra-args \"--register-with-taints=$T\" $A ${B:-$(c)} ${!E} ${F[0]}\n",
		"#!/bin/bash\nfor T in a b; do export KUBELET_EXTRA_ARGS=$T; done\nsudo -E env Y=1 /etc/eks/bootstrap.sh c | tee x &\n",
		"/etc/eks/bootstrap.sh c --kubelet-extra-args '--register-with-taints=k:NoExecute --register-with-taints=' --kubelet-extra-args y\n",
		"#!/bin/bash\ncat <<'EOF' > /etc/systemd/system/kubelet.service.d/9.conf\nEnvironment='KUBELET_EXTRA_ARGS=--x'\nEOF\njq . /etc/kubernetes/kubelet/kubelet-config.json\n",
		"#!/bin/bash\nmdadm --create /dev/md0 --level=0 $(ls /dev/disk/by-id/*Instance_Storage*)\nmkfs.xfs /dev/md0\n",
		"MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"B\"\n\n--B\nContent-Type: text/x-shellscript\n\n/etc/eks/bootstrap.sh my-cluster --apiserver-endpoint\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, fam := range []amifamily.Family{amifamily.AL2, amifamily.AL2023, amifamily.Custom} {
			for _, fi := range UserData(fam, s, v1_14) {
				if fi.Rule == nil || fi.Detail == "" {
					t.Fatalf("finding without rule or detail: %#v", fi)
				}
			}
		}
		// Custom userData on AL2023 images (nodeadm's reading, AL2's
		// kubelet mechanisms) and the readers of the class checks.
		for _, fi := range CustomOn(amifamily.AL2023, s, v1_14) {
			if fi.Rule == nil || fi.Detail == "" {
				t.Fatalf("finding without rule or detail: %#v", fi)
			}
		}
		for _, c := range BootstrapCalls(s) {
			if c.Line < 1 || (c.ClusterKnown && c.Cluster == "") {
				t.Fatalf("call %+v", c)
			}
		}
		_ = DiskAssembly(s)
		// The systemd splitter must terminate on any input.
		_, _, _ = shell.SplitSystemd(s)
	})
}
