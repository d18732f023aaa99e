package userdata

import (
	"fmt"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata/format"
)

// al2Script is Karpenter's EKS.eksBootstrapScript: bootstrap.sh options
// always as `--opt 'value'`, never `--opt=value` (bootstrap.sh has no
// `--opt=*` branch), each extra option on a continuation line.
func al2Script(r resolved) string {
	var b strings.Builder
	b.WriteString("#!/bin/bash -xe\n")
	b.WriteString("exec > >(tee /var/log/user-data.log|logger -t user-data -s 2>/dev/console) 2>&1\n")
	ca := ""
	if r.CABundle != "" {
		ca = fmt.Sprintf("--b64-cluster-ca '%s'", r.CABundle)
	}
	// The trailing space before an empty CA argument is Karpenter's.
	fmt.Fprintf(&b, "/etc/eks/bootstrap.sh '%s' --apiserver-endpoint '%s' %s", r.ClusterName, r.ClusterEndpoint, ca)
	if isIPv6DNS(r.Kubelet.ClusterDNS) {
		b.WriteString(" \\\n--ip-family ipv6")
	}
	if len(r.Kubelet.ClusterDNS) > 0 {
		fmt.Fprintf(&b, " \\\n--dns-cluster-ip '%s'", r.Kubelet.ClusterDNS[0])
	}
	if r.Kubelet.MaxPods != nil {
		b.WriteString(" \\\n--use-max-pods false")
	}
	if args := kubeletExtraArgs(r); len(args) > 0 {
		fmt.Fprintf(&b, " \\\n--kubelet-extra-args '%s'", strings.Join(args, " "))
	}
	if r.InstanceStorePolicy == "RAID0" {
		b.WriteString(" \\\n--local-disks raid0")
	}
	return b.String()
}

// renderAL2 merges the user's userData and the bootstrap script into one
// archive, user parts first (EKS.Script / mergeCustomUserData): a MIME input
// keeps its parts with all their headers, anything else becomes one shell
// part.
func renderAL2(r resolved) (string, error) {
	var parts []format.Part
	if r.UserData != "" {
		if format.LooksLikeMIME(r.UserData) {
			a, err := format.ReadArchive(r.UserData)
			if err != nil {
				return "", err
			}
			parts = append(parts, a.Parts...)
		} else {
			parts = append(parts, format.TypedPart(format.ContentTypeShell, r.UserData))
		}
	}
	parts = append(parts, format.TypedPart(format.ContentTypeShell, al2Script(r)))
	return format.WriteArchive(parts), nil
}
