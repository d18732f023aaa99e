package differential

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling/schedulingtest"
)

// TestSchedulingMatchesKarpenter decides each scenario twice on the same
// fixtures: with the data source's engine (package scheduling on the
// project's instance types, capacity model, prices and readiness
// prediction) and with Karpenter's full provisioner (the karpenter type
// above: karpenter-provider-aws's cloud provider and status reconcilers
// against the emulator). They must agree per workload (how many pods each
// NodePool takes, and the exact message of every pod Karpenter would not
// place) and on the NodeClaims as a multiset: pool, pods, zones, capacity
// types, architectures and the set of instance types.
//
// What Karpenter decides arbitrarily is compared in a canonical form:
// replicas of one workload are interchangeable (Karpenter orders equal
// pods by their random UIDs; both sides number them in input order, and
// a NodeClaim's pods are compared as workload keys), instance types as a
// set (Karpenter orders equal prices as its Go map gives them), and
// NodeClaims as a multiset (in-flight NodeClaims are re-sorted by pod count
// with an unstable sort). Scenarios avoid ties between zones that differ,
// which Karpenter breaks in Go map order (TopologyGroup
// nextDomainTopologySpread): spreads have as many replicas as zones.
func TestSchedulingMatchesKarpenter(t *testing.T) {
	e := schedulingtest.Start(t, nil)
	if len(schedulingScenarios) < 25 {
		t.Fatalf("only %d scenarios", len(schedulingScenarios))
	}
	for _, sc := range schedulingScenarios {
		t.Run(sc.name, func(t *testing.T) {
			ref := newKarpenter(t, e.URL).schedule(t, sc.pools, sc.classes, sc.workloads)
			p := scheduling.Parse(scheduling.Input{NodePools: sc.pools, NodeClasses: sc.classes, Workloads: sc.workloads})
			d, err := p.Decide(context.Background(), e.Facts(t, p))
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range d.Findings {
				if f.Rule.ID == "scheduling-document-invalid" {
					t.Fatalf("the scenario does not read: %s", f)
				}
			}
			compareDecisions(t, d, ref)
			if sc.check != nil {
				sc.check(t, d)
			}
		})
	}
}

func compareDecisions(t *testing.T, d *scheduling.Decision, ref refOutcome) {
	t.Helper()
	got := map[string]workloadOutcome{}
	for _, w := range d.Workloads {
		o := workloadOutcome{Pools: w.NodePools, Reasons: map[string]int{}}
		for r, n := range w.Reasons {
			if strings.HasPrefix(r, "failed getting volume topology requirements") {
				r = "(left out of scheduling)"
			}
			o.Reasons[r] += n
		}
		got[w.Key] = o
	}
	for _, key := range slices.Sorted(maps.Keys(ref.workloads)) {
		want, g := ref.workloads[key], got[key]
		if !maps.Equal(g.Pools, want.Pools) || !maps.Equal(g.Reasons, want.Reasons) {
			t.Errorf("%s:\n engine    pools %v unschedulable %v\n Karpenter pools %v unschedulable %v", key, g.Pools, g.Reasons, want.Pools, want.Reasons)
		}
	}
	if len(got) != len(ref.workloads) {
		t.Errorf("engine read %d workloads, Karpenter %d", len(got), len(ref.workloads))
	}
	// Drawn: the NodeClaims as the engine's run of the scheduler drew
	// them; NodeClaims says a coin's zones as chance, which a single run
	// of Karpenter's provisioner cannot.
	var gotClaims, wantClaims []string
	for _, nc := range d.Drawn {
		c := comparedClaim{Pool: nc.NodePool, InstanceTypes: slices.Sorted(slices.Values(nc.InstanceTypes)), Zones: nc.Zones,
			CapacityTypes: nc.CapacityTypes, Architectures: nc.Architectures}
		for _, p := range nc.Pods {
			c.Pods = append(c.Pods, p[:strings.LastIndexByte(p, '/')])
		}
		slices.Sort(c.Pods)
		gotClaims = append(gotClaims, c.String())
	}
	for _, c := range ref.claims {
		wantClaims = append(wantClaims, c.String())
	}
	slices.Sort(gotClaims)
	slices.Sort(wantClaims)
	if !slices.Equal(gotClaims, wantClaims) {
		t.Errorf("NodeClaims differ:\n engine:\n  %s\n Karpenter:\n  %s", strings.Join(gotClaims, "\n  "), strings.Join(wantClaims, "\n  "))
	}
}

// schedulingScenario is one input decided by both; check asserts what the
// scenario is about on the engine's decision (so that a scenario cannot
// agree by both sides doing nothing).
type schedulingScenario struct {
	name                      string
	pools, classes, workloads []string
	check                     func(t *testing.T, d *scheduling.Decision)
}

// nodeClass is an EC2NodeClass on the demo subnets (us-east-1a, b, c) with
// the demo instance profile; extra is indented under spec.
func nodeClass(name, alias, extra string) string {
	return fmt.Sprintf(`apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: %s
spec:
  amiSelectorTerms:
    - alias: %s
  instanceProfile: KarpenterNodeInstanceProfile-demo
  subnetSelectorTerms:
    - tags:
        karpenter.sh/discovery: demo
  securityGroupSelectorTerms:
    - tags:
        karpenter.sh/discovery: demo
%s`, name, alias, extra)
}

var defaultClass = nodeClass("default", "al2023@latest", "")

// nodePool is a NodePool on class; spec is indented under spec (weight,
// limits), template under spec.template.spec (requirements, taints).
func nodePool(name, class, spec, template string) string {
	return fmt.Sprintf(`apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: %s
spec:
%s  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: %s
%s`, name, spec, class, template)
}

// requirement is one template requirement (indented for template).
func requirement(key, op string, values ...string) string {
	s := "      requirements:\n"
	return s + requirementItem(key, op, values...)
}

func requirementItem(key, op string, values ...string) string {
	s := fmt.Sprintf("        - key: %s\n          operator: %s\n", key, op)
	if len(values) > 0 {
		s += "          values: [" + strings.Join(values, ", ") + "]\n"
	}
	return s
}

// deployment is a Deployment of replicas pods requesting cpu and memory;
// pod is indented under spec.template.spec.
func deployment(name string, replicas int, cpu, memory, pod string) string {
	return workload("Deployment", name, replicas, cpu, memory, "", pod)
}

func workload(kind, name string, replicas int, cpu, memory, extra, pod string) string {
	count := fmt.Sprintf("  replicas: %d\n", replicas)
	if kind == "Job" {
		count = fmt.Sprintf("  parallelism: %d\n  completions: %d\n", replicas, replicas)
	}
	selector := "  selector:\n    matchLabels:\n      app: " + name + "\n"
	if kind == "Job" {
		selector = ""
	}
	return fmt.Sprintf(`apiVersion: %s
kind: %s
metadata:
  name: %s
spec:
%s%s%s  template:
    metadata:
      labels:
        app: %s
    spec:
      restartPolicy: %s
      containers:
        - name: app
          image: nginx
          resources:
            requests:
              cpu: "%s"
              memory: %s
%s`, apiVersionOf(kind), kind, name, count, selector, extra, name, restartPolicy(kind), cpu, memory, pod)
}

// withLimit adds a limit to the workload's container (the API server
// copies it into the requests).
func withLimit(doc, limit string) string {
	return strings.Replace(doc, "            requests:\n", "            limits:\n              "+limit+"\n            requests:\n", 1)
}

func apiVersionOf(kind string) string {
	if kind == "Job" {
		return "batch/v1"
	}
	return "apps/v1"
}

func restartPolicy(kind string) string {
	if kind == "Job" {
		return "Never"
	}
	return "Always"
}

const gpuPoolTaint = "      taints:\n        - key: nvidia.com/gpu\n          value: \"true\"\n          effect: NoSchedule\n"
const gpuPodToleration = "      tolerations:\n        - key: nvidia.com/gpu\n          operator: Exists\n          effect: NoSchedule\n"

func scheduled(pool string, n int) func(*testing.T, *scheduling.Decision) {
	return func(t *testing.T, d *scheduling.Decision) {
		t.Helper()
		total := 0
		for _, w := range d.Workloads {
			total += w.NodePools[pool]
		}
		if total != n {
			t.Errorf("%d pods on %s, want %d", total, pool, n)
		}
	}
}

func unschedulable(contains string) func(*testing.T, *scheduling.Decision) {
	return func(t *testing.T, d *scheduling.Decision) {
		t.Helper()
		for _, w := range d.Workloads {
			if w.Unschedulable > 0 && strings.Contains(w.Reason, contains) {
				return
			}
		}
		t.Errorf("no workload unschedulable with %q: %+v", contains, d.Workloads)
	}
}

// claims checks the NodeClaims as drawn (the zone Karpenter's scheduler
// picked).
func claims(n int, zones ...string) func(*testing.T, *scheduling.Decision) {
	return claimsIn(func(d *scheduling.Decision) []scheduling.NodeClaim { return d.Drawn }, n, zones...)
}

// chanceClaims checks the NodeClaims the decision reports, a coin's zones
// as one set.
func chanceClaims(n int, zones ...string) func(*testing.T, *scheduling.Decision) {
	return claimsIn(func(d *scheduling.Decision) []scheduling.NodeClaim { return d.NodeClaims }, n, zones...)
}

func claimsIn(of func(*scheduling.Decision) []scheduling.NodeClaim, n int, zones ...string) func(*testing.T, *scheduling.Decision) {
	return func(t *testing.T, d *scheduling.Decision) {
		t.Helper()
		if len(of(d)) != n {
			t.Errorf("%d NodeClaims, want %d", len(of(d)), n)
		}
		var got []string
		for _, nc := range of(d) {
			got = append(got, strings.Join(nc.Zones, "+"))
		}
		slices.Sort(got)
		if len(zones) > 0 && !slices.Equal(got, zones) {
			t.Errorf("NodeClaim zones %v, want %v", got, zones)
		}
	}
}

func all(checks ...func(*testing.T, *scheduling.Decision)) func(*testing.T, *scheduling.Decision) {
	return func(t *testing.T, d *scheduling.Decision) {
		t.Helper()
		for _, c := range checks {
			c(t, d)
		}
	}
}

var (
	plainPool  = nodePool("default", "default", "", "")
	gpuPool    = nodePool("gpu", "default", "", requirement("karpenter.k8s.aws/instance-gpu-manufacturer", "In", "nvidia")+gpuPoolTaint)
	zoneSpread = "      topologySpreadConstraints:\n        - maxSkew: 1\n          topologyKey: topology.kubernetes.io/zone\n" +
		"          whenUnsatisfiable: DoNotSchedule\n          labelSelector:\n            matchLabels:\n              app: web\n"
	hostAntiAffinity = "      affinity:\n        podAntiAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n" +
		"            - topologyKey: kubernetes.io/hostname\n              labelSelector:\n                matchLabels:\n                  app: web\n"
)

// pvInZone is a PersistentVolume of the EBS CSI driver in zone, bound to
// claim (as `kubectl get -o yaml` shows a bound pair), and the claim.
func pvInZone(name, zone, claim string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: PersistentVolume
metadata:
  name: %[1]s
spec:
  capacity:
    storage: 10Gi
  accessModes: [ReadWriteOnce]
  storageClassName: gp3
  csi:
    driver: ebs.csi.aws.com
    volumeHandle: vol-0123456789abcdef0
  claimRef:
    namespace: default
    name: %[3]s
  nodeAffinity:
    required:
      nodeSelectorTerms:
        - matchExpressions:
            - key: topology.ebs.csi.aws.com/zone
              operator: In
              values: [%[2]s]
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: %[3]s
  namespace: default
  annotations:
    pv.kubernetes.io/bind-completed: "yes"
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: gp3
  volumeName: %[1]s
  resources:
    requests:
      storage: 10Gi
`, name, zone, claim)
}

const gp3 = `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: gp3
provisioner: ebs.csi.aws.com
volumeBindingMode: WaitForFirstConsumer
`

const gp3ZoneB = `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: gp3-b
provisioner: ebs.csi.aws.com
volumeBindingMode: WaitForFirstConsumer
allowedTopologies:
  - matchLabelExpressions:
      - key: topology.kubernetes.io/zone
        values: [us-east-1b]
`

func statefulSet(name string, replicas int, storageClass string) string {
	return workload("StatefulSet", name, replicas, "500m", "1Gi", "  serviceName: "+name+"\n"+
		"  volumeClaimTemplates:\n    - metadata:\n        name: data\n      spec:\n        accessModes: [ReadWriteOnce]\n"+
		"        storageClassName: "+storageClass+"\n        resources:\n          requests:\n            storage: 10Gi\n", "")
}

func daemonSet(name, cpu, pod string) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: %[1]s
  namespace: kube-system
spec:
  selector:
    matchLabels:
      app: %[1]s
  template:
    metadata:
      labels:
        app: %[1]s
    spec:
      containers:
        - name: agent
          image: agent
          resources:
            requests:
              cpu: "%[2]s"
%[3]s`, name, cpu, pod)
}

var schedulingScenarios = []schedulingScenario{
	{name: "control: a web Deployment on one pool", pools: []string{plainPool}, classes: []string{defaultClass},
		workloads: []string{deployment("web", 3, "500m", "512Mi", "")}, check: all(scheduled("default", 3), claims(1))},
	{name: "taint without toleration (kubernetes-sigs/karpenter#1162)", pools: []string{gpuPool}, classes: []string{defaultClass},
		workloads: []string{deployment("web", 2, "500m", "512Mi", "")}, check: unschedulable("did not tolerate")},
	{name: "taint with toleration", pools: []string{gpuPool}, classes: []string{defaultClass},
		workloads: []string{deployment("web", 2, "500m", "512Mi", gpuPodToleration)}, check: scheduled("gpu", 2)},
	{name: "unknown label: does not have known values (aws/karpenter-provider-aws#4738)", pools: []string{plainPool}, classes: []string{defaultClass},
		workloads: []string{deployment("web", 1, "500m", "512Mi", "      nodeSelector:\n        team: payments\n")},
		check:     unschedulable("does not have known values")},
	{name: "custom label the pool sets", classes: []string{defaultClass},
		pools:     []string{nodePool("payments", "default", "", requirement("team", "In", "payments"))},
		workloads: []string{deployment("web", 1, "500m", "512Mi", "      nodeSelector:\n        team: payments\n")}, check: scheduled("payments", 1)},
	{name: "too large after overhead (aws/karpenter-provider-aws#7574)", classes: []string{defaultClass},
		pools:     []string{nodePool("small", "default", "", requirement("node.kubernetes.io/instance-type", "In", "m5.large", "c5.large"))},
		workloads: []string{deployment("web", 1, "2", "512Mi", "")}, check: unschedulable("no instance type has enough resources")},
	{name: "CPU request typo, m vs M", pools: []string{plainPool}, classes: []string{defaultClass},
		workloads: []string{deployment("web", 1, "2M", "512Mi", "")}, check: unschedulable("m vs M typo")},
	{name: "limits exceeded (kubernetes-sigs/karpenter#2890)", classes: []string{defaultClass},
		pools:     []string{nodePool("capped", "default", "  limits:\n    cpu: \"1\"\n", requirement("karpenter.k8s.aws/instance-family", "In", "m5"))},
		workloads: []string{deployment("web", 1, "500m", "512Mi", "")}, check: unschedulable("exceed limits")},
	{name: "limits leave room for some NodeClaims", classes: []string{defaultClass},
		pools:     []string{nodePool("capped", "default", "  limits:\n    cpu: \"4\"\n", requirement("node.kubernetes.io/instance-type", "In", "m5.large"))},
		workloads: []string{deployment("web", 4, "1500m", "512Mi", hostAntiAffinity)},
		check:     all(scheduled("capped", 2), unschedulable("limits"))},
	{name: "zone without a subnet", pools: []string{plainPool}, classes: []string{defaultClass},
		workloads: []string{deployment("web", 1, "500m", "512Mi", "      nodeSelector:\n        topology.kubernetes.io/zone: us-east-1d\n")},
		check:     unschedulable("")},
	{name: "weights: the heavier pool first", classes: []string{defaultClass},
		pools:     []string{plainPool, nodePool("arm", "default", "  weight: 50\n", requirement("kubernetes.io/arch", "In", "arm64"))},
		workloads: []string{deployment("web", 2, "500m", "512Mi", "")}, check: scheduled("arm", 2)},
	{name: "in-flight packing before a heavier pool (weights order new NodeClaims, not pods)", classes: []string{defaultClass},
		pools: []string{nodePool("amd", "default", "", requirement("kubernetes.io/arch", "In", "amd64")),
			nodePool("arm", "default", "  weight: 50\n", requirement("kubernetes.io/arch", "In", "arm64"))},
		workloads: []string{deployment("x86", 1, "1", "512Mi", "      nodeSelector:\n        kubernetes.io/arch: amd64\n"),
			deployment("any", 2, "100m", "128Mi", "")},
		check: all(scheduled("amd", 3), claims(1))},
	{name: "hostname anti-affinity: one node each", pools: []string{plainPool}, classes: []string{defaultClass},
		workloads: []string{deployment("web", 3, "500m", "512Mi", hostAntiAffinity)}, check: claims(3)},
	{name: "zone spread over the class's three zones", pools: []string{plainPool}, classes: []string{defaultClass},
		// The region's types are not offered alike in the three zones, so
		// which replica goes where is a coin: reported as the three zones.
		workloads: []string{deployment("web", 3, "500m", "512Mi", zoneSpread)}, check: all(claims(3, "us-east-1a", "us-east-1b", "us-east-1c"),
			chanceClaims(3, "us-east-1a+us-east-1b+us-east-1c", "us-east-1a+us-east-1b+us-east-1c", "us-east-1a+us-east-1b+us-east-1c"))},
	{name: "capacity type spread", pools: []string{plainPool}, classes: []string{defaultClass},
		workloads: []string{deployment("web", 2, "500m", "512Mi", strings.ReplaceAll(zoneSpread, "topology.kubernetes.io/zone", "karpenter.sh/capacity-type"))},
		check:     claims(2)},
	{name: "PV in a zone of the class (topology.ebs.csi.aws.com/zone)", pools: []string{plainPool}, classes: []string{defaultClass},
		workloads: []string{gp3, pvInZone("pv-b", "us-east-1b", "data"),
			deployment("db", 1, "500m", "1Gi", "      volumes:\n        - name: data\n          persistentVolumeClaim:\n            claimName: data\n")},
		check: claims(1, "us-east-1b")},
	{name: "PV in a zone without a subnet", pools: []string{plainPool}, classes: []string{defaultClass},
		workloads: []string{gp3, pvInZone("pv-d", "us-east-1d", "data"),
			deployment("db", 1, "500m", "1Gi", "      volumes:\n        - name: data\n          persistentVolumeClaim:\n            claimName: data\n")},
		check: unschedulable("")},
	{name: "StatefulSet claims through a zonal StorageClass", pools: []string{plainPool}, classes: []string{defaultClass},
		workloads: []string{gp3ZoneB, statefulSet("db", 2, "gp3-b")}, check: claims(1, "us-east-1b")},
	{name: "unbound claim without a storage class: ignored", pools: []string{plainPool}, classes: []string{defaultClass},
		workloads: []string{`apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: scratch
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 1Gi
`, deployment("db", 1, "500m", "1Gi", "      volumes:\n        - name: data\n          persistentVolumeClaim:\n            claimName: scratch\n")},
		check: unschedulable("ignoring pod")},
	{name: "GPU Job on a tainted NVIDIA pool", pools: []string{gpuPool}, classes: []string{defaultClass},
		workloads: []string{withLimit(workload("Job", "train", 2, "2", "8Gi", "", gpuPodToleration), "nvidia.com/gpu: 1")},
		check:     scheduled("gpu", 2)},
	{name: "Neuron request", pools: []string{plainPool}, classes: []string{defaultClass},
		workloads: []string{withLimit(deployment("infer", 1, "1", "2Gi", ""), "aws.amazon.com/neuron: 1")},
		check:     scheduled("default", 1)},
	{name: "DaemonSet overhead excludes the small types", pools: []string{plainPool}, classes: []string{defaultClass},
		workloads: []string{daemonSet("agent", "1", ""), deployment("web", 1, "1500m", "512Mi", "")}, check: scheduled("default", 1)},
	{name: "DaemonSet selecting one pool only", classes: []string{defaultClass},
		pools:     []string{nodePool("tagged", "default", "  weight: 10\n", requirement("team", "In", "ml")), plainPool},
		workloads: []string{daemonSet("ml-agent", "1", "      nodeSelector:\n        team: ml\n"), deployment("web", 2, "1500m", "512Mi", "")},
		check:     scheduled("tagged", 2)},
	{name: "minValues the pool cannot meet", classes: []string{defaultClass},
		pools: []string{nodePool("flexible", "default", "", "      requirements:\n"+requirementItem("node.kubernetes.io/instance-type", "In", "m5.large", "m5.xlarge", "c5.large")+
			"          minValues: 3\n")},
		workloads: []string{deployment("web", 1, "3", "512Mi", "")}, check: unschedulable("minValues")},
	{name: "requirements leave no instance type (the pool is kept, the scheduler drops it)", classes: []string{defaultClass},
		pools:     []string{nodePool("none", "default", "", "      requirements:\n"+requirementItem("node.kubernetes.io/instance-type", "In", "x9.nonexistent"))},
		workloads: []string{deployment("web", 1, "500m", "512Mi", "")}, check: unschedulable("nodepool requirements filtered out all available instance types")},
	{name: "minValues met", classes: []string{defaultClass},
		pools: []string{nodePool("flexible", "default", "", "      requirements:\n"+requirementItem("karpenter.k8s.aws/instance-family", "In", "m5", "c5", "m6g")+
			"          minValues: 2\n")},
		workloads: []string{deployment("web", 2, "500m", "512Mi", "")}, check: scheduled("flexible", 2)},
	{name: "preferred node affinity relaxed", pools: []string{plainPool}, classes: []string{defaultClass},
		workloads: []string{deployment("web", 1, "500m", "512Mi", "      affinity:\n        nodeAffinity:\n          preferredDuringSchedulingIgnoredDuringExecution:\n"+
			"            - weight: 10\n              preference:\n                matchExpressions:\n                  - key: topology.kubernetes.io/zone\n"+
			"                    operator: In\n                    values: [us-east-1d]\n")},
		check: scheduled("default", 1)},
	{name: "preferred zone honoured", pools: []string{plainPool}, classes: []string{defaultClass},
		workloads: []string{deployment("web", 2, "500m", "512Mi", "      affinity:\n        nodeAffinity:\n          preferredDuringSchedulingIgnoredDuringExecution:\n"+
			"            - weight: 10\n              preference:\n                matchExpressions:\n                  - key: topology.kubernetes.io/zone\n"+
			"                    operator: In\n                    values: [us-east-1c]\n")},
		check: claims(1, "us-east-1c")},
	{name: "architecture conflict", classes: []string{defaultClass},
		pools:     []string{nodePool("arm", "default", "", requirement("kubernetes.io/arch", "In", "arm64"))},
		workloads: []string{deployment("web", 1, "500m", "512Mi", "      nodeSelector:\n        kubernetes.io/arch: amd64\n")}, check: unschedulable("")},
	{name: "a pod that refuses Karpenter nodes is ignored", pools: []string{plainPool}, classes: []string{defaultClass},
		workloads: []string{deployment("controller", 1, "500m", "512Mi", "      affinity:\n        nodeAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n"+
			"            nodeSelectorTerms:\n              - matchExpressions:\n                  - key: karpenter.sh/nodepool\n                    operator: DoesNotExist\n")},
		check: unschedulable("ignoring pod")},
	{name: "class not Ready: no subnet matches", pools: []string{plainPool},
		classes:   []string{strings.Replace(defaultClass, "karpenter.sh/discovery: demo\n  securityGroup", "karpenter.sh/discovery: dem0\n  securityGroup", 1)},
		workloads: []string{deployment("web", 1, "500m", "512Mi", "")}, check: unschedulable("no dynamic nodepools")},
	{name: "one pool not Ready, the other takes the pods", classes: []string{defaultClass,
		strings.Replace(nodeClass("broken", "al2023@latest", ""), "karpenter.sh/discovery: demo\n  securityGroup", "karpenter.sh/discovery: dem0\n  securityGroup", 1)},
		pools:     []string{plainPool, nodePool("preferred", "broken", "  weight: 90\n", "")},
		workloads: []string{deployment("web", 2, "500m", "512Mi", "")}, check: scheduled("default", 2)},
	{name: "capacity reservation: reserved offering", pools: []string{nodePool("reserved", "reserved", "", requirement("karpenter.sh/capacity-type", "In", "reserved"))},
		classes:   []string{nodeClass("reserved", "al2023@latest", "  capacityReservationSelectorTerms:\n    - tags:\n        karpenter.sh/discovery: demo\n")},
		workloads: []string{deployment("web", 3, "1500m", "512Mi", "")}, check: all(scheduled("reserved", 2), unschedulable(""))},
	{name: "pod self-affinity on zone", pools: []string{plainPool}, classes: []string{defaultClass},
		workloads: []string{deployment("web", 2, "1500m", "512Mi", "      nodeSelector:\n        topology.kubernetes.io/zone: us-east-1a\n      affinity:\n        podAffinity:\n"+
			"          requiredDuringSchedulingIgnoredDuringExecution:\n            - topologyKey: topology.kubernetes.io/zone\n              labelSelector:\n"+
			"                matchLabels:\n                  app: web\n")},
		check: claims(1, "us-east-1a")},
	{name: "Windows pool and a Windows pod", classes: []string{nodeClass("windows", "windows2022@latest", "")},
		pools:     []string{nodePool("windows", "windows", "", requirement("kubernetes.io/os", "In", "windows"))},
		workloads: []string{deployment("iis", 1, "1", "2Gi", "      nodeSelector:\n        kubernetes.io/os: windows\n")}, check: scheduled("windows", 1)},
	{name: "several workloads packed together", pools: []string{plainPool}, classes: []string{defaultClass},
		workloads: []string{deployment("web", 4, "250m", "256Mi", ""), deployment("api", 2, "500m", "1Gi", ""),
			workload("Job", "batch", 2, "1", "2Gi", "", "")},
		check: scheduled("default", 8)},
}
