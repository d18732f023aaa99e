package disruption_test

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/disruption"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot/snapshottest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// The budgets that limit drift at an instant: the unscheduled one always,
// the scheduled one inside its window only.
func TestDecideNamesTheActiveBudgets(t *testing.T) {
	for at, want := range map[string]string{
		"2026-11-28T12:00:00Z": `nodes "2"`,
		"2026-11-30T10:00:00Z": `nodes "2"|nodes "0" at "0 9 * * mon-fri" for 8h0m0s`,
	} {
		ts, _ := time.Parse(time.RFC3339, at)
		p := disruption.Decide(disruption.Input{Karpenter: []string{poolYAML}, Cluster: cluster(t), At: ts, Version: versions.DefaultKarpenter})
		if got := strings.Join(p.Pools[0].Budgets, "|"); got != want {
			t.Errorf("%s: budgets %q, want %q", at, got, want)
		}
		for _, d := range p.Drifted() {
			if d.Pool != "general" {
				t.Errorf("%s: pool %q", d.NodeClaim, d.Pool)
			}
		}
	}
}

// A class's drift on a snapshot: the class hash first, then the image the
// instance type maps to (the first image whose requirements it meets).
func TestClassDrift(t *testing.T) {
	const version = "v4" // what snapshottest writes
	l := &snapshottest.List{}
	node := func(name, arch, image, hash string) snapshottest.Node {
		return snapshottest.Node{Name: name, Pool: "general", Class: "default", InstanceType: "m5.large", Arch: arch, Zone: "us-east-1a",
			CPU: "1930m", Memory: "7Gi", Pods: 29, ImageID: image, ClassHash: hash}
	}
	l.Add(node("current", "amd64", "ami-new-amd", "h1")).Add(node("old-image", "amd64", "ami-old-amd", "h1"))
	l.Add(node("old-hash", "amd64", "ami-new-amd", "h0")).Add(node("arm", "arm64", "ami-new-arm", "h1"))
	l.Add(node("wrong-arch", "arm64", "ami-new-amd", "h1"))
	l.Add(snapshottest.Node{Name: "other", Pool: "gpu", Class: "gpu", InstanceType: "g5.xlarge", Zone: "us-east-1a", CPU: "3", Memory: "14Gi", Pods: 58, ImageID: "ami-x"})
	s := snapshot.Parse(l.YAML())
	if len(s.Findings) > 0 {
		t.Fatal(s.Findings)
	}
	arch := func(a string) []corev1.NodeSelectorRequirement {
		return []corev1.NodeSelectorRequirement{{Key: corev1.LabelArchStable, Operator: corev1.NodeSelectorOpIn, Values: []string{a}}}
	}
	images := []disruption.Image{{ID: "ami-new-amd", Requirements: arch("amd64")}, {ID: "ami-new-arm", Requirements: arch("arm64")}}
	got := map[string]string{}
	for _, d := range disruption.ClassDrift(s, disruption.Class{Name: "default", Hash: "h1", HashVersion: version, Images: images}) {
		got[d.NodeClaim] = d.Reason + "|" + d.Pool
	}
	want := map[string]string{
		"general-old-image":  "AMIDrift|general",
		"general-old-hash":   "NodeClassDrift|general",
		"general-wrong-arch": "AMIDrift|general",
	}
	if len(got) != len(want) {
		t.Fatalf("drifted %v", got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
	// Offline (no images) and without a hash: nothing is decided.
	if d := disruption.ClassDrift(s, disruption.Class{Name: "default"}); len(d) != 0 {
		t.Errorf("without hash and images: %v", d)
	}
	d := disruption.ClassDrift(s, disruption.Class{Name: "default", Hash: "h1", HashVersion: version, Images: images})
	if got := disruption.Tally(d, disruption.NodeClaimsOf(s, "", "default")); got != "3 of the 5 NodeClaims drift (NodePool general: 3; AMIDrift 2, NodeClassDrift 1)" {
		t.Errorf("tally %q", got)
	}
	if got := disruption.Tally(nil, 4); got != "none of the 4 NodeClaims drifts" {
		t.Errorf("empty tally %q", got)
	}
}

func TestSnapshotTaken(t *testing.T) {
	s := snapshot.Parse(snapshot.TakenPrefix + "2026-11-28T19:00:00+01:00\n" + (&snapshottest.List{}).YAML())
	if !s.Taken.Equal(time.Date(2026, 11, 28, 18, 0, 0, 0, time.UTC)) {
		t.Errorf("taken %v", s.Taken)
	}
	if s := snapshot.Parse((&snapshottest.List{}).YAML()); !s.Taken.IsZero() {
		t.Errorf("no comment: taken %v", s.Taken)
	}
}

// With the classes' images, Decide finds AMIDrift after the static
// checks; a class whose images are not known is named in the notes, and
// offline every class is.
func TestDecideImageDrift(t *testing.T) {
	h := snapshottest.PoolHash(t)
	l := &snapshottest.List{}
	node := func(name, image string) snapshottest.Node {
		return snapshottest.Node{Name: name, Pool: "general", Class: "default", InstanceType: "m5.large", Zone: "us-east-1a", CPU: "1930m", Memory: "7Gi", Pods: 29, PoolHash: h, ImageID: image}
	}
	l.Add(node("new", "ami-new")).Add(node("old", "ami-old")).Add(node("old-hash", "ami-old"))
	s := snapshot.Parse(l.YAML())
	// old-hash: its hash drift wins over its image.
	for _, nc := range s.NodeClaims {
		if nc.Name == "general-old-hash" {
			nc.Annotations["karpenter.sh/nodepool-hash"] = "123"
		}
	}
	at := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	amd := []corev1.NodeSelectorRequirement{{Key: corev1.LabelArchStable, Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64"}}}
	p := disruption.Decide(disruption.Input{Karpenter: []string{poolYAML}, Cluster: s, At: at, Version: versions.DefaultKarpenter,
		Images: map[string][]disruption.Image{"default": {{ID: "ami-new", Requirements: amd}}}})
	got := map[string]string{}
	for _, d := range p.Drifted() {
		got[d.NodeClaim] = d.Reason
	}
	if len(got) != 2 || got["general-old"] != disruption.AMIDrift || got["general-old-hash"] != disruption.NodePoolDrifted || len(p.Notes) != 0 {
		t.Errorf("drifted %v notes %v", got, p.Notes)
	}
	p = disruption.Decide(disruption.Input{Karpenter: []string{poolYAML}, Cluster: s, At: at, Version: versions.DefaultKarpenter,
		Images: map[string][]disruption.Image{"other": nil}})
	if len(p.Drifted()) != 1 || strings.Join(p.Notes, "") != "images were not compared for EC2NodeClass default: not among the configured classes, or its images could not be resolved" {
		t.Errorf("unknown class: %v %v", p.Drifted(), p.Notes)
	}
	p = disruption.Decide(disruption.Input{Karpenter: []string{poolYAML}, Cluster: s, At: at, Version: versions.DefaultKarpenter})
	if len(p.Drifted()) != 1 || len(p.Notes) != 1 || !strings.HasPrefix(p.Notes[0], "images were not compared (offline)") {
		t.Errorf("offline: %v %v", p.Drifted(), p.Notes)
	}
}

// BenchmarkCountOn1000Nodes: what one pool's and one class's
// nodes-will-drift count cost on a parsed snapshot of 1,000 nodes and
// 20,000 pods (the provider parses the snapshot once per process).
func BenchmarkCountOn1000Nodes(b *testing.B) {
	s := snapshot.Parse(bigCluster())
	at := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	b.ResetTimer()
	cpu0 := cpuTime()
	for range b.N {
		p := disruption.Decide(disruption.Input{Karpenter: []string{poolYAML}, Cluster: s, At: at, Version: versions.DefaultKarpenter})
		if n := len(p.Drifted()); n != 500 || disruption.Tally(p.Drifted(), disruption.NodeClaimsOf(s, "general", "")) == "" {
			b.Fatal(n)
		}
		if d := disruption.ClassDrift(s, disruption.Class{Name: "default", Images: []disruption.Image{{ID: "ami-x"}}}); len(d) != 0 {
			b.Fatal(len(d)) // the snapshot's NodeClaims carry no image
		}
	}
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
}
