package differential

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/patrickmn/go-cache"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/apis/v1alpha1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/controllers/nodeoverlay"
	nodepoolreadiness "sigs.k8s.io/karpenter/pkg/controllers/nodepool/readiness"
	nodepoolvalidation "sigs.k8s.io/karpenter/pkg/controllers/nodepool/validation"
	"sigs.k8s.io/karpenter/pkg/controllers/provisioning"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
	"sigs.k8s.io/karpenter/pkg/events"
	coreoptions "sigs.k8s.io/karpenter/pkg/operator/options"
	kscheduling "sigs.k8s.io/karpenter/pkg/scheduling"
	sigsyaml "sigs.k8s.io/yaml"

	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	awscache "github.com/aws/karpenter-provider-aws/pkg/cache"
	awscloudprovider "github.com/aws/karpenter-provider-aws/pkg/cloudprovider"
	"github.com/aws/karpenter-provider-aws/pkg/controllers/nodeclass"
	"github.com/aws/karpenter-provider-aws/pkg/operator/options"
	"github.com/aws/karpenter-provider-aws/pkg/providers/amifamily"
	"github.com/aws/karpenter-provider-aws/pkg/providers/arczonalshift"
	"github.com/aws/karpenter-provider-aws/pkg/providers/capacityreservation"
	"github.com/aws/karpenter-provider-aws/pkg/providers/instanceprofile"
	kinstancetype "github.com/aws/karpenter-provider-aws/pkg/providers/instancetype"
	"github.com/aws/karpenter-provider-aws/pkg/providers/launchtemplate"
	"github.com/aws/karpenter-provider-aws/pkg/providers/placementgroup"
	"github.com/aws/karpenter-provider-aws/pkg/providers/pricing"
	"github.com/aws/karpenter-provider-aws/pkg/providers/securitygroup"
	ssmprovider "github.com/aws/karpenter-provider-aws/pkg/providers/ssm"
	"github.com/aws/karpenter-provider-aws/pkg/providers/subnet"
	"github.com/aws/karpenter-provider-aws/pkg/providers/version"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
)

// karpenter is Karpenter v1.14.1 as its controller runs, without an API
// server: karpenter-provider-aws's providers (subnets, security groups,
// instance profiles, AMIs, capacity reservations, instance types and
// offerings, the static prices) against the project's emulator, its
// EC2NodeClass status reconcilers, core's NodePool validation and
// readiness controllers, and core's provisioner on a controller-runtime
// fake client, wired as pkg/operator.NewOperator wires them.
type karpenter struct {
	ctx           context.Context
	cfg           aws.Config
	clk           clock.Clock
	recorder      events.Recorder
	ec2           *ec2.Client
	subnets       *subnet.DefaultProvider
	groups        *securitygroup.DefaultProvider
	profiles      *instanceprofile.DefaultProvider
	amis          *amifamily.DefaultProvider
	reservations  *capacityreservation.DefaultProvider
	placement     *placementgroup.DefaultProvider
	launch        *launchtemplate.DefaultProvider
	instanceTypes *kinstancetype.DefaultProvider
}

// karpenterOptions are the controller's flags, parsed by its own
// AddFlags/Parse (defaults everywhere else): the demo cluster, and no
// dry-run validation (the emulator serves no authorization dry runs).
func karpenterOptions(t *testing.T, endpoint string) context.Context {
	t.Helper()
	fs := &coreoptions.FlagSet{FlagSet: flag.NewFlagSet("karpenter", flag.ContinueOnError)}
	core := &coreoptions.Options{}
	core.AddFlags(fs)
	awsOpts := &options.Options{}
	awsOpts.AddFlags(fs)
	if err := core.Parse(fs, "--cluster-name=demo", "--cluster-endpoint="+endpoint, "--disable-dry-run=true", "--eks-control-plane=true"); err != nil {
		t.Fatal(err)
	}
	if err := awsOpts.Validate(); err != nil {
		t.Fatal(err)
	}
	ctx := log.IntoContext(context.Background(), logr.Discard())
	ctx = coreoptions.ToContext(ctx, core)
	return options.ToContext(ctx, awsOpts)
}

// newKarpenter starts the providers afresh: they cache per class name
// and UID, which every scenario reuses.
func newKarpenter(t *testing.T, url string) *karpenter {
	t.Helper()
	f, err := awsemu.DefaultFixtures()
	if err != nil {
		t.Fatal(err)
	}
	endpoint := ""
	for _, c := range f.Clusters {
		if aws.ToString(c.Name) == "demo" {
			endpoint = aws.ToString(c.Endpoint)
		}
	}
	ctx := karpenterOptions(t, endpoint)
	if coreoptions.FromContext(ctx).FeatureGates.ReservedCapacity {
		awsv1.CapacityReservationsEnabled = true // as cmd/controller/main.go
	}
	cfg := awsemutest.Config(url)
	k := &karpenter{ctx: ctx, cfg: cfg, clk: clock.RealClock{}, recorder: events.NewRecorder(&record.FakeRecorder{})}
	k.ec2 = ec2.NewFromConfig(cfg)
	eksapi := eks.NewFromConfig(cfg)
	newCache := func() *cache.Cache { return cache.New(awscache.DefaultTTL, awscache.DefaultCleanupInterval) }
	k.subnets = subnet.NewDefaultProvider(k.ec2, newCache(), newCache())
	k.groups = securitygroup.NewDefaultProvider(k.ec2, newCache())
	k.profiles = instanceprofile.NewDefaultProvider(iam.NewFromConfig(cfg), newCache(), newCache(), newCache(), cfg.Region)
	prices := pricing.NewDefaultProvider(pricing.NewAPI(cfg), k.ec2, cfg.Region, false)
	versions := version.NewDefaultProvider(nil, eksapi)
	if err := versions.UpdateVersion(ctx); err != nil {
		t.Fatal(err)
	}
	k.amis = amifamily.NewDefaultProvider(k.clk, versions, ssmprovider.NewDefaultProvider(ssm.NewFromConfig(cfg), newCache()), k.ec2, newCache())
	k.placement = placementgroup.NewProvider(k.ec2, newCache(), newCache())
	k.launch = launchtemplate.NewDefaultProvider(ctx, newCache(), k.ec2, eksapi, amifamily.NewDefaultResolver(cfg.Region), k.groups,
		k.subnets, k.placement, aws.String(""), make(chan struct{}), nil, endpoint)
	k.reservations = capacityreservation.NewProvider(k.ec2, k.clk, newCache(), newCache())
	k.instanceTypes = kinstancetype.NewDefaultProvider(newCache(), newCache(), newCache(), k.ec2, k.subnets, prices, k.reservations,
		k.placement, awscache.NewUnavailableOfferings(), kinstancetype.NewDefaultResolver(cfg.Region), arczonalshift.NewNoopProvider(), nil)
	if err := k.instanceTypes.UpdateInstanceTypes(ctx); err != nil {
		t.Fatal(err)
	}
	if err := k.instanceTypes.UpdateInstanceTypeOfferings(ctx); err != nil {
		t.Fatal(err)
	}
	return k
}

// cloudProvider is karpenter-provider-aws's cloud provider on kube
// (without an instance provider: nothing here launches).
func (k *karpenter) cloudProvider(kube client.Client) *awscloudprovider.CloudProvider {
	return awscloudprovider.New(k.instanceTypes, nil, k.recorder, kube, k.amis, k.groups, k.reservations, k.placement,
		nodeoverlay.NewInstanceTypeStore(), aws.String(""))
}

// reconcileClass creates an EC2NodeClass and sets its status as the
// nodeclass controller's reconcilers would (AMIs, capacity reservations,
// placement group, subnets, security groups, instance profile, validation).
func (k *karpenter) reconcileClass(t *testing.T, kube client.Client, cp *awscloudprovider.CloudProvider, doc []byte) *awsv1.EC2NodeClass {
	t.Helper()
	ctx := k.ctx
	reconcilers := []reconcile.TypedReconciler[*awsv1.EC2NodeClass]{
		nodeclass.NewAMIReconciler(k.clk, k.amis),
		nodeclass.NewCapacityReservationReconciler(k.clk, k.reservations),
		nodeclass.NewPlacementGroupReconciler(k.clk, k.placement),
		nodeclass.NewSubnetReconciler(k.clk, k.subnets),
		nodeclass.NewSecurityGroupReconciler(k.clk, k.groups),
		nodeclass.NewInstanceProfileReconciler(k.clk, k.profiles, k.cfg.Region, cache.New(time.Minute, time.Minute)),
		nodeclass.NewValidationReconciler(k.clk, kube, cp, k.ec2, amifamily.NewDefaultResolver(k.cfg.Region), k.instanceTypes, k.launch,
			cache.New(time.Minute, time.Minute), true),
	}
	nc := &awsv1.EC2NodeClass{}
	mustDecode(t, doc, nc)
	nc.UID = types.UID("class-" + nc.Name)
	must(t, kube.Create(ctx, nc))
	for _, r := range reconcilers {
		// An error leaves its condition False or Unknown, as on a
		// cluster; the status is what the reconcilers set.
		_, _ = r.Reconcile(ctx, nc)
	}
	must(t, kube.Status().Update(ctx, nc))
	return nc
}

// refOutcome is what Karpenter decided.
type refOutcome struct {
	// workloads are where each workload's pods went.
	workloads map[string]workloadOutcome
	// claims are the NodeClaims in the comparison's form.
	claims []comparedClaim
}

// workloadOutcome counts a workload's pods per pool and per error message.
type workloadOutcome struct {
	Pools   map[string]int
	Reasons map[string]int
}

// comparedClaim is a NodeClaim as the comparison reads it: pods as
// workload keys (replicas of one workload are interchangeable), instance
// types as a set.
type comparedClaim struct {
	Pool                                string
	Pods                                []string
	InstanceTypes                       []string
	Zones, CapacityTypes, Architectures []string
}

func (c comparedClaim) String() string {
	return fmt.Sprintf("%s pods=%v zones=%v capacity=%v arch=%v types(%d)=%v", c.Pool, c.Pods, c.Zones, c.CapacityTypes, c.Architectures,
		len(c.InstanceTypes), c.InstanceTypes)
}

// refPod is one pod the reference creates, with its workload key.
type refPod struct {
	pod *corev1.Pod
	key string
}

// schedule decides the scenario with Karpenter's own provisioner.
func (k *karpenter) schedule(t *testing.T, pools, classes, workloads []string) refOutcome {
	t.Helper()
	return k.scheduleOn(t, pools, classes, workloads, "")
}

// scheduleOn decides it on a running cluster: the snapshot's objects in
// the API server and Karpenter's cluster state filled from them (see
// loadSnapshot); "" is an empty cluster.
func (k *karpenter) scheduleOn(t *testing.T, pools, classes, workloads []string, snap string) refOutcome {
	t.Helper()
	ctx := k.ctx
	kube := fakeKube()
	cp := k.cloudProvider(kube)
	for _, doc := range documents(t, classes) {
		k.reconcileClass(t, kube, cp, doc)
	}
	validation := nodepoolvalidation.NewController(k.clk, kube, cp)
	readiness := nodepoolreadiness.NewController(k.clk, kube, cp)
	for _, doc := range documents(t, pools) {
		np := &karpv1.NodePool{}
		mustDecode(t, doc, np)
		np.UID = types.UID("pool-" + np.Name)
		must(t, kube.Create(ctx, np))
		for _, reconcile := range []func(context.Context, *karpv1.NodePool) (reconcile.Result, error){validation.Reconcile, readiness.Reconcile} {
			latest := &karpv1.NodePool{}
			must(t, kube.Get(ctx, client.ObjectKeyFromObject(np), latest))
			if _, err := reconcile(ctx, latest); err != nil {
				t.Fatalf("NodePool %s: %v", np.Name, err)
			}
		}
	}
	pods := createWorkloads(t, ctx, kube, workloads)
	cluster := state.NewCluster(k.clk, kube, cp)
	if snap != "" {
		loadSnapshot(t, ctx, kube, cp, cluster, snap)
	}
	p := provisioning.NewProvisioner(kube, k.recorder, cp, cluster, k.clk, nil, nil)
	out := refOutcome{workloads: map[string]workloadOutcome{}}
	keyOf := map[types.UID]string{}
	fate := map[types.UID]string{} // "pool:<name>" or the error
	for _, rp := range pods {
		keyOf[rp.pod.UID] = rp.key
		out.workloads[rp.key] = workloadOutcome{Pools: map[string]int{}, Reasons: map[string]int{}}
		if err := p.Validate(ctx, rp.pod); err != nil {
			fate[rp.pod.UID] = "ignoring pod, " + err.Error()
		}
	}
	var noPools atomic.Bool
	logged := log.IntoContext(ctx, funcr.New(func(_, args string) {
		if strings.Contains(args, `"no dynamic nodepools found"`) {
			noPools.Store(true)
		}
	}, funcr.Options{}))
	results, err := p.Schedule(logged)
	if err != nil {
		t.Fatalf("Karpenter's Schedule: %v", err)
	}
	if noPools.Load() {
		// Schedule marks every pod's decision with this error in the
		// cluster state and returns no result; it is in the log.
		for _, rp := range pods {
			if _, ok := fate[rp.pod.UID]; !ok {
				fate[rp.pod.UID] = "no dynamic nodepools found"
			}
		}
	}
	for pod, err := range results.PodErrors {
		fate[pod.UID] = err.Error()
	}
	for _, n := range results.ExistingNodes {
		for _, pod := range n.Pods {
			fate[pod.UID] = "pool:node:" + n.Name()
		}
	}
	for _, nc := range results.NewNodeClaims {
		c := comparedClaim{Pool: nc.NodePoolName}
		zones, capacityTypes, arches := map[string]bool{}, map[string]bool{}, map[string]bool{}
		for _, it := range nc.InstanceTypeOptions {
			c.InstanceTypes = append(c.InstanceTypes, it.Name)
			for _, o := range it.Offerings {
				if !o.Available || !nc.Requirements.IsCompatible(o.Requirements, kscheduling.AllowUndefinedWellKnownLabels) {
					continue
				}
				zones[o.Zone()] = true
				capacityTypes[o.CapacityType()] = true
				for _, a := range it.Requirements.Get(corev1.LabelArchStable).Values() {
					if nc.Requirements.Get(corev1.LabelArchStable).Has(a) {
						arches[a] = true
					}
				}
			}
		}
		for _, pod := range nc.Pods {
			fate[pod.UID] = "pool:" + nc.NodePoolName
			c.Pods = append(c.Pods, keyOf[pod.UID])
		}
		c.Zones, c.CapacityTypes, c.Architectures = slices.Sorted(maps.Keys(zones)), slices.Sorted(maps.Keys(capacityTypes)), slices.Sorted(maps.Keys(arches))
		slices.Sort(c.Pods)
		slices.Sort(c.InstanceTypes)
		out.claims = append(out.claims, c)
	}
	for _, rp := range pods {
		w := out.workloads[rp.key]
		switch f, ok := fate[rp.pod.UID]; {
		case !ok:
			// Schedule leaves out, and only logs, a pod whose volumes
			// it cannot read.
			w.Reasons["(left out of scheduling)"]++
		case strings.HasPrefix(f, "pool:"):
			w.Pools[strings.TrimPrefix(f, "pool:")]++
		default:
			w.Reasons[f]++
		}
	}
	return out
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// fakeKube is controller-runtime's fake client with what Karpenter's
// provisioner needs of the API server: the spec.nodeName pod index, the
// status subresources, and a cluster-scoped object found whatever
// namespace it is asked with (Karpenter asks for a PersistentVolume with
// the pod's namespace; the fake client would otherwise miss it).
func fakeKube() client.Client {
	clusterScoped := func(obj client.Object) bool {
		switch obj.(type) {
		case *corev1.PersistentVolume, *storagev1.StorageClass, *corev1.Namespace, *corev1.Node:
			return true
		}
		return false
	}
	return fake.NewClientBuilder().WithScheme(scheme.Scheme).
		WithIndex(&corev1.Pod{}, "spec.nodeName", func(o client.Object) []string { return []string{o.(*corev1.Pod).Spec.NodeName} }).
		WithStatusSubresource(&karpv1.NodePool{}, &awsv1.EC2NodeClass{}, &v1alpha1.NodeOverlay{}).
		WithInterceptorFuncs(interceptor.Funcs{Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if clusterScoped(obj) {
				key.Namespace = ""
			}
			return c.Get(ctx, key, obj, opts...)
		}}).Build()
}

// documents splits the YAML streams of a list input into documents.
func documents(t *testing.T, inputs []string) [][]byte {
	t.Helper()
	var out [][]byte
	for _, in := range inputs {
		r := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(in)))
		for {
			doc, err := r.Read()
			if err != nil {
				break
			}
			if strings.TrimSpace(string(doc)) != "" {
				out = append(out, doc)
			}
		}
	}
	return out
}

func mustDecode(t *testing.T, doc []byte, into any) {
	t.Helper()
	j, err := sigsyaml.YAMLToJSON(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(j, into); err != nil {
		t.Fatal(err)
	}
}

// refCreated is the creation time of every reference object, as the
// engine's.
var refCreated = metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))

// createWorkloads creates what the controllers of the workloads would
// create on the cluster: pending pods that kube-scheduler marked
// unschedulable (UIDs numbered in input order, as the engine numbers
// them), the claims of StatefulSets, DaemonSets, and the volume objects.
// It is the reference's own reading of the workloads, independent of the
// engine's parser: Deployments, StatefulSets, Jobs, Pods, DaemonSets,
// claims, volumes, storage classes and namespaces only.
func createWorkloads(t *testing.T, ctx context.Context, kube client.Client, workloads []string) []refPod {
	t.Helper()
	var pods []refPod
	n := 0
	add := func(kind, ns, name string, count int, tmpl corev1.PodTemplateSpec, claims []corev1.PersistentVolumeClaim) {
		for i := 0; i < count; i++ {
			n++
			podName := fmt.Sprintf("%s-%d", name, i)
			spec := tmpl.Spec.DeepCopy()
			for _, c := range claims {
				claim := fmt.Sprintf("%s-%s-%d", c.Name, name, i)
				spec.Volumes = append(spec.Volumes, corev1.Volume{Name: c.Name, VolumeSource: corev1.VolumeSource{
					PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}})
				pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: claim, Namespace: ns}, Spec: c.Spec}
				if err := kube.Create(ctx, pvc); err != nil && !strings.Contains(err.Error(), "already exists") {
					t.Fatal(err)
				}
			}
			for i := range spec.Containers {
				requestsFromLimits(&spec.Containers[i].Resources)
			}
			pod := &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: podName, Namespace: ns, UID: types.UID(fmt.Sprintf("%08d", n)),
					Labels: tmpl.Labels, CreationTimestamp: refCreated},
				Spec: *spec,
				Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{
					Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable}}},
			}
			must(t, kube.Create(ctx, pod))
			// The fake client drops the creation time on Create.
			pod.CreationTimestamp = refCreated
			must(t, kube.Update(ctx, pod))
			pods = append(pods, refPod{pod: pod, key: fmt.Sprintf("%s/%s/%s", ns, kind, name)})
		}
	}
	for _, doc := range documents(t, workloads) {
		var meta metav1.TypeMeta
		mustDecode(t, doc, &meta)
		ns := func(o *metav1.ObjectMeta) string {
			if o.Namespace == "" {
				o.Namespace = "default"
			}
			return o.Namespace
		}
		switch meta.Kind {
		case "Deployment":
			var d appsv1.Deployment
			mustDecode(t, doc, &d)
			add("Deployment", ns(&d.ObjectMeta), d.Name, orOne(d.Spec.Replicas), d.Spec.Template, nil)
		case "StatefulSet":
			var s appsv1.StatefulSet
			mustDecode(t, doc, &s)
			add("StatefulSet", ns(&s.ObjectMeta), s.Name, orOne(s.Spec.Replicas), s.Spec.Template, s.Spec.VolumeClaimTemplates)
		case "Job":
			var j batchv1.Job
			mustDecode(t, doc, &j)
			add("Job", ns(&j.ObjectMeta), j.Name, min(orOne(j.Spec.Parallelism), orOne(j.Spec.Completions)), j.Spec.Template, nil)
		case "Pod":
			var p corev1.Pod
			mustDecode(t, doc, &p)
			add("Pod", ns(&p.ObjectMeta), p.Name, 1, corev1.PodTemplateSpec{ObjectMeta: p.ObjectMeta, Spec: p.Spec}, nil)
		case "DaemonSet":
			var d appsv1.DaemonSet
			mustDecode(t, doc, &d)
			ns(&d.ObjectMeta)
			must(t, kube.Create(ctx, &d))
		case "PersistentVolumeClaim":
			var c corev1.PersistentVolumeClaim
			mustDecode(t, doc, &c)
			ns(&c.ObjectMeta)
			must(t, kube.Create(ctx, &c))
		case "PersistentVolume":
			var v corev1.PersistentVolume
			mustDecode(t, doc, &v)
			must(t, kube.Create(ctx, &v))
		case "StorageClass":
			var c storagev1.StorageClass
			mustDecode(t, doc, &c)
			must(t, kube.Create(ctx, &c))
		case "Namespace":
			var v corev1.Namespace
			mustDecode(t, doc, &v)
			must(t, kube.Create(ctx, &v))
		default:
			t.Fatalf("the reference reads no %s", meta.Kind)
		}
	}
	return pods
}

// orOne is a replica count the API server defaults to 1.
func orOne(n *int32) int {
	if n == nil {
		return 1
	}
	return int(*n)
}

// requestsFromLimits is the API server's defaulting of a container's
// requests (SetDefaults_Pod).
func requestsFromLimits(r *corev1.ResourceRequirements) {
	for name, q := range r.Limits {
		if r.Requests == nil {
			r.Requests = corev1.ResourceList{}
		}
		if _, ok := r.Requests[name]; !ok {
			r.Requests[name] = q
		}
	}
}

var _ cloudprovider.CloudProvider = (*awscloudprovider.CloudProvider)(nil)
