package scheduling

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"
	scheduler "sigs.k8s.io/karpenter/pkg/controllers/provisioning/scheduling"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
	"sigs.k8s.io/karpenter/pkg/events"
	coreoptions "sigs.k8s.io/karpenter/pkg/operator/options"
	kscheduling "sigs.k8s.io/karpenter/pkg/scheduling"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/capacity"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype/realistic"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// benchInput is the benchmark's cluster: 10 NodePools on 2 EC2NodeClasses
// and 50 Deployments of 100 replicas (5,000 pods): general-purpose pods of
// five sizes, pods for two labelled team pools (one tainted), GPU pods,
// zone-spread pods and pods with preferred hostname anti-affinity.
func benchInput() Input { return benchInputWith(nil) }

// narrowFamilies pin each benchmark pool to a few current families (about
// 15 to 40 instance types each), as pools written per workload class are.
var narrowFamilies = map[string][]string{
	"default": {"m7i", "c7i", "r7i"}, "amd64": {"m7i", "c7i"}, "arm64": {"m7g", "c7g"}, "spot": {"m6i", "c6i", "r6i"},
	"memory": {"r7i", "r7g"}, "compute": {"c7i", "c7g"}, "burstable": {"t3", "t4g"}, "team-a": {"m7i"}, "team-b": {"m7i"},
	"gpu": {"g5", "g6"},
}

// benchInputWith adds to each pool an instance-family requirement from
// families (none when nil).
func benchInputWith(families map[string][]string) Input {
	class := func(name string) string {
		return "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata:\n  name: " + name + "\nspec:\n  amiSelectorTerms:\n" +
			"    - alias: al2023@latest\n  role: KarpenterNodeRole-demo\n  subnetSelectorTerms:\n    - tags:\n        karpenter.sh/discovery: demo\n" +
			"  securityGroupSelectorTerms:\n    - tags:\n        karpenter.sh/discovery: demo\n  kubelet:\n    maxPods: 110\n"
	}
	pool := func(name, class string, weight int, template string) string {
		if f := families[name]; f != nil {
			if template == "" || !strings.HasPrefix(template, "      requirements:\n") {
				template = "      requirements:\n" + template
			}
			template = strings.Replace(template, "      requirements:\n", "      requirements:\n"+
				fmt.Sprintf("        - key: karpenter.k8s.aws/instance-family\n          operator: In\n          values: [\"%s\"]\n", strings.Join(f, "\", \"")), 1)
		}
		return fmt.Sprintf("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: %s\nspec:\n  weight: %d\n  template:\n"+
			"    spec:\n      nodeClassRef:\n        group: karpenter.k8s.aws\n        kind: EC2NodeClass\n        name: %s\n%s", name, weight, class, template)
	}
	req := func(key, op string, values ...string) string {
		return fmt.Sprintf("        - key: %s\n          operator: %s\n          values: [\"%s\"]\n", key, op, strings.Join(values, "\", \""))
	}
	reqs := func(rs ...string) string { return "      requirements:\n" + strings.Join(rs, "") }
	taint := func(key string) string {
		return "      taints:\n        - key: " + key + "\n          value: \"true\"\n          effect: NoSchedule\n"
	}
	in := Input{NodeClasses: []string{class("general"), class("accelerated")}}
	crm := req("karpenter.k8s.aws/instance-category", "In", "c", "m", "r")
	in.NodePools = []string{
		pool("default", "general", 0, ""),
		pool("amd64", "general", 10, reqs(crm, req("kubernetes.io/arch", "In", "amd64"))),
		pool("arm64", "general", 20, reqs(crm, req("kubernetes.io/arch", "In", "arm64"))),
		pool("spot", "general", 30, reqs(crm, req("karpenter.sh/capacity-type", "In", "spot"))),
		pool("memory", "general", 5, reqs(req("karpenter.k8s.aws/instance-category", "In", "r", "x"))),
		pool("compute", "general", 5, reqs(req("karpenter.k8s.aws/instance-category", "In", "c"), req("karpenter.k8s.aws/instance-generation", "Gt", "5"))),
		pool("burstable", "general", 1, reqs(req("karpenter.k8s.aws/instance-family", "In", "t3", "t3a", "t4g"))),
		pool("team-a", "general", 40, reqs(crm, req("team", "In", "a"))),
		pool("team-b", "general", 40, reqs(crm, req("team", "In", "b"))+taint("team-b")),
		pool("gpu", "accelerated", 50, reqs(req("karpenter.k8s.aws/instance-gpu-manufacturer", "In", "nvidia"))+taint("nvidia.com/gpu")),
	}
	cpus := []string{"100m", "250m", "500m", "1", "2"}
	mems := []string{"128Mi", "512Mi", "1Gi", "2Gi", "4Gi"}
	for i := range 50 {
		name := fmt.Sprintf("app-%02d", i)
		pod := ""
		limits := ""
		switch {
		case i < 5:
			pod = "      nodeSelector:\n        team: a\n"
		case i < 10:
			pod = "      nodeSelector:\n        team: b\n      tolerations:\n        - key: team-b\n          operator: Exists\n"
		case i < 13:
			pod = "      tolerations:\n        - key: nvidia.com/gpu\n          operator: Exists\n"
			limits = "            limits:\n              nvidia.com/gpu: 1\n"
		case i < 18:
			pod = "      topologySpreadConstraints:\n        - maxSkew: 1\n          topologyKey: topology.kubernetes.io/zone\n" +
				"          whenUnsatisfiable: DoNotSchedule\n          labelSelector:\n            matchLabels:\n              app: " + name + "\n"
		case i < 21:
			pod = "      affinity:\n        podAntiAffinity:\n          preferredDuringSchedulingIgnoredDuringExecution:\n" +
				"            - weight: 10\n              podAffinityTerm:\n                topologyKey: kubernetes.io/hostname\n" +
				"                labelSelector:\n                  matchLabels:\n                    app: " + name + "\n"
		}
		in.Workloads = append(in.Workloads, fmt.Sprintf("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: %[1]s\n"+
			"spec:\n  replicas: %[6]d\n  selector:\n    matchLabels:\n      app: %[1]s\n  template:\n    metadata:\n      labels:\n"+
			"        app: %[1]s\n    spec:\n      containers:\n        - name: app\n          image: app\n          resources:\n%[4]s"+
			"            requests:\n              cpu: %[2]q\n              memory: %[3]s\n%[5]s", name, cpus[i%5], mems[(i/5)%5], limits, pod, benchReplicas))
	}
	return in
}

// benchReplicas is the replicas of each of the 50 Deployments.
var benchReplicas = 100

// benchFacts are the 1,363-type catalogue of the reference data offered in
// three zones, and both classes on one subnet per zone.
func benchFacts(b *testing.B) Facts {
	b.Helper()
	dir, err := realistic.Dir()
	if errors.Is(err, realistic.ErrNoData) {
		b.Skip(err)
	}
	if err != nil {
		b.Fatal(err)
	}
	infos, err := realistic.InstanceTypes(dir)
	if err != nil {
		b.Fatal(err)
	}
	zones := []Subnet{{ID: "subnet-a", Zone: "us-east-1a", ZoneID: "use1-az1"}, {ID: "subnet-b", Zone: "us-east-1b", ZoneID: "use1-az2"},
		{ID: "subnet-c", Zone: "us-east-1c", ZoneID: "use1-az4"}}
	offerings := map[string][]string{}
	for _, z := range zones {
		for _, info := range infos {
			offerings[z.Zone] = append(offerings[z.Zone], string(info.InstanceType))
		}
	}
	st := ClassStatus{Ready: true, Subnets: zones}
	return Facts{Catalogue: NewCatalogue("us-east-1", infos, offerings), Classes: map[string]ClassStatus{"general": st, "accelerated": st},
		Settings: capacity.DefaultSettings(), Karpenter: versions.DefaultKarpenter}
}

// BenchmarkScheduling5000 is `make bench`'s scheduling row: the data
// source's engine (parse, instance types, decision, canonical output) and,
// on the same input in the same run, Karpenter's own NewTopology,
// NewScheduler and Solve (what Provisioner.Schedule times). The report
// reads the ratio of the two and pods/s.
func BenchmarkScheduling5000(b *testing.B) { benchmarkScheduling(b, benchInput()) }

// BenchmarkScheduling5000Narrow is the same with every pool pinned to a
// few families: what it takes for Karpenter's scheduler to go faster.
func BenchmarkScheduling5000Narrow(b *testing.B) {
	benchmarkScheduling(b, benchInputWith(narrowFamilies))
}

// benchmarkScheduling times, in each iteration, the engine and
// Karpenter's own scheduler on the same input, one after the other in
// turn (engine first on even iterations), so that a change of the
// machine's load weighs on both: engine-* and solve-* metrics, per
// decision, and their CPU ratio.
func benchmarkScheduling(b *testing.B, in Input) {
	facts := benchFacts(b)
	if fs := Parse(in).Findings(); len(fs) > 0 {
		b.Fatal(fs)
	}
	ctx := context.Background()
	p := Parse(in)
	sctx := decisionContext(ctx)
	pools, its, _ := p.admitPools(sctx, facts, &Decision{})
	var pods []*corev1.Pod
	for _, w := range p.world.workloads {
		pods = append(pods, w.Pods...)
	}
	k := newKube(p.world.objects, nil, nil)
	opts := []scheduler.Options{scheduler.DisableReservedCapacityFallback, scheduler.NumConcurrentReconciles(1),
		scheduler.MinValuesPolicy(coreoptions.MinValuesPolicyStrict)}
	var engine, solve cost
	placed := 0
	runEngine := func() {
		defer engine.measure()()
		d, err := Parse(in).Decide(ctx, facts)
		if err != nil {
			b.Fatal(err)
		}
		placed = 0
		for _, w := range d.Workloads {
			placed += w.Pods - w.Unschedulable
		}
	}
	runSolve := func() {
		defer solve.measure()()
		clk := clock.RealClock{}
		cluster := state.NewCluster(clk, k, nil)
		topology, err := scheduler.NewTopology(sctx, k, cluster, nil, pools, its, pods, opts...)
		if err != nil {
			b.Fatal(err)
		}
		s := scheduler.NewScheduler(sctx, k, pools, cluster, nil, topology, its, nil, events.NewRecorder(&record.FakeRecorder{}), clk,
			map[types.UID][]kscheduling.Requirements{}, nil, opts...)
		results, err := s.Solve(sctx, pods)
		if err != nil {
			b.Fatal(err)
		}
		results.TruncateInstanceTypes(sctx, scheduler.MaxInstanceTypes)
	}
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			runEngine()
			runSolve()
		} else {
			runSolve()
			runEngine()
		}
		i++
	}
	n := float64(b.N)
	b.ReportMetric(engine.cpu.Seconds()/n, "engine-cpu-s")
	b.ReportMetric(solve.cpu.Seconds()/n, "solve-cpu-s")
	b.ReportMetric(engine.cpu.Seconds()/solve.cpu.Seconds(), "cpu-ratio")
	b.ReportMetric(engine.wall.Seconds()/solve.wall.Seconds(), "wall-ratio")
	b.ReportMetric(float64(len(pods))*n/engine.wall.Seconds(), "engine-pods/s")
	b.ReportMetric(float64(len(pods))*n/solve.wall.Seconds(), "solve-pods/s")
	b.ReportMetric(float64(len(pods))*n/engine.cpu.Seconds(), "engine-pods/cpu-s")
	b.ReportMetric(float64(len(pods))*n/solve.cpu.Seconds(), "solve-pods/cpu-s")
	b.ReportMetric(float64(engine.alloc)/n/1e6, "engine-MB")
	b.ReportMetric(float64(solve.alloc)/n/1e6, "solve-MB")
	b.ReportMetric(float64(placed), "placed")
}

// cost accumulates one side's CPU, wall time and allocated bytes.
type cost struct {
	cpu, wall time.Duration
	alloc     uint64
}

func (c *cost) measure() func() {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	cpu, start, alloc := processCPU(), time.Now(), m.TotalAlloc
	return func() {
		runtime.ReadMemStats(&m)
		c.cpu += processCPU() - cpu
		c.wall += time.Since(start)
		c.alloc += m.TotalAlloc - alloc
	}
}

// processCPU is the process's user and system CPU time: on a machine
// shared with other jobs wall time grows with the load, CPU time much
// less.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
