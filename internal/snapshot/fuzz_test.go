package snapshot_test

import (
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot"
)

// FuzzParse: no input crashes the parser, and every object is either read
// or named by a finding.
func FuzzParse(f *testing.F) {
	f.Add(sample().YAML())
	f.Add("apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Pod, metadata: {name: a, namespace: d}}\n---\nkind: Node\n")
	f.Add("apiVersion: v1\nkind: Node\nmetadata: {name: n, labels: {karpenter.sh/nodepool: p}}\nstatus: {allocatable: {cpu: x}}\n")
	f.Fuzz(func(t *testing.T, text string) {
		s := snapshot.Parse(text)
		read := len(s.Nodes) + len(s.NodeClaims) + len(s.Pods) + len(s.PDBs) + len(s.DaemonSets) + len(s.NodePools) + len(s.NodeClassDocs)
		if read+len(s.Errors()) < s.Items || read > s.Items {
			t.Fatalf("%d objects read, %d counted, %d dropped", read, s.Items, len(s.Errors()))
		}
		if s.Items == 0 && len(s.Findings) == 0 {
			t.Fatal("nothing read and nothing said")
		}
	})
}
