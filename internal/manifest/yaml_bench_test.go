package manifest

import (
	"encoding/json"
	"testing"

	"sigs.k8s.io/yaml"
)

// BenchmarkYAML renders a NodePool with budgets and requirements and an
// EC2NodeClass with kubelet settings and a block device: YAML against the
// sigs.k8s.io/yaml path it replaces (JSON, then JSONToYAML).
func BenchmarkYAML(b *testing.B) {
	zero, ten, never := "1m", "10%", "720h"
	weight := int32(10)
	pool := NodePool{APIVersion: NodePoolAPIVersion, Kind: NodePoolKind, Metadata: ObjectMeta{Name: "general-arm64"},
		Spec: NodePoolSpec{Weight: &weight, Limits: map[string]string{"cpu": "1000", "memory": "1000Gi"},
			Disruption: &Disruption{ConsolidateAfter: &zero, Budgets: []Budget{{Nodes: ten}}},
			Template: NodeClaimTemplate{Spec: NodeClaimTemplateSpec{ExpireAfter: never,
				NodeClassRef: NodeClassRef{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"},
				Requirements: []Requirement{
					{Key: "kubernetes.io/arch", Operator: "In", Values: []string{"arm64"}},
					{Key: "karpenter.k8s.aws/instance-category", Operator: "In", Values: []string{"c", "m", "r"}},
					{Key: "karpenter.k8s.aws/instance-generation", Operator: "Gt", Values: []string{"5"}},
					{Key: "karpenter.sh/capacity-type", Operator: "In", Values: []string{"spot", "on-demand"}},
				}}}}}
	maxPods := int32(110)
	class := EC2NodeClass{APIVersion: EC2NodeClassAPIVersion, Kind: EC2NodeClassKind, Metadata: ObjectMeta{Name: "default"},
		Spec: EC2NodeClassSpec{AMIFamily: "AL2023", Role: "KarpenterNodeRole-demo",
			AMISelectorTerms:           []AMISelectorTerm{{Alias: "al2023@v20251209"}},
			SubnetSelectorTerms:        []SubnetSelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "demo"}}},
			SecurityGroupSelectorTerms: []SecurityGroupSelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "demo"}}},
			Tags:                       map[string]string{"team": "platform"},
			Kubelet: &Kubelet{MaxPods: &maxPods, EvictionHard: map[string]string{"memory.available": "5%"},
				EvictionSoft: map[string]string{"memory.available": "10%"}, EvictionSoftGracePeriod: map[string]string{"memory.available": "1m"}},
		}}
	for _, c := range []struct {
		name string
		obj  any
	}{{"NodePool", pool}, {"EC2NodeClass", class}} {
		b.Run(c.name+"/YAML", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := YAML(c.obj); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/JSONToYAML", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				j, err := json.Marshal(c.obj)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := yaml.JSONToYAML(j); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
