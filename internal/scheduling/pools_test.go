package scheduling

import (
	"strings"
	"testing"
)

// Input.Karpenter holds NodePools and EC2NodeClasses together (a GitOps
// directory given to karpenter-lint schedule --pools): each is read as its
// kind, objects of other kinds are set aside with their place, an older
// API version is refused at its document, and messages name the place as
// Describe says.
func TestKarpenterListReadsBothKinds(t *testing.T) {
	const pool = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: general\nspec:\n  template:\n    spec:\n" +
		"      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements: []\n"
	const class = "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata:\n  name: default\nspec:\n  role: r\n"
	const config = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: karpenter\n"
	old := strings.Replace(strings.Replace(pool, "karpenter.sh/v1", "karpenter.sh/v1beta1", 1), "general", "old", 1)
	p := Parse(Input{
		Karpenter: []string{class + "---\n" + pool, config + "---\n" + old},
		Describe:  func(list string, input int, pos Position) string { return list + " file " + string(rune('A'+input)) },
	})
	if len(p.pools) != 1 || p.pools[0].pool.Name != "general" || p.pools[0].input != 0 || p.pools[0].pos.Line != 8 {
		t.Errorf("pools: %+v", p.pools)
	}
	if len(p.Classes) != 1 || p.Classes[0].Manifest.Metadata.Name != "default" || p.Classes[0].Position.Line != 1 {
		t.Errorf("classes: %+v", p.Classes)
	}
	if len(p.Other) != 1 || p.Other[0] != (Object{Key: "karpenter/ConfigMap/settings", Input: 1, Position: Position{Line: 1, Column: 1}}) {
		t.Errorf("other: %+v", p.Other)
	}
	fs := p.Findings()
	if len(fs) != 1 {
		t.Fatalf("findings: %+v", fs)
	}
	f := fs[0]
	if f.Rule != ruleDocument || f.List != ListKarpenter || f.Input != 1 || f.Position.Line != 7 || f.Object != "/NodePool/old" ||
		!strings.Contains(f.Detail, "NodePool old (karpenter file B): Karpenter v1 serves NodePool only as karpenter.sh/v1; this document is apiVersion karpenter.sh/v1beta1") {
		t.Errorf("finding: %+v", f)
	}
	// Without Describe, the data source's element names the place.
	f = Parse(Input{NodePools: []string{class}}).Findings()[0]
	if f.List != ListNodePools || !strings.Contains(f.Detail, "(node_pools[0], document 1, line 1)") || !strings.Contains(f.Detail, "move it to node_classes") {
		t.Errorf("node_pools finding: %+v", f)
	}
}
