package nodepool

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/taints"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// fixtureNow: after the fixtures' custom deprecation, before any EKS image's
// (as in internal/ami's tests).
var fixtureNow = time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)

// env is the emulator with the project's fixtures, the resolver and the
// catalogues the provider would use against it.
type env struct {
	resolver *ami.Resolver
	live     *instancetype.Catalogue
}

func newEnv(t testing.TB) env {
	t.Helper()
	url, _ := awsemutest.Start(t)
	awsemutest.Setenv(t, url)
	cache := awsclient.NewCache(awsclient.NewClients(awsclient.Config{Region: "us-east-1", MaxRetries: 5}))
	live, err := instancetype.Load(context.Background(), cache)
	if err != nil || live.Source != instancetype.SourceLive {
		t.Fatalf("live catalogue: %v (%v)", err, live)
	}
	return env{resolver: &ami.Resolver{Source: cache, Now: func() time.Time { return fixtureNow }}, live: live}
}

func kv(s string) versions.Karpenter {
	v, err := versions.ParseKarpenter(s)
	if err != nil {
		panic(err)
	}
	return v
}

var k8s132 = versions.Kubernetes{Minor: 32}

// class resolves terms as the EC2NodeClass resource would and returns the
// node_class facts a NodePool receives. family is amiFamily as written
// ("" to follow the alias).
func (e env) class(t testing.TB, karpenter versions.Karpenter, family string, terms ...ami.Term) ClassFacts {
	t.Helper()
	res, err := e.resolver.Resolve(context.Background(), ami.Request{Terms: terms, Kubernetes: k8s132, Karpenter: karpenter})
	if err != nil || res.Findings.HasErrors() {
		t.Fatalf("resolve %+v: %v %v", terms, err, res.Findings)
	}
	f, ok := ami.ResolvedFamily(family, terms, karpenter)
	if !ok {
		t.Fatalf("no family for %q %+v", family, terms)
	}
	return ClassFacts{Known: true, Family: f, AMIs: res.AMIs}
}

// Custom userData of the fixtures: registers the taint Karpenter needs, and
// in the second form the agent's startup taint too.
const (
	customUserData = "#!/bin/bash\n/etc/eks/bootstrap.sh demo --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n"
	agentUserData  = "#!/bin/bash\n/etc/eks/bootstrap.sh demo --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute,example.com/agent-not-ready:NoExecute'\n"
)

var agentTaint = taints.Taint{Key: "example.com/agent-not-ready", Effect: taints.NoExecute}

// namedClass returns the class the docs examples call
// karpenter_ec2nodeclass.<name>, resolved for release karpenter.
func (e env) namedClass(t testing.TB, name string, karpenter versions.Karpenter) ClassFacts {
	t.Helper()
	switch name {
	case "default", "al2023":
		return e.class(t, karpenter, "", ami.Term{Alias: "al2023@latest"})
	case "al2":
		return e.class(t, karpenter, "", ami.Term{Alias: "al2@latest"})
	case "bottlerocket":
		return e.class(t, karpenter, "", ami.Term{Alias: "bottlerocket@latest"})
	case "windows":
		return e.class(t, karpenter, "", ami.Term{Alias: "windows2022@latest"})
	case "custom_amd64":
		return e.class(t, karpenter, "AL2023", ami.Term{ID: customAMD64ID})
	case "custom_images":
		return e.class(t, karpenter, "AL2023", ami.Term{Tags: map[string]string{"karpenter.sh/discovery": "demo"}})
	case "custom":
		c := e.class(t, karpenter, "Custom", ami.Term{Alias: "al2023@latest"})
		c.UserData, c.RegisteredTaints = customUserData, []taints.Taint{taints.Unregistered}
		return c
	case "custom_agent":
		c := e.class(t, karpenter, "Custom", ami.Term{Alias: "al2023@latest"})
		c.UserData, c.RegisteredTaints = agentUserData, []taints.Taint{taints.Unregistered, agentTaint}
		return c
	}
	t.Fatalf("no fixture class %q", name)
	return ClassFacts{}
}

// customAMD64ID is the x86_64 image the team's name/tag selectors pick
// (awsemu.CustomTieWinnerID).
const customAMD64ID = "ami-0aaf333b614a08570"

// newPool is a NodePool named name on class c with the requirements given
// as "key op v1,v2" strings.
func newPool(name string, c ClassFacts, className string, reqs ...string) Pool {
	p := Pool{Unknown: rules.Unknowns{}, Empty: PathSet{}, Class: c}
	p.Manifest.Metadata.Name = name
	p.Manifest.Spec.Template.Spec.NodeClassRef = NodeClassRef(nil, nil, className)
	for _, r := range reqs {
		p.Manifest.Spec.Template.Spec.Requirements = append(p.Manifest.Spec.Template.Spec.Requirements, parseReq(r))
	}
	return p
}

func parseReq(s string) manifest.Requirement {
	f := strings.Fields(s)
	r := manifest.Requirement{Key: f[0], Operator: f[1]}
	if len(f) > 2 {
		r.Values = strings.Split(f[2], ",")
	}
	return r
}

// ruleIDs lists the ids of findings, for failure messages.
func ruleIDs(fs rules.Findings) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Severity.String()+":"+f.Rule.ID)
	}
	return out
}

// only returns the findings of one rule, failing unless there is exactly one.
func only(t testing.TB, fs rules.Findings, id string) rules.Finding {
	t.Helper()
	got := fs.ByRule(id)
	if len(got) != 1 {
		t.Fatalf("want one %s finding, got %d: %v", id, len(got), fs)
	}
	return got[0]
}

func mustContain(t testing.TB, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%q\ndoes not contain %q", s, sub)
		}
	}
}
