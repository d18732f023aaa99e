package nodeclass

import (
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/cluster"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// A Custom bootstrap.sh call naming another cluster, with no endpoint and
// CA: an error against the provider's cluster, a warning against the
// discovery tag, nothing when the call names the cluster meant or carries
// its endpoint and CA, or when Karpenter bootstraps the family itself.
func TestBootstrapOtherCluster(t *testing.T) {
	class := func(family, ud, tag string) Class {
		c := Class{Family: family, Terms: []ami.Term{{ID: "ami-0123456789abcdef0"}}}
		c.Spec.UserData = &ud
		c.Spec.SubnetSelectorTerms = []manifest.SubnetSelectorTerm{{Tags: map[string]string{discoveryTag: tag}}}
		return c
	}
	const taint = " --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'"
	call := "#!/bin/bash\nNAME=my-cluster\n/etc/eks/bootstrap.sh \"$NAME\"" + taint + "\n"
	kv := versions.DefaultKarpenter
	check := func(name string, fs rules.Findings, sev rules.Severity, want ...string) {
		t.Helper()
		got := fs.ByRule(ruleOtherCluster.ID)
		if len(want) == 0 {
			if len(got) > 0 {
				t.Errorf("%s: %v", name, got)
			}
			return
		}
		if len(got) != 1 || got[0].Severity != sev || got[0].Path.String() != "user_data" {
			t.Fatalf("%s: %v", name, fs)
		}
		for _, w := range want {
			if !strings.Contains(got[0].Detail, w) {
				t.Errorf("%s: %q lacks %q", name, got[0].Detail, w)
			}
		}
	}
	check("configured", Plan(PlanInput{Class: class("Custom", call, "demo"), Cluster: cluster.Facts{Name: "demo"}, Karpenter: kv}).Findings,
		rules.Error, "Line 3", "bootstrap.sh my-cluster", `cluster "demo"`)
	check("tag", BootstrapClusterFindings(class("Custom", call, "demo"), kv, ""), rules.Warning, "karpenter.sh/discovery: demo")
	check("configured agrees, tag differs", BootstrapClusterFindings(class("Custom", call, "shared-vpc"), kv, "my-cluster"), rules.Error)
	check("right name", BootstrapClusterFindings(class("Custom", call, "my-cluster"), kv, ""), rules.Error)
	withFacts := "#!/bin/bash\n/etc/eks/bootstrap.sh my-cluster --apiserver-endpoint https://x.eks.amazonaws.com --b64-cluster-ca Y2E=" + taint + "\n"
	check("endpoint and CA", BootstrapClusterFindings(class("Custom", withFacts, "demo"), kv, "demo"), rules.Error)
	check("AL2 family", BootstrapClusterFindings(class("AL2", call, "demo"), kv, "demo"), rules.Error)
	mime := "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"B\"\n\n--B\nContent-Type: text/x-shellscript\n\n#!/bin/bash\n/etc/eks/bootstrap.sh my-cluster" + taint + "\n--B\n"
	check("MIME part", BootstrapClusterFindings(class("Custom", mime, "demo"), kv, "demo"), rules.Error, "MIME part 1")
	// The docs example, decided at plan for the resource.
	bad, _, _ := decodeClass(t, ruleOtherCluster.Bad)
	check("docs Bad", Plan(PlanInput{Class: bad, Karpenter: kv}).Findings, rules.Warning, "my-cluster")
	good, _, _ := decodeClass(t, ruleOtherCluster.Good)
	check("docs Good", Plan(PlanInput{Class: good, Karpenter: kv}).Findings, rules.Warning)
}
