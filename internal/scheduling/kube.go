package scheduling

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

// kube is the read-only API server the scheduler asks during a decision:
// the claims, volumes, storage and priority classes and namespaces of the
// workloads input, and the nodes and bound pods of the cluster state (none
// on an empty cluster). Karpenter's scheduler and cluster state only read
// (Get of claims, volumes, storage classes and nodes, List of pods, by
// node too, and namespaces for topology); anything else is an error.
//
// controller-runtime's fake client would do, but its first Build costs
// ~100 ms (structured-merge-diff type converters for every built-in kind),
// each Get a JSON round trip, and it keeps a cluster-scoped object under
// the namespace it was asked with (Karpenter asks for a PersistentVolume
// with the pod's namespace).
type kube struct {
	objects map[schema.GroupKind]map[types.NamespacedName]client.Object
	// pods are the pods bound to nodes, nodes the nodes, of the cluster
	// state.
	pods  []*corev1.Pod
	nodes []*corev1.Node
	// The rest only ClusterClient fills (consolidation.go).
	pending    []*corev1.Pod
	pdbs       []*policyv1.PodDisruptionBudget
	daemonSets []*appsv1.DaemonSet
	nodeClaims []*karpv1.NodeClaim
	nodePools  []*karpv1.NodePool
	// byNode indexes pods by node, built on the first List by node.
	byNode     map[string][]*corev1.Pod
	byNodeOnce sync.Once
}

var _ client.Client = (*kube)(nil)

var errReadOnly = errors.New("the simulated cluster is read-only")

// newKube holds objs, and the nodes and bound pods of the cluster state.
func newKube(objs []client.Object, nodes []*corev1.Node, pods []*corev1.Pod) *kube {
	k := &kube{objects: map[schema.GroupKind]map[types.NamespacedName]client.Object{}, nodes: nodes}
	for _, p := range pods {
		if p.Spec.NodeName != "" {
			k.pods = append(k.pods, p)
		}
	}
	objs = slices.Clip(objs)
	for _, n := range nodes {
		objs = append(objs, n)
	}
	for _, o := range objs {
		gk := kindOf(o)
		if k.objects[gk] == nil {
			k.objects[gk] = map[types.NamespacedName]client.Object{}
		}
		k.objects[gk][k.key(gk, o.GetNamespace(), o.GetName())] = o
	}
	return k
}

func kindOf(o runtime.Object) schema.GroupKind {
	gvks, _, err := scheme.Scheme.ObjectKinds(o)
	if err != nil || len(gvks) == 0 {
		return schema.GroupKind{}
	}
	return gvks[0].GroupKind()
}

// clusterScoped are the kinds the decision reads that have no namespace.
var clusterScoped = map[schema.GroupKind]bool{
	{Kind: "PersistentVolume"}: true, {Kind: "Namespace"}: true, {Kind: "Node"}: true,
	{Group: storagev1.GroupName, Kind: "StorageClass"}: true, {Group: schedulingv1.GroupName, Kind: "PriorityClass"}: true,
}

func (k *kube) key(gk schema.GroupKind, ns, name string) types.NamespacedName {
	if clusterScoped[gk] {
		ns = ""
	}
	return types.NamespacedName{Namespace: ns, Name: name}
}

func (k *kube) Get(_ context.Context, key client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	gk := kindOf(obj)
	o, ok := k.objects[gk][k.key(gk, key.Namespace, key.Name)]
	if !ok {
		return apierrors.NewNotFound(schema.GroupResource{Group: gk.Group, Resource: gk.Kind}, key.Name)
	}
	switch dst := obj.(type) {
	case *corev1.PersistentVolumeClaim:
		return copyInto(o, dst)
	case *corev1.PersistentVolume:
		return copyInto(o, dst)
	case *storagev1.StorageClass:
		return copyInto(o, dst)
	case *corev1.Namespace:
		return copyInto(o, dst)
	case *schedulingv1.PriorityClass:
		return copyInto(o, dst)
	case *corev1.Node:
		return copyInto(o, dst)
	}
	return fmt.Errorf("the simulated cluster holds no %T", obj)
}

// copyInto deep-copies a stored object into the caller's of the same type.
func copyInto[T any, P interface {
	*T
	DeepCopyInto(*T)
}](o client.Object, dst P) error {
	src, ok := o.(P)
	if !ok {
		return fmt.Errorf("the simulated cluster holds a %T under %T's kind", o, dst)
	}
	src.DeepCopyInto(dst)
	return nil
}

func (k *kube) List(_ context.Context, list client.ObjectList, opts ...client.ListOption) error {
	o := &client.ListOptions{}
	o.ApplyOptions(opts)
	switch l := list.(type) {
	case *corev1.PodList:
		l.Items = nil
		for _, p := range k.podsFor(o.FieldSelector) {
			if (o.Namespace == "" || p.Namespace == o.Namespace) &&
				(o.LabelSelector == nil || o.LabelSelector.Matches(labels.Set(p.Labels))) &&
				(o.FieldSelector == nil || o.FieldSelector.Matches(fields.Set{"spec.nodeName": p.Spec.NodeName})) {
				l.Items = append(l.Items, *p.DeepCopy())
			}
		}
	case *corev1.NodeList:
		l.Items = nil
		for _, n := range k.nodes {
			if o.LabelSelector == nil || o.LabelSelector.Matches(labels.Set(n.Labels)) {
				l.Items = append(l.Items, *n.DeepCopy())
			}
		}
	case *corev1.NamespaceList:
		l.Items = nil
		for _, obj := range k.objects[schema.GroupKind{Kind: "Namespace"}] {
			ns, ok := obj.(*corev1.Namespace)
			if ok && (o.LabelSelector == nil || o.LabelSelector.Matches(labels.Set(ns.Labels))) {
				l.Items = append(l.Items, *ns.DeepCopy())
			}
		}
	default:
		if k.listMore(list, o) {
			return nil
		}
		return fmt.Errorf("the simulated cluster lists no %T", list)
	}
	return nil
}

func (k *kube) Apply(context.Context, runtime.ApplyConfiguration, ...client.ApplyOption) error {
	return errReadOnly
}
func (k *kube) Create(context.Context, client.Object, ...client.CreateOption) error {
	return errReadOnly
}
func (k *kube) Delete(context.Context, client.Object, ...client.DeleteOption) error {
	return errReadOnly
}
func (k *kube) Update(context.Context, client.Object, ...client.UpdateOption) error {
	return errReadOnly
}
func (k *kube) Patch(context.Context, client.Object, client.Patch, ...client.PatchOption) error {
	return errReadOnly
}
func (k *kube) DeleteAllOf(context.Context, client.Object, ...client.DeleteAllOfOption) error {
	return errReadOnly
}
func (k *kube) Status() client.SubResourceWriter            { return readOnlySubResource{} }
func (k *kube) SubResource(string) client.SubResourceClient { return readOnlySubResource{} }
func (k *kube) Scheme() *runtime.Scheme                     { return scheme.Scheme }
func (k *kube) RESTMapper() meta.RESTMapper                 { return nil }
func (k *kube) IsObjectNamespaced(o runtime.Object) (bool, error) {
	return !clusterScoped[kindOf(o)], nil
}
func (k *kube) GroupVersionKindFor(o runtime.Object) (schema.GroupVersionKind, error) {
	gvks, _, err := scheme.Scheme.ObjectKinds(o)
	if err != nil || len(gvks) == 0 {
		return schema.GroupVersionKind{}, fmt.Errorf("no kind for %T: %v", o, err)
	}
	return gvks[0], nil
}

type readOnlySubResource struct{}

func (readOnlySubResource) Get(context.Context, client.Object, client.Object, ...client.SubResourceGetOption) error {
	return errReadOnly
}
func (readOnlySubResource) Create(context.Context, client.Object, client.Object, ...client.SubResourceCreateOption) error {
	return errReadOnly
}
func (readOnlySubResource) Update(context.Context, client.Object, ...client.SubResourceUpdateOption) error {
	return errReadOnly
}
func (readOnlySubResource) Patch(context.Context, client.Object, client.Patch, ...client.SubResourcePatchOption) error {
	return errReadOnly
}
func (readOnlySubResource) Apply(context.Context, runtime.ApplyConfiguration, ...client.SubResourceApplyOption) error {
	return errReadOnly
}
