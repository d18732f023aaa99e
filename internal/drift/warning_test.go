package drift

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

func mustContain(t *testing.T, text string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(text, p) {
			t.Errorf("missing %q in:\n%s", p, text)
		}
	}
}

func TestWarningOnHashedChange(t *testing.T) {
	old := baseClass()
	updated := class(func(s *manifest.EC2NodeClassSpec) { s.Kubelet = &manifest.Kubelet{MaxPods: p(int32(58))} })
	ch, err := EC2NodeClassChanges(old, updated, "", "", latest)
	if err != nil {
		t.Fatal(err)
	}
	pv := Preview{Kind: manifest.EC2NodeClassKind, Name: "default", Changes: ch}
	f, ok := pv.Finding()
	if !ok {
		t.Fatal("no warning for a kubelet change")
	}
	if f.Rule != RuleNodesWillDrift || f.Severity.String() != "warning" {
		t.Errorf("finding %v", f)
	}
	mustContain(t, f.Detail, "spec.kubelet.maxPods changes the karpenter.k8s.aws/ec2nodeclass-hash", "the nodes of the pools on this class launched before it",
		"each pool at the pace of its disruption budgets")

	// A pool's hashed change: its own budgets and grace period pace it.
	pv = Preview{Kind: manifest.NodePoolKind, Name: "batch", Changes: []Change{{Path: "spec.template.spec.taints", Effect: ReplacesAll}},
		Pool: &Pool{Budgets: []manifest.Budget{{Nodes: "2"}, {Nodes: "5"}}, TerminationGracePeriod: "2h"}}
	mustContain(t, pv.Detail(), "spec.template.spec.taints changes the karpenter.sh/nodepool-hash: Karpenter replaces this pool's nodes launched before it",
		"at most 2 nodes at a time", "deleted after terminationGracePeriod 2h")
}

func TestWarningOnImageChange(t *testing.T) {
	old := class(func(s *manifest.EC2NodeClassSpec) {
		s.AMISelectorTerms = []manifest.AMISelectorTerm{{Alias: "al2023@v20251112"}}
	})
	updated := class(func(s *manifest.EC2NodeClassSpec) {
		s.AMISelectorTerms = []manifest.AMISelectorTerm{{Alias: "al2023@v20251209"}}
		s.SubnetSelectorTerms = []manifest.SubnetSelectorTerm{{ID: "subnet-0123"}}
	})
	ch, err := EC2NodeClassChanges(old, updated, "", "", latest)
	if err != nil {
		t.Fatal(err)
	}
	images := ImageChanges(
		map[string]string{"arm64/standard": "ami-0aaa", "amd64/standard": "ami-0ccc", "amd64/neuron": "ami-0fff", "arm64/nvidia": "ami-0999"},
		map[string]string{"arm64/standard": "ami-0bbb", "amd64/standard": "ami-0ddd", "amd64/neuron": "ami-0fff", "amd64/nvidia": "ami-0eee"})
	if len(images) != 4 {
		t.Fatalf("image changes %+v", images)
	}
	pv := Preview{Kind: manifest.EC2NodeClassKind, Name: "default", Changes: ch, Images: images}
	f, ok := pv.Finding()
	if !ok {
		t.Fatal("no warning for an image change")
	}
	if (Preview{Kind: manifest.EC2NodeClassKind, Changes: ch, Images: ImageChanges(map[string]string{"a": "x"}, map[string]string{"a": "x"})}).Drifts() {
		t.Error("same images drift")
	}
	// The keys, never the ids: the plan above the warning prints those.
	mustContain(t, f.Detail, "4 images change (amd64/nvidia, amd64/standard, arm64/nvidia, arm64/standard)",
		"the nodes of the pools on this class booted from the old images (AMIDrift)", "default: 10% of its nodes",
		"Also, spec.subnetSelectorTerms replaces the nodes it no longer selects.")
	for _, id := range []string{"ami-0", "spec.amiSelectorTerms", `"default"`} {
		if strings.Contains(f.Detail, id) {
			t.Errorf("the warning repeats %q, which the plan or the summary prints:\n%s", id, f.Detail)
		}
	}
}

func TestNoWarningOnUnhashedChange(t *testing.T) {
	for _, edit := range []func(*manifest.NodePoolSpec){
		func(s *manifest.NodePoolSpec) { s.Weight = p(int32(90)) },
		func(s *manifest.NodePoolSpec) { s.Limits = map[string]string{"cpu": "64"} },
		func(s *manifest.NodePoolSpec) {
			s.Disruption = &manifest.Disruption{ConsolidationPolicy: "WhenEmpty", ConsolidateAfter: p("10m"), Budgets: []manifest.Budget{{Nodes: "0"}}}
		},
		func(s *manifest.NodePoolSpec) { s.Template.Spec.ExpireAfter = "720h" },
	} {
		updated := pool(edit)
		ch, err := NodePoolChanges(basePool(), updated, latest)
		if err != nil {
			t.Fatal(err)
		}
		if len(ch) == 0 {
			t.Fatalf("no change found for %+v", updated)
		}
		pv := Preview{Kind: manifest.NodePoolKind, Name: "default", Changes: ch, Pool: &Pool{}}
		if _, ok := pv.Finding(); ok || pv.Drifts() {
			t.Errorf("%v warns: %s", ch, pv.Detail())
		}
	}
	// Nor on the class's selector terms alone: their nodes drift only if
	// what they resolve to changes, which the caller reports as images.
	ch, _ := EC2NodeClassChanges(baseClass(), class(func(s *manifest.EC2NodeClassSpec) {
		s.SubnetSelectorTerms = []manifest.SubnetSelectorTerm{{ID: "subnet-0123"}}
	}), "", "", latest)
	if pv := (Preview{Kind: manifest.EC2NodeClassKind, Name: "default", Changes: ch}); pv.Drifts() {
		t.Errorf("%v warns", ch)
	}
}

func TestPacing(t *testing.T) {
	tests := []struct {
		pool Pool
		want []string
	}{
		{Pool{}, []string{"at most 10% of its nodes at a time (rounded up)", "a drain waits for PodDisruptionBudgets"}},
		{Pool{Budgets: []manifest.Budget{{Nodes: "0"}}}, []string{"a budget of 0 nodes holds the replacement"}},
		{Pool{Budgets: []manifest.Budget{{Nodes: "0", Reasons: []string{"Underutilized", "Empty"}}}},
			[]string{"all at once: no budget limits drift"}},
		{Pool{Budgets: []manifest.Budget{{Nodes: "20%"}, {Nodes: "5%", Reasons: []string{"Drifted"}}}}, []string{"at most 5% of its nodes"}},
		{Pool{Budgets: []manifest.Budget{{Nodes: "20%"}, {Nodes: "3"}}}, []string{"at most the smaller of 20%, 3"}},
		{Pool{Budgets: []manifest.Budget{{Nodes: "1"}, {Nodes: "0", Schedule: p("0 9 * * mon-fri"), Duration: p("8h")}}},
			[]string{`at most 1 node at a time, 0 during "0 9 * * mon-fri" for 8h`}},
		{Pool{Budgets: []manifest.Budget{{Nodes: "0", Schedule: p("@daily"), Duration: p("1h")}}},
			[]string{"no budget limiting drift outside its schedules"}},
		{Pool{TerminationGracePeriod: "30m"}, []string{"deleted after terminationGracePeriod 30m"}},
	}
	for _, tc := range tests {
		mustContain(t, pacing(tc.pool), tc.want...)
	}
}

// The rule's docs examples are HCL in block syntax: the failing one bumps
// a pinned alias (an image change), the passing one acknowledges the warning
// next to a pool whose drift budget paces the rollout.
func TestRuleExamples(t *testing.T) {
	r := rules.Lookup("nodes-will-drift")
	if r != RuleNodesWillDrift || r.Severity != rules.Warning {
		t.Fatalf("rule %+v", r)
	}
	for name, src := range map[string]string{"Bad": r.Bad, "Good": r.Good} {
		f, diags := hclsyntax.ParseConfig([]byte(src), name+".tf", hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatalf("%s example: %v\n%s", name, diags, src)
		}
		body := f.Body.(*hclsyntax.Body)
		if len(body.Blocks) == 0 || body.Blocks[0].Labels[0] != "karpenter_ec2nodeclass" {
			t.Errorf("%s example does not start with an EC2NodeClass:\n%s", name, src)
		}
		terms := body.Blocks[0].Body.Blocks
		if len(terms) == 0 || terms[0].Type != "ami_selector_terms" || terms[0].Body.Attributes["alias"] == nil {
			t.Errorf("%s example has no ami_selector_terms block with an alias:\n%s", name, src)
		}
	}
	mustContain(t, r.Good, `acknowledged_warnings = ["nodes-will-drift"]`, `reasons = ["Drifted"]`)
}
