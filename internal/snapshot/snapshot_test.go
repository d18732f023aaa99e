package snapshot_test

import (
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot/snapshottest"
)

func sample() *snapshottest.List {
	l := &snapshottest.List{}
	l.Add(snapshottest.Node{Name: "ip-10-0-1-1", Pool: "general", Class: "default", InstanceType: "m5.large", Zone: "us-east-1a", CPU: "1930m", Memory: "7Gi", Pods: 29})
	l.AddPod(snapshottest.Pod{Namespace: "default", Name: "web-1", Node: "ip-10-0-1-1", CPU: "500m", Memory: "1Gi", Labels: map[string]string{"app": "web"}})
	l.AddPDB(snapshottest.PDB{Namespace: "default", Name: "web", Labels: map[string]string{"app": "web"}, MaxUnavailable: 1})
	return l
}

func TestParseReadsKubectlList(t *testing.T) {
	s := snapshot.Parse(sample().YAML())
	if len(s.Findings) != 0 {
		t.Fatalf("findings: %v", s.Findings)
	}
	if len(s.Nodes) != 1 || len(s.NodeClaims) != 1 || len(s.Pods) != 1 || len(s.PDBs) != 1 || s.Items != 4 {
		t.Fatalf("read %d nodes, %d claims, %d pods, %d pdbs, %d items", len(s.Nodes), len(s.NodeClaims), len(s.Pods), len(s.PDBs), s.Items)
	}
	if s.NodeClaims[0].Status.ProviderID != s.Nodes[0].Spec.ProviderID || s.Pods[0].Spec.NodeName != "ip-10-0-1-1" {
		t.Fatalf("fields not decoded: %+v", s.NodeClaims[0].Status)
	}
}

func TestParseFindings(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string // substrings of the findings, in order
	}{
		{"empty", "", []string{"the snapshot: it holds no object"}},
		{"not yaml", "items: [", []string{"item 0, line 1: the document is not YAML"}},
		{"scalar", "just text", []string{"not a mapping"}},
		{"no kind", "apiVersion: v1\nkind: List\nitems:\n- metadata: {name: a}\n", []string{"a (item 0, line 4): it has no apiVersion or no kind"}},
		{"other kind", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: web, namespace: default}\n",
			[]string{"Deployment default/web (item 0, line 4): a Deployment is not part of a cluster snapshot"}},
		{"old version", "apiVersion: karpenter.sh/v1beta1\nkind: NodeClaim\nmetadata: {name: a}\n", []string{`apiVersion "karpenter.sh/v1beta1": Karpenter v1 reads NodeClaim at karpenter.sh/v1`}},
		{"no namespace", "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n", []string{"Pod a (item 0, line 1): it has no metadata.namespace"}},
		{"no allocatable", "apiVersion: v1\nkind: Node\nmetadata: {name: node1}\nspec: {providerID: 'aws:///a/i-1'}\n", []string{"Node node1 (item 0, line 1): it has no status.allocatable"}},
		{"managed without providerID", "apiVersion: v1\nkind: Node\nmetadata: {name: node1, labels: {karpenter.sh/nodepool: p, node.kubernetes.io/instance-type: m5.large}}\nstatus: {allocatable: {cpu: '1'}}\n",
			[]string{"belongs to NodePool p but has no spec.providerID"}},
		{"claim without pool", "apiVersion: karpenter.sh/v1\nkind: NodeClaim\nmetadata: {name: c}\nspec: {nodeClassRef: {name: d, group: karpenter.k8s.aws, kind: EC2NodeClass}}\n",
			[]string{"NodeClaim c (item 0, line 1): it has no karpenter.sh/nodepool label"}},
		{"wrong type", "apiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: d}\nspec: {containers: 3}\n", []string{"it does not decode as a Pod"}},
		{"duplicate", "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Pod, metadata: {name: a, namespace: d}}\n- {apiVersion: v1, kind: Pod, metadata: {name: a, namespace: d}}\n",
			[]string{"Pod d/a (item 1, line 5): it is in the snapshot twice (item 0 first)"}},
		{"pod on missing node", "apiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: d}\nspec: {nodeName: gone, containers: []}\n",
			[]string{"Node gone (the snapshot): 1 pod(s) are bound to it but it is not in the snapshot"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := snapshot.Parse(tc.text)
			if len(s.Findings) != len(tc.want) {
				t.Fatalf("findings %v, want %d", s.Findings, len(tc.want))
			}
			for i, w := range tc.want {
				if got := s.Findings[i].String(); !strings.Contains(got, w) {
					t.Errorf("finding %d = %q, want it to contain %q", i, got, w)
				}
			}
		})
	}
}

func TestParseNodeWithoutClaim(t *testing.T) {
	// kubectl get nodes,pods without nodeclaims: the nodes are read, and
	// the snapshot says their NodeClaims are missing.
	text := sample().YAML()
	s := snapshot.Parse(strings.Replace(text, "kind: NodeClaim", "kind: NodeClaimX", 1))
	var msgs []string
	for _, f := range s.Findings {
		msgs = append(msgs, f.String())
	}
	joined := strings.Join(msgs, "\n")
	for _, w := range []string{"a NodeClaimX is not part of a cluster snapshot", "1 node(s) of a NodePool have no NodeClaim in the snapshot"} {
		if !strings.Contains(joined, w) {
			t.Errorf("findings %q lack %q", joined, w)
		}
	}
}
