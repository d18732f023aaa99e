package differential

import (
	"maps"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"

	"github.com/aws/karpenter-provider-aws/pkg/providers/amifamily"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/disruption"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot/snapshottest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// TestImageDriftMatchesKarpenter: AMIDrift as the prediction decides it
// (the NodeClaim's labels against the class's images' requirements, the
// first compatible image in status order) equals karpenter-provider-aws's
// isAMIDrifted (pkg/cloudprovider/drift.go: the NodeClaim's instance type
// from the cloud provider, amifamily.MapToInstanceTypes over the class's
// status.amis), on NodeClaims of amd64, arm64 and NVIDIA instance types,
// each on its current image, another variant's or a retired one. The
// class's status is Karpenter's own reconcilers' against the emulator;
// the NodeClaims carry the labels Karpenter gives a node of their
// instance type (its single-valued requirements).
func TestImageDriftMatchesKarpenter(t *testing.T) {
	url, _ := awsemutest.Start(t)
	k := newKarpenter(t, url)
	kube := fakeKube()
	cp := k.cloudProvider(kube)
	class := k.reconcileClass(t, kube, cp, []byte(nodeClass("default", "al2023@latest", "")))
	pool := nodePool("general", "default", "  disruption:\n    consolidateAfter: 0s\n",
		requirement("karpenter.k8s.aws/instance-family", "In", "m5", "m6g", "g5"))
	its, err := cp.GetInstanceTypes(k.ctx, storedPool(t, pool))
	must(t, err)
	byName := map[string]*cloudprovider.InstanceType{}
	for _, it := range its {
		byName[it.Name] = it
	}
	// The image Karpenter maps each instance type to now.
	current := func(name string) string {
		for id, mapped := range amifamily.MapToInstanceTypes([]*cloudprovider.InstanceType{byName[name]}, class.Status.AMIs) {
			if len(mapped) > 0 {
				return id
			}
		}
		t.Fatalf("no image for %s", name)
		return ""
	}
	l := &snapshottest.List{}
	type node struct{ name, it, image string }
	nodes := []node{
		{"m5-current", "m5.large", current("m5.large")},
		{"m5-retired", "m5.large", "ami-0retired"},
		{"m5-on-arm", "m5.large", current("m6g.large")},
		{"m6g-current", "m6g.large", current("m6g.large")},
		{"m6g-on-amd", "m6g.large", current("m5.large")},
		{"g5-current", "g5.xlarge", current("g5.xlarge")},
		{"g5-on-standard", "g5.xlarge", current("m5.large")},
		{"m5-on-nvidia", "m5.large", current("g5.xlarge")},
	}
	for _, n := range nodes {
		it := byName[n.it]
		if it == nil {
			t.Fatalf("%s is not among the pool's instance types", n.it)
		}
		l.Add(snapshottest.Node{Name: n.name, Pool: "general", Class: "default", InstanceType: n.it, Zone: "us-east-1a", CPU: "1", Memory: "1Gi", Pods: 10,
			Arch: it.Requirements.Get(corev1.LabelArchStable).Any(), ImageID: n.image, Labels: launchLabels(it)})
	}
	s := snapshot.Parse(l.YAML())
	if len(s.Findings) > 0 {
		t.Fatal(s.Findings)
	}
	// Karpenter's isAMIDrifted, on each NodeClaim.
	want := map[string]string{}
	for _, nc := range s.NodeClaims {
		mapped := amifamily.MapToInstanceTypes([]*cloudprovider.InstanceType{byName[nc.Labels[corev1.LabelInstanceTypeStable]]}, class.Status.AMIs)
		if _, ok := mapped[nc.Status.ImageID]; !ok {
			want[nc.Name] = disruption.AMIDrift
		}
	}
	var images []disruption.Image
	for _, a := range class.Status.AMIs {
		im := disruption.Image{ID: a.ID}
		for _, r := range a.Requirements {
			im.Requirements = append(im.Requirements, corev1.NodeSelectorRequirement{Key: r.Key, Operator: r.Operator, Values: r.Values})
		}
		images = append(images, im)
	}
	// The pool's hash is not on the NodeClaims: only the image decides.
	plan := disruption.Decide(disruption.Input{Karpenter: []string{pool}, Cluster: s, At: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC),
		Version: versions.DefaultKarpenter, Images: map[string][]disruption.Image{"default": images}})
	got := map[string]string{}
	for _, d := range plan.Drifted() {
		got[d.NodeClaim] = d.Reason
	}
	if !maps.Equal(got, want) || len(want) != 5 {
		t.Errorf("AMIDrift:\n engine    %v\n Karpenter %v", sortedPairs(got), sortedPairs(want))
	}
	if len(plan.Findings) > 0 || len(plan.Notes) > 0 {
		t.Errorf("%v %v", plan.Findings, plan.Notes)
	}
}

// launchLabels are the labels karpenter-provider-aws gives a NodeClaim of
// the instance type (pkg/cloudprovider/cloudprovider.go
// instanceToNodeClaim: every requirement with a single value, but the
// capacity-reservation ones).
func launchLabels(it *cloudprovider.InstanceType) map[string]string {
	out := map[string]string{}
	for key, req := range it.Requirements {
		if req.Len() == 1 && key != cloudprovider.ReservationIDLabel && !strings.HasPrefix(key, "karpenter.k8s.aws/capacity-reservation") {
			out[key] = req.Values()[0]
		}
	}
	delete(out, karpv1.CapacityTypeLabelKey) // the snapshot's node sets it
	return out
}
