package manifest

import (
	"strings"
	"testing"
)

func TestYAMLIsSortedAndHasNoNulls(t *testing.T) {
	zero := "0s"
	np := NodePool{
		APIVersion: NodePoolAPIVersion, Kind: NodePoolKind,
		Metadata: ObjectMeta{Name: "default"},
		Spec: NodePoolSpec{
			Template: NodeClaimTemplate{Spec: NodeClaimTemplateSpec{
				NodeClassRef: NodeClassRef{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"},
				Requirements: []Requirement{{Key: "kubernetes.io/arch", Operator: "In", Values: []string{"arm64"}}},
			}},
			Disruption: &Disruption{ConsolidateAfter: &zero},
			Limits:     map[string]string{"memory": "1000Gi", "cpu": "1000"},
		},
	}
	got, err := YAML(np)
	if err != nil {
		t.Fatal(err)
	}
	want := `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  disruption:
    consolidateAfter: 0s
  limits:
    cpu: "1000"
    memory: 1000Gi
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
      requirements:
      - key: kubernetes.io/arch
        operator: In
        values:
        - arm64
`
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if strings.Contains(got, "null") {
		t.Fatal("nulls rendered")
	}
}

func TestNilRequirementsRenderAsEmptyList(t *testing.T) {
	got, err := YAML(NodePool{APIVersion: NodePoolAPIVersion, Kind: NodePoolKind, Metadata: ObjectMeta{Name: "x"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "requirements: []") || strings.Contains(got, "null") {
		t.Fatalf("got\n%s", got)
	}
}
