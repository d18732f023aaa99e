package manifestcheck

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// TestCorpusJudged runs the engine of karpenter-lint and validate_manifest
// over testdata/corpus/v1, written in the styles of published Karpenter v1
// configurations, and holds every finding to the judged table next to it
// (FINDINGS.md): no finding outside the table (no false alarm, since every
// entry is judged), no entry that is not found (the earlier true findings
// and the classes this corpus was written for stay found).
func TestCorpusJudged(t *testing.T) {
	dir := filepath.Join("testdata", "corpus", "v1")
	table, err := os.ReadFile(filepath.Join(dir, "FINDINGS.md"))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, l := range strings.Split(string(table), "\n") {
		cells := strings.Split(l, "|")
		if len(cells) != 6 || !strings.HasSuffix(strings.TrimSpace(cells[1]), "]") && !strings.Contains(cells[1], ".yaml:") {
			continue
		}
		if j := strings.TrimSpace(cells[4]); !strings.HasPrefix(j, "true") || len(j) < 20 {
			t.Errorf("entry %q is not judged true with a reason", l)
		}
		want = append(want, fmt.Sprintf("%s %s %s", strings.TrimSpace(cells[1]), strings.TrimSpace(cells[2]), strings.TrimSpace(cells[3])))
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	objects := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		objects += strings.Count(string(b), "\nkind: ") + map[bool]int{true: 1}[strings.HasPrefix(string(b), "kind: ")]
		for _, x := range Check(context.Background(), string(b), versions.DefaultKarpenter) {
			got = append(got, fmt.Sprintf("%s:%d %s %s", filepath.Base(f), x.Line, x.Object, x.Rule.ID))
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("findings differ from FINDINGS.md\ngot:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if objects < 40 {
		t.Errorf("the corpus has %d objects; it is meant to have at least 40", objects)
	}
}

// karpenter-lint --cluster names the cluster the classes are for: a
// Custom bootstrap call naming another one (with no endpoint and CA) is an
// error, whatever the discovery tag says.
func TestBootstrapOtherClusterWithClusterOption(t *testing.T) {
	doc := `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: custom
spec:
  amiFamily: Custom
  role: KarpenterNodeRole-prod
  amiSelectorTerms:
    - id: ami-0123456789abcdef0
  subnetSelectorTerms:
    - tags:
        karpenter.sh/discovery: demo
  securityGroupSelectorTerms:
    - tags:
        karpenter.sh/discovery: demo
  userData: |
    #!/bin/bash
    /etc/eks/bootstrap.sh demo --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'
`
	for cluster, want := range map[string]string{"": "", "demo": "", "prod": "error"} {
		res := Run(context.Background(), []Input{{Name: "c.yaml", Text: doc}}, Options{Karpenter: versions.DefaultKarpenter, Cluster: cluster})
		var got []string
		for _, f := range res.Findings {
			got = append(got, fmt.Sprintf("%s %s %d", f.Severity, f.Rule.ID, f.Line))
		}
		if w := map[string]string{"": "", "error": "error custom-bootstrap-other-cluster 16"}[want]; strings.Join(got, ";") != w {
			t.Errorf("--cluster %q: got %v, want %q", cluster, got, w)
		}
	}
}
