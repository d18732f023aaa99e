package crd

import (
	"context"
	"strings"
	"testing"
)

// The API server normalizes metadata between decoding a create and
// validating it (k8s.io/apiserver BeforeCreate and the create handler):
// a namespace on these cluster-scoped kinds is cleared, the system fields
// are wiped, generateName gives the name, generation becomes 1. None of
// these is a rejection; without beforeCreate each one below was.
func TestBeforeCreateNormalizesMetadata(t *testing.T) {
	ctx := context.Background()
	cases := map[string]func(md map[string]any){
		"namespace":           func(md map[string]any) { md["namespace"] = "karpenter" },
		"namespace default":   func(md map[string]any) { md["namespace"] = "default" },
		"generateName":        func(md map[string]any) { delete(md, "name"); md["generateName"] = "team-a-" },
		"negative generation": func(md map[string]any) { md["generation"] = -3 },
		"system fields": func(md map[string]any) {
			md["uid"] = "not-a-uid"
			md["creationTimestamp"] = nil
			md["selfLink"] = "/apis/x"
			md["deletionGracePeriodSeconds"] = -1
		},
	}
	for name, edit := range cases {
		for _, k := range []*Kind{EC2NodeClass, NodePool} {
			t.Run(k.Name()+"/"+name, func(t *testing.T) {
				obj := object(t, nodeClass(nil))
				if k == NodePool {
					obj = object(t, nodePool(nil))
				}
				edit(obj["metadata"].(map[string]any))
				res, err := k.Validate(ctx, obj)
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Errors) > 0 {
					t.Fatalf("rejected: %v", res.Errors)
				}
				md := res.Object["metadata"].(map[string]any)
				if _, ok := md["namespace"]; ok {
					t.Errorf("namespace kept in the stored object: %v", md)
				}
				if n, _ := md["name"].(string); name == "generateName" && (!strings.HasPrefix(n, "team-a-") || len(n) != len("team-a-")+5) {
					t.Errorf("generated name %q", n)
				}
			})
		}
	}
	// What still fails after the normalization: a generateName that no
	// name can be generated from.
	obj := object(t, nodePool(nil))
	md := obj["metadata"].(map[string]any)
	delete(md, "name")
	md["generateName"] = "Team_A-"
	res, err := NodePool.Validate(ctx, obj)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) == 0 || !strings.HasPrefix(res.Errors[0].Field, "metadata.") {
		t.Fatalf("an invalid generateName was accepted: %v", res.Errors)
	}
}

// nodepool.validateNodeClassRef quotes the API server's rejection of a
// nodeClassRef.group with a slash; this holds the quote to the CRD.
func TestNodeClassRefGroupPattern(t *testing.T) {
	obj := object(t, nodePool(nil))
	ref := obj["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["nodeClassRef"].(map[string]any)
	ref["group"] = "ec2nodeclasses.karpenter.k8s.aws/v1"
	res, err := NodePool.Validate(context.Background(), obj)
	if err != nil {
		t.Fatal(err)
	}
	want := `spec.template.spec.nodeClassRef.group: Invalid value: "ec2nodeclasses.karpenter.k8s.aws/v1": spec.template.spec.nodeClassRef.group in body should match '^[^/]*$'`
	if len(res.Errors) == 0 || res.Errors[0].Text != want {
		t.Fatalf("got %+v, want %s", res.Errors, want)
	}
}
