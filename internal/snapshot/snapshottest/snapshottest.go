// Package snapshottest builds cluster snapshots as kubectl prints them, for
// tests and benchmarks: Karpenter nodes with their NodeClaims, pods bound
// to them, PodDisruptionBudgets, as one List.
package snapshottest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/drift"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// Created is when every object of a built snapshot was created.
var Created = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

// Node is one Karpenter node and its NodeClaim.
type Node struct {
	Name, Pool, Class, InstanceType, Zone string
	// CapacityType is "on-demand" when empty.
	CapacityType string
	// Arch is "amd64" when empty.
	Arch string
	// CPU and Memory are the allocatable ("4", "15Gi"); Pods the max pods.
	CPU, Memory string
	Pods        int
	// ImageID is the NodeClaim's status.imageID.
	ImageID string
	// PoolHash and ClassHash are the NodeClaim's hash annotations.
	PoolHash, ClassHash string
	// Annotations and Labels are added to the Node and the NodeClaim.
	Annotations, Labels map[string]string
	// Taints are the node's and NodeClaim's taints.
	Taints []corev1.Taint
}

// Pod is one pod, bound to Node when it is set.
type Pod struct {
	Namespace, Name, Node string
	CPU, Memory           string
	Labels, Annotations   map[string]string
	// Owner is the kind of its controller ("ReplicaSet" when empty; "-"
	// for none).
	Owner string
}

// PDB is a PodDisruptionBudget on pods matching Labels.
type PDB struct {
	Namespace, Name string
	Labels          map[string]string
	MaxUnavailable  int
	// DisruptionsAllowed is status.disruptionsAllowed.
	DisruptionsAllowed int
}

// List is a snapshot under construction.
type List struct{ items []any }

// Add adds a node and its NodeClaim.
func (l *List) Add(n Node) *List {
	ct := n.CapacityType
	if ct == "" {
		ct = karpv1.CapacityTypeOnDemand
	}
	arch := n.Arch
	if arch == "" {
		arch = "amd64"
	}
	providerID := fmt.Sprintf("aws:///%s/i-%s", n.Zone, strings.ReplaceAll(n.Name, ".", ""))
	labels := map[string]string{
		karpv1.NodePoolLabelKey:          n.Pool,
		corev1.LabelInstanceTypeStable:   n.InstanceType,
		corev1.LabelTopologyZone:         n.Zone,
		karpv1.CapacityTypeLabelKey:      ct,
		corev1.LabelArchStable:           arch,
		corev1.LabelOSStable:             "linux",
		corev1.LabelHostname:             n.Name,
		karpv1.NodeRegisteredLabelKey:    "true",
		karpv1.NodeInitializedLabelKey:   "true",
		"karpenter.k8s.aws/ec2nodeclass": n.Class,
	}
	// The instance-type labels Karpenter puts on every node it launches
	// (those a test's requirements name).
	family, size, _ := strings.Cut(n.InstanceType, ".")
	labels["karpenter.k8s.aws/instance-family"] = family
	labels["karpenter.k8s.aws/instance-size"] = size
	labels["karpenter.k8s.aws/instance-category"] = family[:1]
	for k, v := range n.Labels {
		labels[k] = v
	}
	alloc := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse(n.CPU),
		corev1.ResourceMemory: resource.MustParse(n.Memory),
		corev1.ResourcePods:   *resource.NewQuantity(int64(n.Pods), resource.DecimalSI),
	}
	created := metav1.NewTime(Created)
	claimName := n.Pool + "-" + n.Name
	node := &corev1.Node{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: n.Name, Labels: labels, Annotations: n.Annotations, CreationTimestamp: created, UID: types.UID("node-" + n.Name)},
		Spec:       corev1.NodeSpec{ProviderID: providerID, Taints: n.Taints},
		Status: corev1.NodeStatus{Capacity: alloc, Allocatable: alloc, Conditions: []corev1.NodeCondition{
			{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastTransitionTime: created},
		}},
	}
	// A hash annotation is written only when given: Karpenter compares an
	// empty one like any other value.
	annotations := map[string]string{}
	if n.PoolHash != "" {
		annotations[karpv1.NodePoolHashAnnotationKey], annotations[karpv1.NodePoolHashVersionAnnotationKey] = n.PoolHash, "v3"
	}
	if n.ClassHash != "" {
		annotations["karpenter.k8s.aws/ec2nodeclass-hash"], annotations["karpenter.k8s.aws/ec2nodeclass-hash-version"] = n.ClassHash, "v4"
	}
	for k, v := range n.Annotations {
		annotations[k] = v
	}
	claim := &karpv1.NodeClaim{
		TypeMeta: metav1.TypeMeta{APIVersion: "karpenter.sh/v1", Kind: "NodeClaim"},
		ObjectMeta: metav1.ObjectMeta{Name: claimName, Labels: labels, Annotations: annotations, CreationTimestamp: created, UID: types.UID("claim-" + n.Name),
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "karpenter.sh/v1", Kind: "NodePool", Name: n.Pool, UID: types.UID("pool-" + n.Pool)}}},
		Spec: karpv1.NodeClaimSpec{
			NodeClassRef: &karpv1.NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: n.Class},
			Taints:       n.Taints,
			Requirements: []karpv1.NodeSelectorRequirementWithMinValues{
				{Key: corev1.LabelInstanceTypeStable, Operator: corev1.NodeSelectorOpIn, Values: []string{n.InstanceType}},
				{Key: karpv1.NodePoolLabelKey, Operator: corev1.NodeSelectorOpIn, Values: []string{n.Pool}},
				{Key: karpv1.CapacityTypeLabelKey, Operator: corev1.NodeSelectorOpIn, Values: []string{ct}},
			},
		},
		Status: karpv1.NodeClaimStatus{ProviderID: providerID, NodeName: n.Name, ImageID: n.ImageID, Capacity: alloc, Allocatable: alloc},
	}
	for _, c := range []string{karpv1.ConditionTypeLaunched, karpv1.ConditionTypeRegistered, karpv1.ConditionTypeInitialized} {
		claim.StatusConditions().SetTrue(c)
	}
	for i := range claim.Status.Conditions {
		claim.Status.Conditions[i].LastTransitionTime = created
	}
	l.items = append(l.items, node, claim)
	return l
}

// AddPod adds a pod.
func (l *List) AddPod(p Pod) *List {
	pod := &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: p.Name, Labels: p.Labels, Annotations: p.Annotations, UID: types.UID("pod-" + p.Namespace + "-" + p.Name), CreationTimestamp: metav1.NewTime(Created)},
		Spec: corev1.PodSpec{NodeName: p.Node, Containers: []corev1.Container{{Name: "app", Image: "app", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(p.CPU), corev1.ResourceMemory: resource.MustParse(p.Memory)}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning},
	}
	if p.Node == "" {
		pod.Status = corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable}}}
	}
	switch p.Owner {
	case "-":
	case "":
		pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: p.Name + "-rs", UID: "rs-" + types.UID(p.Name), Controller: ptr(true)}}
	default:
		pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: p.Owner, Name: p.Name + "-owner", UID: "owner-" + types.UID(p.Name), Controller: ptr(true)}}
	}
	l.items = append(l.items, pod)
	return l
}

// AddPDB adds a PodDisruptionBudget.
func (l *List) AddPDB(p PDB) *List {
	mu := intstr.FromInt32(int32(p.MaxUnavailable))
	l.items = append(l.items, &policyv1.PodDisruptionBudget{
		TypeMeta:   metav1.TypeMeta{APIVersion: "policy/v1", Kind: "PodDisruptionBudget"},
		ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: p.Name, UID: types.UID("pdb-" + p.Name)},
		Spec:       policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &mu, Selector: &metav1.LabelSelector{MatchLabels: p.Labels}},
		Status:     policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: int32(p.DisruptionsAllowed)},
	})
	return l
}

// Objects are the objects added, in order.
func (l *List) Objects() []any { return l.items }

// YAML is the List kubectl prints.
func (l *List) YAML() string {
	b, err := sigsyaml.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "metadata": map[string]any{"resourceVersion": ""}, "items": l.items})
	if err != nil {
		panic(err) // the builder's own types always marshal
	}
	return string(b)
}

func ptr[T any](v T) *T { return &v }

// PoolHash is PoolYAML's karpenter.sh/nodepool-hash for the default
// Karpenter release: the hash of a NodeClaim launched from it unchanged.
func PoolHash(t testing.TB) string {
	t.Helper()
	var m manifest.NodePool
	if err := sigsyaml.Unmarshal([]byte(PoolYAML), &m); err != nil {
		t.Fatal(err)
	}
	h, err := drift.NodePoolHash(m.Spec, versions.DefaultKarpenter)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// PoolYAML is NodePool "general" (m5 and c5, consolidateAfter 1m) with a
// budget of 2 nodes and one of 0 on weekdays from 09:00 UTC for 8h: the
// configuration the snapshots' NodeClaims are compared with.
const PoolYAML = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: general
spec:
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
      requirements:
        - key: karpenter.k8s.aws/instance-family
          operator: In
          values: [m5, c5]
  disruption:
    consolidateAfter: 1m
    budgets:
      - nodes: "2"
      - nodes: "0"
        schedule: "0 9 * * mon-fri"
        duration: 8h
`
