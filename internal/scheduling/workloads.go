package scheduling

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Workload is an object of the workloads input that makes pods.
type Workload struct {
	// Key is "<namespace>/<kind>/<name>".
	Key string
	// Input is the index of the workloads element holding it.
	Input    int
	Position Position
	// Pods are the pods its controller would create, in replica order.
	Pods []*corev1.Pod
	// Refused is set when the API server would refuse its pods (a
	// PriorityClass that does not exist): they never reach Karpenter.
	Refused string
	// distinct is set when its pods differ by more than their names (a
	// StatefulSet's claims), so replicas are not interchangeable.
	distinct bool
}

// world is everything the workloads input holds.
type world struct {
	workloads  []*Workload
	daemonSets []*appsv1.DaemonSet
	// objects are the PersistentVolumeClaims, PersistentVolumes,
	// StorageClasses, Namespaces and PriorityClasses the simulated
	// cluster holds (with the claims the controllers would create).
	objects []client.Object
	// skipped are the objects of kinds that make no pods and hold nothing
	// the decision reads, as "<namespace>/<kind>/<name>".
	skipped []string
	errors  []inputError
}

// podKinds are the served kinds whose controllers make pods.
var (
	gvkPod         = corev1.SchemeGroupVersion.WithKind("Pod")
	gvkDeployment  = appsv1.SchemeGroupVersion.WithKind("Deployment")
	gvkReplicaSet  = appsv1.SchemeGroupVersion.WithKind("ReplicaSet")
	gvkStatefulSet = appsv1.SchemeGroupVersion.WithKind("StatefulSet")
	gvkDaemonSet   = appsv1.SchemeGroupVersion.WithKind("DaemonSet")
	gvkJob         = batchv1.SchemeGroupVersion.WithKind("Job")
	gvkCronJob     = batchv1.SchemeGroupVersion.WithKind("CronJob")
	gvkPVC         = corev1.SchemeGroupVersion.WithKind("PersistentVolumeClaim")
	gvkPV          = corev1.SchemeGroupVersion.WithKind("PersistentVolume")
	gvkNamespace   = corev1.SchemeGroupVersion.WithKind("Namespace")
	gvkSC          = storagev1.SchemeGroupVersion.WithKind("StorageClass")
	gvkPC          = schedulingv1.SchemeGroupVersion.WithKind("PriorityClass")
	gvkHPA         = autoscalingv2.SchemeGroupVersion.WithKind("HorizontalPodAutoscaler")
	gvkHPAv1       = autoscalingv1.SchemeGroupVersion.WithKind("HorizontalPodAutoscaler")
)

// retired are API versions of these kinds that Kubernetes no longer serves
// (the API server answers `no matches for kind`), with the release that
// removed them.
var retired = map[string]string{
	"extensions/v1beta1": "1.16 (1.22 for Ingress)", "apps/v1beta1": "1.16", "apps/v1beta2": "1.16",
	"batch/v1beta1": "1.25", "batch/v2alpha1": "1.21", "storage.k8s.io/v1beta1": "1.22",
	"scheduling.k8s.io/v1beta1": "1.22", "scheduling.k8s.io/v1alpha1": "1.17",
}

// podsKinds are the kinds the decision reads, by name, for the retired
// versions message.
var readKinds = map[string]bool{"Pod": true, "Deployment": true, "ReplicaSet": true, "StatefulSet": true, "DaemonSet": true,
	"Job": true, "CronJob": true, "PersistentVolumeClaim": true, "PersistentVolume": true, "StorageClass": true,
	"PriorityClass": true, "Namespace": true, "HorizontalPodAutoscaler": true}

// creationTime is every simulated object's creation time: pods of equal
// requests then reach Karpenter's queue in UID order, which is the order of
// the workloads input (uid).
var creationTime = metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))

// readWorld decodes the workloads input and expands every controller into
// the pods it would create on an empty cluster.
//
// scale is Input.Scale: with ScaleMax, a Deployment, ReplicaSet or
// StatefulSet that a HorizontalPodAutoscaler of the input targets makes
// the HPA's maxReplicas pods (the most the HPA controller scales it to).
func readWorld(inputs []string, scale string) *world {
	w := &world{}
	var objs []object
	for i, text := range inputs {
		o, e := readObjects(i, text)
		objs, w.errors = append(objs, o...), append(w.errors, e...)
	}
	seen := map[string]Position{}
	var pvcs []*corev1.PersistentVolumeClaim
	var classes []*storagev1.StorageClass
	var priorities []*schedulingv1.PriorityClass
	type pending struct {
		o        object
		count    int
		make     func(ns string) []*corev1.Pod
		distinct bool
		// replicas, for a kind an HPA scales, points at its spec.replicas.
		replicas **int32
	}
	var makers []pending
	// maxReplicas are the HPAs' maxReplicas by target key; hpas the
	// HPAs, with the target they name.
	maxReplicas := map[string]int32{}
	type hpa struct{ key, target string }
	var hpas []hpa
	readHPA := func(o object, ns string, ref autoscalingv2.CrossVersionObjectReference, limit int32) {
		target := ns + "/" + ref.Kind + "/" + ref.Name
		hpas = append(hpas, hpa{o.key(), target})
		maxReplicas[target] = limit
	}
	for _, o := range objs {
		key := o.key()
		ns, _, _ := strings.Cut(key, "/")
		if p, dup := seen[key]; dup {
			w.errors = append(w.errors, inputError{input: o.input, pos: o.pos, what: o.describe(), key: o.key(), err: fmt.Sprintf(
				"%s is defined twice (first in %s): kubectl applies the second over the first, and Kustomize and Argo CD refuse the pair", key, p)})
			continue
		}
		seen[key] = o.pos
		if since, ok := retired[o.gvk.GroupVersion().String()]; ok && readKinds[o.gvk.Kind] {
			w.errors = append(w.errors, inputError{input: o.input, pos: o.pos, what: o.describe(), key: o.key(), err: fmt.Sprintf(
				"apiVersion %s is no longer served (removed in Kubernetes %s): kubectl apply fails with `no matches for kind %q in version %q`; write the current apiVersion (%s)",
				o.gvk.GroupVersion(), since, o.gvk.Kind, o.gvk.GroupVersion(), currentVersion(o.gvk.Kind))})
			continue
		}
		decode := func(into runtime.Object) bool {
			unknown, err := decodeTyped(o, into)
			if err != nil {
				w.errors = append(w.errors, inputError{input: o.input, pos: o.pos, what: o.describe(), key: o.key(), err: err.Error()})
				return false
			}
			for _, u := range unknown {
				pos := o.pos
				if l := lineOf(o.node, fieldOfStrictError(u)); l > 0 {
					pos.Line = l
				}
				w.errors = append(w.errors, inputError{input: o.input, pos: pos, what: o.describe(), key: o.key(), err: u +
					": kubectl apply refuses it (strict field validation), and an API server that drops it stores the object without the field, so the pods miss what it was meant to say (a misspelt or misplaced key)"})
			}
			return true
		}
		switch o.gvk {
		case gvkPod:
			var p corev1.Pod
			if decode(&p) {
				// A pod bound already is not Karpenter's (IsProvisionable).
				makers = append(makers, pending{o: o, count: boolCount(p.Spec.NodeName == ""), make: func(ns string) []*corev1.Pod {
					if p.Spec.NodeName != "" {
						return nil
					}
					return []*corev1.Pod{newPod(ns, p.Name, p.ObjectMeta, p.Spec)}
				}})
			}
		case gvkDeployment:
			var d appsv1.Deployment
			if decode(&d) {
				makers = append(makers, pending{o: o, count: replicaCount(d.Spec.Replicas), replicas: &d.Spec.Replicas, make: func(ns string) []*corev1.Pod {
					return replicas(ns, d.Name, replicaCount(d.Spec.Replicas), d.Spec.Template)
				}})
			}
		case gvkReplicaSet:
			var rs appsv1.ReplicaSet
			if decode(&rs) {
				makers = append(makers, pending{o: o, count: replicaCount(rs.Spec.Replicas), replicas: &rs.Spec.Replicas, make: func(ns string) []*corev1.Pod {
					return replicas(ns, rs.Name, replicaCount(rs.Spec.Replicas), rs.Spec.Template)
				}})
			}
		case gvkStatefulSet:
			var s appsv1.StatefulSet
			if decode(&s) {
				makers = append(makers, pending{o: o, count: replicaCount(s.Spec.Replicas), replicas: &s.Spec.Replicas, distinct: len(s.Spec.VolumeClaimTemplates) > 0, make: func(ns string) []*corev1.Pod {
					pods, claims := statefulSetPods(ns, &s)
					pvcs = append(pvcs, claims...)
					return pods
				}})
			}
		case gvkJob:
			var j batchv1.Job
			if decode(&j) {
				makers = append(makers, pending{o: o, count: jobCount(j.Spec), make: func(ns string) []*corev1.Pod { return jobPods(ns, j.Name, j.Spec) }})
			}
		case gvkCronJob:
			var c batchv1.CronJob
			if decode(&c) {
				suspended := c.Spec.Suspend != nil && *c.Spec.Suspend
				makers = append(makers, pending{o: o, count: boolCount(!suspended) * jobCount(c.Spec.JobTemplate.Spec), make: func(ns string) []*corev1.Pod {
					if suspended {
						return nil
					}
					return jobPods(ns, c.Name, c.Spec.JobTemplate.Spec)
				}})
			}
		case gvkDaemonSet:
			var d appsv1.DaemonSet
			if decode(&d) {
				d.Namespace = ns
				w.daemonSets = append(w.daemonSets, &d)
			}
		case gvkPVC:
			var c corev1.PersistentVolumeClaim
			if decode(&c) {
				c.Namespace = ns
				pvcs = append(pvcs, &c)
			}
		case gvkPV:
			var v corev1.PersistentVolume
			if decode(&v) {
				w.objects = append(w.objects, &v)
			}
		case gvkSC:
			var c storagev1.StorageClass
			if decode(&c) {
				classes = append(classes, &c)
				w.objects = append(w.objects, &c)
			}
		case gvkPC:
			var c schedulingv1.PriorityClass
			if decode(&c) {
				priorities = append(priorities, &c)
				w.objects = append(w.objects, &c)
			}
		case gvkHPA:
			var h autoscalingv2.HorizontalPodAutoscaler
			if decode(&h) {
				readHPA(o, ns, h.Spec.ScaleTargetRef, h.Spec.MaxReplicas)
			}
		case gvkHPAv1:
			var h autoscalingv1.HorizontalPodAutoscaler
			if decode(&h) {
				ref := h.Spec.ScaleTargetRef
				readHPA(o, ns, autoscalingv2.CrossVersionObjectReference{Kind: ref.Kind, Name: ref.Name, APIVersion: ref.APIVersion}, h.Spec.MaxReplicas)
			}
		case gvkNamespace:
			var n corev1.Namespace
			if decode(&n) {
				w.objects = append(w.objects, &n)
			}
		default:
			w.skipped = append(w.skipped, key)
		}
	}
	targets := map[string]bool{}
	for i, m := range makers {
		k := m.o.key()
		most, ok := maxReplicas[k]
		if !ok || m.replicas == nil {
			continue
		}
		targets[k] = true
		if scale == ScaleMax {
			*m.replicas = &most
			makers[i].count = int(most)
		}
	}
	// An HPA whose target is not in the input scales nothing the
	// decision sees: it is listed with the skipped objects.
	for _, h := range hpas {
		if !targets[h.target] {
			w.skipped = append(w.skipped, h.key)
		}
	}
	total := 0
	for _, m := range makers {
		total += m.count
		if total > MaxPods {
			w.errors = append(w.errors, inputError{input: m.o.input, pos: m.o.pos, what: m.o.describe(), key: m.o.key(), err: fmt.Sprintf(
				"with its %d pods the workloads make more than %d, the most the decision simulates (Karpenter's scheduler takes about a CPU minute for 5,000 pods on a region's catalogue, and more than linearly more beyond): split the workloads into several decisions, or decide them with fewer replicas", m.count, MaxPods)})
			w.workloads = nil
			return w
		}
	}
	for _, m := range makers {
		ns := m.o.ns
		if ns == "" {
			ns = metav1.NamespaceDefault
		}
		wl := &Workload{Key: ns + "/" + m.o.gvk.Kind + "/" + m.o.name, Input: m.o.input, Position: m.o.pos, Pods: m.make(ns),
			distinct: m.distinct}
		for _, p := range wl.Pods {
			pvcs = append(pvcs, ephemeralClaims(p)...)
		}
		w.workloads = append(w.workloads, wl)
	}
	// The claims a StatefulSet or an ephemeral volume would create are
	// created only when the workloads do not hold one of that name.
	claims := map[types.NamespacedName]*corev1.PersistentVolumeClaim{}
	for _, c := range pvcs {
		k := types.NamespacedName{Namespace: c.Namespace, Name: c.Name}
		if _, ok := claims[k]; !ok || c.Annotations[generatedAnnotation] == "" {
			claims[k] = c
		}
	}
	def := defaultClass(classes)
	for _, k := range sortedClaimKeys(claims) {
		c := claims[k]
		delete(c.Annotations, generatedAnnotation)
		// The DefaultStorageClass admission plugin names the default
		// class in a claim that names none (nil, not "").
		if c.Spec.StorageClassName == nil && def != "" {
			c.Spec.StorageClassName = &def
		}
		w.objects = append(w.objects, c)
	}
	prio := map[string]int32{"system-cluster-critical": 2000000000, "system-node-critical": 2000001000}
	var globalDefault *schedulingv1.PriorityClass
	for _, pc := range priorities {
		prio[pc.Name] = pc.Value
		if pc.GlobalDefault && (globalDefault == nil || pc.Name < globalDefault.Name) {
			globalDefault = pc
		}
	}
	slices.SortStableFunc(w.errors, func(a, b inputError) int {
		return cmp.Or(cmp.Compare(a.input, b.input), cmp.Compare(a.pos.Document, b.pos.Document), cmp.Compare(a.pos.Line, b.pos.Line))
	})
	uid := 0
	for _, wl := range w.workloads {
		for _, p := range wl.Pods {
			uid++
			p.UID = types.UID(fmt.Sprintf("%08d", uid))
			// The Priority admission plugin: the named class's value,
			// else the global default's; a name that does not exist
			// refuses the pod.
			switch name := p.Spec.PriorityClassName; {
			case name == "" && globalDefault != nil:
				v := globalDefault.Value
				p.Spec.Priority, p.Spec.PriorityClassName = &v, globalDefault.Name
			case name != "":
				v, ok := prio[name]
				if !ok {
					wl.Refused = fmt.Sprintf("the API server refuses its pods: `no PriorityClass with name %s was found` (the Priority admission plugin); add the PriorityClass to workloads if it exists in the cluster, or fix priorityClassName", name)
				}
				p.Spec.Priority = &v
			}
		}
	}
	return w
}

// generatedAnnotation marks the claims a controller would create, so that a
// claim of the same name in the workloads wins.
const generatedAnnotation = "scheduling.karpenter-tf.io/generated"

func sortedClaimKeys(m map[types.NamespacedName]*corev1.PersistentVolumeClaim) []types.NamespacedName {
	keys := make([]types.NamespacedName, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b types.NamespacedName) int { return strings.Compare(a.String(), b.String()) })
	return keys
}

// defaultClass is the StorageClass annotated as the default; of several,
// the API server picks the newest, the prediction the first by name.
func defaultClass(classes []*storagev1.StorageClass) string {
	var names []string
	for _, c := range classes {
		if c.Annotations["storageclass.kubernetes.io/is-default-class"] == "true" {
			names = append(names, c.Name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return slices.Min(names)
}

func namespaced(gvk schema.GroupVersionKind) bool {
	switch gvk.Kind {
	case "PersistentVolume", "StorageClass", "PriorityClass", "Namespace", "Node", "ClusterRole", "ClusterRoleBinding",
		"CustomResourceDefinition", "NodePool", "EC2NodeClass", "NodeClaim", "IngressClass", "RuntimeClass", "CSIDriver",
		"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "APIService", "PodSecurityPolicy":
		return false
	}
	return true
}

func currentVersion(kind string) string {
	switch kind {
	case "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet":
		return "apps/v1"
	case "Job", "CronJob":
		return "batch/v1"
	case "StorageClass":
		return "storage.k8s.io/v1"
	case "PriorityClass":
		return "scheduling.k8s.io/v1"
	}
	return "v1"
}

func replicaCount(r *int32) int {
	if r == nil {
		return 1 // the API server's default
	}
	return int(max(*r, 0))
}

func replicas(ns, name string, n int, tmpl corev1.PodTemplateSpec) []*corev1.Pod {
	pods := make([]*corev1.Pod, 0, n)
	for i := range n {
		pods = append(pods, newPod(ns, fmt.Sprintf("%s-%d", name, i), tmpl.ObjectMeta, tmpl.Spec))
	}
	return pods
}

// MaxPods is the most pods a decision simulates.
const MaxPods = 20000

// jobCount is how many pods a Job runs at once: parallelism (default 1),
// at most the completions left (all of them on an empty cluster); none
// while suspended.
func jobCount(spec batchv1.JobSpec) int {
	if spec.Suspend != nil && *spec.Suspend {
		return 0
	}
	n := 1
	if spec.Parallelism != nil {
		n = int(max(*spec.Parallelism, 0))
	}
	if spec.Completions != nil {
		n = min(n, int(max(*spec.Completions, 0)))
	}
	return n
}

func jobPods(ns, name string, spec batchv1.JobSpec) []*corev1.Pod {
	return replicas(ns, name, jobCount(spec), spec.Template)
}

func boolCount(b bool) int {
	if b {
		return 1
	}
	return 0
}

// statefulSetPods are a StatefulSet's pods (<name>-<ordinal>) and the
// claims of its volumeClaimTemplates (<template>-<name>-<ordinal>), which
// the StatefulSet controller creates before the pods and mounts under the
// template's name.
func statefulSetPods(ns string, s *appsv1.StatefulSet) ([]*corev1.Pod, []*corev1.PersistentVolumeClaim) {
	n := replicaCount(s.Spec.Replicas)
	var pods []*corev1.Pod
	var claims []*corev1.PersistentVolumeClaim
	for i := range n {
		p := newPod(ns, fmt.Sprintf("%s-%d", s.Name, i), s.Spec.Template.ObjectMeta, s.Spec.Template.Spec)
		for _, t := range s.Spec.VolumeClaimTemplates {
			claim := fmt.Sprintf("%s-%s-%d", t.Name, s.Name, i)
			vol := corev1.Volume{Name: t.Name, VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}
			if j := slices.IndexFunc(p.Spec.Volumes, func(v corev1.Volume) bool { return v.Name == t.Name }); j >= 0 {
				p.Spec.Volumes[j] = vol
			} else {
				p.Spec.Volumes = append(p.Spec.Volumes, vol)
			}
			claims = append(claims, generatedClaim(ns, claim, t.Labels, t.Spec))
		}
		pods = append(pods, p)
	}
	return pods, claims
}

// ephemeralClaims are the claims of a pod's generic ephemeral volumes
// (<pod>-<volume>), which the ephemeral volume controller creates.
func ephemeralClaims(p *corev1.Pod) []*corev1.PersistentVolumeClaim {
	var out []*corev1.PersistentVolumeClaim
	for _, v := range p.Spec.Volumes {
		if v.Ephemeral != nil && v.Ephemeral.VolumeClaimTemplate != nil {
			t := v.Ephemeral.VolumeClaimTemplate
			out = append(out, generatedClaim(p.Namespace, p.Name+"-"+v.Name, t.Labels, t.Spec))
		}
	}
	return out
}

func generatedClaim(ns, name string, labels map[string]string, spec corev1.PersistentVolumeClaimSpec) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels, CreationTimestamp: creationTime,
			Annotations: map[string]string{generatedAnnotation: "true"}},
		Spec:   *spec.DeepCopy(),
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending},
	}
}

// newPod is a pending pod as the API server stores it, with the defaults
// and admission changes Karpenter's decision reads, marked unschedulable
// as kube-scheduler marks it on an empty cluster.
func newPod(ns, name string, meta metav1.ObjectMeta, spec corev1.PodSpec) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: meta.Labels, Annotations: meta.Annotations,
			CreationTimestamp: creationTime},
		Spec: *spec.DeepCopy(),
		Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{
			Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable}}},
	}
	// SetDefaults_Pod: a container's requests default to its limits.
	for _, cs := range [][]corev1.Container{p.Spec.Containers, p.Spec.InitContainers} {
		for i := range cs {
			defaultRequests(&cs[i].Resources)
		}
	}
	if p.Spec.Resources != nil {
		defaultRequests(p.Spec.Resources)
	}
	// The DefaultTolerationSeconds admission plugin.
	for _, key := range []string{corev1.TaintNodeNotReady, corev1.TaintNodeUnreachable} {
		if !slices.ContainsFunc(p.Spec.Tolerations, func(t corev1.Toleration) bool {
			return (t.Key == key || t.Key == "" && t.Operator == corev1.TolerationOpExists) &&
				(t.Effect == "" || t.Effect == corev1.TaintEffectNoExecute)
		}) {
			secs := int64(300)
			p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists,
				Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &secs})
		}
	}
	return p
}

func defaultRequests(r *corev1.ResourceRequirements) {
	if r.Limits == nil {
		return
	}
	if r.Requests == nil {
		r.Requests = corev1.ResourceList{}
	}
	for name, q := range r.Limits {
		if _, ok := r.Requests[name]; !ok {
			r.Requests[name] = q.DeepCopy()
		}
	}
}
