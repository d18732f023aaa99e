package scheduling

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func deploymentDoc(name, extra string) string {
	return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " + name + "\nspec:\n" + extra +
		"  selector:\n    matchLabels:\n      app: " + name + "\n  template:\n    metadata:\n      labels:\n        app: " + name + "\n" +
		"    spec:\n      containers:\n        - name: app\n          image: nginx\n"
}

func workloadByKey(t *testing.T, w *world, key string) *Workload {
	t.Helper()
	for _, wl := range w.workloads {
		if wl.Key == key {
			return wl
		}
	}
	t.Fatalf("no workload %s among %d", key, len(w.workloads))
	return nil
}

func TestWorkloadErrorsHaveThePositionInTheElement(t *testing.T) {
	text := deploymentDoc("ok", "") + "---\n# second\n" + deploymentDoc("typo", "") + "      tolerationz: []\n---\nkind: [\n---\n- a\n- b\n"
	w := readWorld([]string{"", text}, "")
	if len(w.errors) != 3 {
		t.Fatalf("errors: %+v", w.errors)
	}
	unknown, syntax, list := w.errors[0], w.errors[1], w.errors[2]
	// tolerationz is on line 35 of the element: 16 lines of the first
	// document, the separator, the comment, then line 17 of the second.
	if unknown.input != 1 || unknown.pos.Document != 1 || unknown.pos.Line != 35 || !strings.Contains(unknown.err, `unknown field "spec.template.spec.tolerationz"`) {
		t.Errorf("unknown field: %+v", unknown)
	}
	if syntax.pos.Document != 2 || syntax.pos.Line != 37 || !strings.Contains(syntax.err, "line") {
		t.Errorf("syntax error: %+v", syntax)
	}
	if list.pos.Document != 3 || !strings.Contains(list.err, "not a mapping") {
		t.Errorf("a list: %+v", list)
	}
	// The misspelt document still makes its pods, without the field.
	if got := len(workloadByKey(t, w, "default/Deployment/typo").Pods); got != 1 {
		t.Errorf("typo: %d pods", got)
	}
}

func TestWorkloadDocumentsRefused(t *testing.T) {
	for name, c := range map[string]struct{ text, want string }{
		"retired version": {strings.Replace(deploymentDoc("web", ""), "apps/v1", "extensions/v1beta1", 1), "no longer served (removed in Kubernetes 1.16"},
		"twice":           {deploymentDoc("web", "") + "---\n" + deploymentDoc("web", ""), "defined twice"},
		"no kind":         {"apiVersion: v1\nmetadata:\n  name: x\n", "no apiVersion or no kind"},
		"helm":            {"apiVersion: v1\nkind: Pod\nmetadata:\n  name: {{ .Values.name }}\n", "helm template"},
		"wrong type":      {strings.Replace(deploymentDoc("web", "  replicas: three\n"), "", "", 1), "replicas"},
	} {
		t.Run(name, func(t *testing.T) {
			w := readWorld([]string{c.text}, "")
			if len(w.errors) == 0 || !strings.Contains(w.errors[len(w.errors)-1].err, c.want) {
				t.Errorf("want an error with %q, got %+v", c.want, w.errors)
			}
		})
	}
}

func TestWorkloadPods(t *testing.T) {
	job := func(name, spec string) string {
		return "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: " + name + "\nspec:\n" + spec +
			"  template:\n    spec:\n      restartPolicy: Never\n      containers:\n        - name: c\n          image: c\n"
	}
	cron := "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: nightly\n  namespace: batch\nspec:\n  schedule: \"0 1 * * *\"\n" +
		"  jobTemplate:\n    spec:\n      parallelism: 3\n      template:\n        spec:\n          restartPolicy: Never\n" +
		"          containers:\n            - name: c\n              image: c\n"
	text := strings.Join([]string{
		deploymentDoc("default-replicas", ""),
		deploymentDoc("none", "  replicas: 0\n"),
		job("one", ""), job("wide", "  parallelism: 5\n  completions: 2\n"), job("queue", "  parallelism: 4\n"), job("paused", "  parallelism: 4\n  suspend: true\n"),
		cron, strings.Replace(cron, "name: nightly", "name: disabled", 1) + "  suspend: true\n",
		"apiVersion: v1\nkind: Pod\nmetadata:\n  name: bound\nspec:\n  nodeName: ip-10-0-0-1\n  containers:\n    - name: c\n      image: c\n",
		"apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: Pod\n    metadata:\n      name: listed\n    spec:\n      containers:\n        - name: c\n          image: c\n" +
			"  - apiVersion: v1\n    kind: Service\n    metadata:\n      name: web\n    spec: {}\n",
	}, "---\n")
	w := readWorld([]string{text}, "")
	if len(w.errors) > 0 {
		t.Fatalf("errors: %+v", w.errors)
	}
	for key, want := range map[string]int{
		"default/Deployment/default-replicas": 1, "default/Deployment/none": 0, "default/Job/one": 1, "default/Job/wide": 2,
		"default/Job/queue": 4, "default/Job/paused": 0, "batch/CronJob/nightly": 3, "batch/CronJob/disabled": 0, "default/Pod/bound": 0,
		"default/Pod/listed": 1,
	} {
		if got := len(workloadByKey(t, w, key).Pods); got != want {
			t.Errorf("%s: %d pods, want %d", key, got, want)
		}
	}
	if !slices.Equal(w.skipped, []string{"default/Service/web"}) {
		t.Errorf("skipped %v", w.skipped)
	}
	// UIDs number the pods in input order: Karpenter's queue then takes
	// equal pods in that order.
	var uids []string
	for _, wl := range w.workloads {
		for _, p := range wl.Pods {
			uids = append(uids, string(p.UID))
		}
	}
	if !slices.IsSorted(uids) || len(uids) != 12 || uids[0] != "00000001" {
		t.Errorf("UIDs %v", uids)
	}
}

func TestPodDefaultsAsTheAPIServer(t *testing.T) {
	w := readWorld([]string{"apiVersion: v1\nkind: Pod\nmetadata:\n  name: gpu\nspec:\n  containers:\n    - name: c\n      image: c\n" +
		"      resources:\n        limits:\n          nvidia.com/gpu: 1\n          cpu: 2\n        requests:\n          cpu: 1\n"}, "")
	p := w.workloads[0].Pods[0]
	req := p.Spec.Containers[0].Resources.Requests
	if q := req["nvidia.com/gpu"]; q.Cmp(resource.MustParse("1")) != 0 {
		t.Errorf("requests %v: the GPU limit is not copied to the requests", req)
	}
	if q := req[corev1.ResourceCPU]; q.Cmp(resource.MustParse("1")) != 0 {
		t.Errorf("requests %v: an explicit request was replaced", req)
	}
	if p.Namespace != "default" || len(p.Spec.Tolerations) != 2 || p.Status.Phase != corev1.PodPending {
		t.Errorf("namespace %q, tolerations %v, phase %s", p.Namespace, p.Spec.Tolerations, p.Status.Phase)
	}
}

func TestStatefulSetAndEphemeralClaims(t *testing.T) {
	sts := "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: db\nspec:\n  replicas: 2\n  serviceName: db\n" +
		"  selector:\n    matchLabels:\n      app: db\n  template:\n    metadata:\n      labels:\n        app: db\n" +
		"    spec:\n      containers:\n        - name: c\n          image: c\n      volumes:\n        - name: scratch\n" +
		"          ephemeral:\n            volumeClaimTemplate:\n              spec:\n                accessModes: [ReadWriteOnce]\n" +
		"                resources:\n                  requests:\n                    storage: 1Gi\n" +
		"  volumeClaimTemplates:\n    - metadata:\n        name: data\n      spec:\n        accessModes: [ReadWriteOnce]\n" +
		"        resources:\n          requests:\n            storage: 10Gi\n"
	given := "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: data-db-1\nspec:\n  storageClassName: io2\n" +
		"  accessModes: [ReadWriteOnce]\n  resources:\n    requests:\n      storage: 10Gi\n"
	def := "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: gp3\n  annotations:\n" +
		"    storageclass.kubernetes.io/is-default-class: \"true\"\nprovisioner: ebs.csi.aws.com\n"
	w := readWorld([]string{sts, given, def}, "")
	if len(w.errors) > 0 {
		t.Fatalf("errors: %+v", w.errors)
	}
	wl := workloadByKey(t, w, "default/StatefulSet/db")
	if len(wl.Pods) != 2 || wl.Pods[1].Name != "db-1" || !wl.distinct {
		t.Fatalf("pods %v", wl.Pods)
	}
	claim := func(p *corev1.Pod, vol string) string {
		for _, v := range p.Spec.Volumes {
			if v.Name == vol && v.PersistentVolumeClaim != nil {
				return v.PersistentVolumeClaim.ClaimName
			}
		}
		return ""
	}
	if claim(wl.Pods[0], "data") != "data-db-0" || claim(wl.Pods[1], "data") != "data-db-1" {
		t.Errorf("claims %q %q", claim(wl.Pods[0], "data"), claim(wl.Pods[1], "data"))
	}
	classes := map[string]string{}
	for _, o := range w.objects {
		if c, ok := o.(*corev1.PersistentVolumeClaim); ok {
			classes[c.Name] = fmt.Sprint(*c.Spec.StorageClassName)
		}
	}
	// Generated claims get the default class; the given one keeps its own;
	// generic ephemeral volumes make <pod>-<volume>.
	want := map[string]string{"data-db-0": "gp3", "data-db-1": "io2", "db-0-scratch": "gp3", "db-1-scratch": "gp3"}
	if fmt.Sprint(classes) != fmt.Sprint(want) {
		t.Errorf("claims %v, want %v", classes, want)
	}
}

func TestPriorityClasses(t *testing.T) {
	pc := "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: high\nvalue: 1000\n"
	withClass := func(name, class string) string {
		return strings.Replace(deploymentDoc(name, ""), "    spec:\n", "    spec:\n      priorityClassName: "+class+"\n", 1)
	}
	w := readWorld([]string{pc, withClass("a", "high"), withClass("b", "system-node-critical"), withClass("c", "missing")}, "")
	if p := workloadByKey(t, w, "default/Deployment/a").Pods[0]; *p.Spec.Priority != 1000 {
		t.Errorf("priority %d", *p.Spec.Priority)
	}
	if r := workloadByKey(t, w, "default/Deployment/b").Refused; r != "" {
		t.Errorf("built-in class refused: %s", r)
	}
	if r := workloadByKey(t, w, "default/Deployment/c").Refused; !strings.Contains(r, "no PriorityClass with name missing was found") {
		t.Errorf("refused %q", r)
	}
}

// TestTooManyPods: a replica count past MaxPods is refused before any pod
// is made (a typo like 2000000 must not exhaust the plan's memory).
func TestTooManyPods(t *testing.T) {
	w := readWorld([]string{deploymentDoc("small", "  replicas: 5\n"), deploymentDoc("huge", "  replicas: 2000000000\n")}, "")
	if len(w.workloads) != 0 || len(w.errors) != 1 || w.errors[0].input != 1 || !strings.Contains(w.errors[0].err, "more than 20000") {
		t.Errorf("workloads %d, errors %+v", len(w.workloads), w.errors)
	}
}

// TestHPAScale: scale "max" makes an HPA's target make maxReplicas pods
// (autoscaling/v2 and v1), "replicas" its manifest's; the HPA is read,
// not skipped, unless its target is not in the input.
func TestHPAScale(t *testing.T) {
	hpa := func(version, name, target string, maxReplicas int) string {
		return fmt.Sprintf("apiVersion: %s\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: %s\nspec:\n  scaleTargetRef:\n"+
			"    apiVersion: apps/v1\n    kind: Deployment\n    name: %s\n  minReplicas: 1\n  maxReplicas: %d\n", version, name, target, maxReplicas)
	}
	in := []string{deploymentDoc("web", "  replicas: 2\n"), deploymentDoc("api", "  replicas: 3\n"),
		hpa("autoscaling/v2", "web", "web", 7) + "---\n" + hpa("autoscaling/v1", "api", "api", 5) + "---\n" + hpa("autoscaling/v2", "gone", "gone", 9)}
	for scale, want := range map[string][2]int{"": {2, 3}, ScaleReplicas: {2, 3}, ScaleMax: {7, 5}} {
		w := readWorld(in, scale)
		if len(w.errors) > 0 {
			t.Fatalf("errors: %+v", w.errors)
		}
		if got := len(workloadByKey(t, w, "default/Deployment/web").Pods); got != want[0] {
			t.Errorf("scale %q: web has %d pods, want %d", scale, got, want[0])
		}
		if got := len(workloadByKey(t, w, "default/Deployment/api").Pods); got != want[1] {
			t.Errorf("scale %q: api has %d pods, want %d", scale, got, want[1])
		}
		if !slices.Equal(w.skipped, []string{"default/HorizontalPodAutoscaler/gone"}) {
			t.Errorf("scale %q: skipped %v, want only the HPA whose target is not in the input", scale, w.skipped)
		}
	}
}
