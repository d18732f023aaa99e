package userdata

import (
	"fmt"
	"strings"
)

// renderWindows is Karpenter's Windows.Script: the user's data verbatim
// inside <powershell>, then the Start-EKSBootstrap.ps1 call with the same
// kubelet arguments as AL2. -ServiceCIDR is not passed (Karpenter's
// documented limitation).
func renderWindows(r resolved) string {
	var b strings.Builder
	b.WriteString("<powershell>\n")
	if r.UserData != "" {
		b.WriteString(r.UserData + "\n")
	}
	b.WriteString("[string]$EKSBootstrapScriptFile = \"$env:ProgramFiles\\Amazon\\EKS\\Start-EKSBootstrap.ps1\"\n")
	fmt.Fprintf(&b, "& $EKSBootstrapScriptFile -EKSClusterName '%s' -APIServerEndpoint '%s'", r.ClusterName, r.ClusterEndpoint)
	if r.CABundle != "" {
		fmt.Fprintf(&b, " -Base64ClusterCA '%s'", r.CABundle)
	}
	if args := kubeletExtraArgs(r); len(args) > 0 {
		fmt.Fprintf(&b, " -KubeletExtraArgs '%s'", strings.Join(args, " "))
	}
	if len(r.Kubelet.ClusterDNS) > 0 {
		fmt.Fprintf(&b, " -DNSClusterIP '%s'", r.Kubelet.ClusterDNS[0])
	}
	b.WriteString("\n</powershell>")
	return b.String()
}
