package crd

import (
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
)

// Builders of realistic manifests with the project's own model, so the tests
// validate exactly what the resources render.

func ptr[T any](v T) *T { return &v }

func discovery() map[string]string { return map[string]string{"karpenter.sh/discovery": "my-cluster"} }

// nodeClass is a minimal valid AL2023 EC2NodeClass; edit changes it.
func nodeClass(edit func(*manifest.EC2NodeClassSpec)) manifest.EC2NodeClass {
	nc := manifest.EC2NodeClass{
		APIVersion: manifest.EC2NodeClassAPIVersion, Kind: manifest.EC2NodeClassKind,
		Metadata: manifest.ObjectMeta{Name: "default"},
		Spec: manifest.EC2NodeClassSpec{
			AMISelectorTerms:           []manifest.AMISelectorTerm{{Alias: "al2023@latest"}},
			SubnetSelectorTerms:        []manifest.SubnetSelectorTerm{{Tags: discovery()}},
			SecurityGroupSelectorTerms: []manifest.SecurityGroupSelectorTerm{{Tags: discovery()}},
			Role:                       "KarpenterNodeRole-my-cluster",
		},
	}
	if edit != nil {
		edit(&nc.Spec)
	}
	return nc
}

// nodePool is a minimal valid NodePool; edit changes it.
func nodePool(edit func(*manifest.NodePoolSpec)) manifest.NodePool {
	np := manifest.NodePool{
		APIVersion: manifest.NodePoolAPIVersion, Kind: manifest.NodePoolKind,
		Metadata: manifest.ObjectMeta{Name: "default"},
		Spec: manifest.NodePoolSpec{
			Template: manifest.NodeClaimTemplate{Spec: manifest.NodeClaimTemplateSpec{
				NodeClassRef: manifest.NodeClassRef{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"},
				Requirements: []manifest.Requirement{{Key: "kubernetes.io/arch", Operator: "In", Values: []string{"amd64"}}},
			}},
		},
	}
	if edit != nil {
		edit(&np.Spec)
	}
	return np
}

func object(t testing.TB, v any) map[string]any {
	t.Helper()
	o, err := manifest.Object(v)
	if err != nil {
		t.Fatal(err)
	}
	return o
}
