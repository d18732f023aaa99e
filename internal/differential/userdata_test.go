package differential

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	"github.com/aws/karpenter-provider-aws/pkg/providers/amifamily"
	"github.com/aws/karpenter-provider-aws/pkg/providers/launchtemplate"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/cluster"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodepool"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// env is the in-process emulator with the project's fixtures plus
// c7g.16xlarge, and what the provider reads from it.
type env struct {
	url      string
	now      time.Time
	resolver *ami.Resolver
	live     *instancetype.Catalogue
	infos    map[string]ec2types.InstanceTypeInfo
}

func newEnv(t *testing.T) env {
	t.Helper()
	f := fixtures(t)
	url, _ := awsemutest.StartWith(t, f)
	awsemutest.Setenv(t, url)
	cache := awsclient.NewCache(awsclient.NewClients(awsclient.Config{Region: "us-east-1", MaxRetries: 5}))
	live, err := instancetype.Load(context.Background(), cache)
	if err != nil || live.Source != instancetype.SourceLive {
		t.Fatalf("live catalogue: %v", err)
	}
	infos := map[string]ec2types.InstanceTypeInfo{}
	for _, in := range f.InstanceTypes {
		infos[string(in.InstanceType)] = in
	}
	// After the fixtures' custom deprecation, before any EKS image's.
	now := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	return env{url: url, now: now, resolver: &ami.Resolver{Source: cache, Now: func() time.Time { return now }}, live: live, infos: infos}
}

var karpenter114 = func() versions.Karpenter {
	v, err := versions.ParseKarpenter("1.14")
	if err != nil {
		panic(err)
	}
	return v
}()

// A cluster as the provider's cluster block describes it.
var demo = cluster.Facts{
	Name: "demo", Endpoint: "https://ABCDEF.gr7.us-east-1.eks.amazonaws.com",
	CertificateAuthority: "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUM=", ServiceCIDR: "172.20.0.0/16", ClusterDNS: "172.20.0.10",
}

// An IPv6 cluster: kube-dns has an IPv6 address.
var demoIPv6 = cluster.Facts{
	Name: "demo6", Endpoint: demo.Endpoint, CertificateAuthority: demo.CertificateAuthority,
	ServiceCIDR: "fd30:1c53:5f8a::/108", ClusterDNS: "fd30:1c53:5f8a::a",
}

type userDataCase struct {
	name         string
	alias        string // the class's alias term
	family       string // amiFamily as written; "" follows the alias
	kubernetes   int    // minor; 32 when 0
	instanceType string
	capacityType string // the pool allows only this; "" is on-demand
	kubelet      manifest.Kubelet
	raid0        bool
	userData     string
	taints       []manifest.Taint
	startup      []manifest.Taint
	labels       map[string]string
	requirements []manifest.Requirement // besides instance type and capacity type
	facts        *cluster.Facts         // demo when nil
	// karpenterVersion is the Bottlerocket version Karpenter reads from the
	// selector terms; also given to the provider (ClassFacts.AMIVersion).
	karpenterVersion string
	// imageRelease, when set, renames the resolved images to that
	// Bottlerocket release, and Karpenter's class selects them by id.
	imageRelease string
	// want is what the preview must show (besides matching Karpenter).
	want []string
}

var releaseRE = regexp.MustCompile(`-v[0-9]+\.[0-9]+\.[0-9]+-`)

const mimeUserData = "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"BOUNDARY\"\n\n--BOUNDARY\nContent-Type: text/x-shellscript; charset=\"us-ascii\"\n\n#!/bin/bash\necho from mime\n\n--BOUNDARY--\n"

func i32(v int32) *int32 { return &v }

var gpuTaint = manifest.Taint{Key: "nvidia.com/gpu", Effect: "NoSchedule"}
var agentTaint = manifest.Taint{Key: "example.com/agent-not-ready", Value: "true", Effect: "NoExecute"}
var team = map[string]string{"example.com/team": "ml", "node-role.kubernetes.io/worker": "true"}
var zoneLabel = []manifest.Requirement{{Key: "example.com/zone", Operator: "In", Values: []string{"a"}}}

var reserved = manifest.Kubelet{
	SystemReserved:            map[string]string{"cpu": "100m", "memory": "100Mi", "ephemeral-storage": "1Gi"},
	KubeReserved:              map[string]string{"cpu": "200m", "memory": "200Mi"},
	EvictionHard:              map[string]string{"memory.available": "5%", "nodefs.available": "10%"},
	EvictionSoft:              map[string]string{"memory.available": "10%", "nodefs.available": "15%"},
	EvictionSoftGracePeriod:   map[string]string{"memory.available": "1m", "nodefs.available": "90s"},
	EvictionMaxPodGracePeriod: i32(60), ImageGCHighThresholdPercent: i32(85), ImageGCLowThresholdPercent: i32(80),
	CPUCFSQuota: new(bool),
}

func userDataCases() []userDataCase {
	return []userDataCase{
		// AL2: bootstrap.sh arguments.
		{name: "al2 m5.large", alias: "al2@latest", instanceType: "m5.large", want: []string{"--max-pods=29"}},
		{name: "al2 pods_per_core", alias: "al2@latest", instanceType: "m5.large", kubelet: manifest.Kubelet{PodsPerCore: i32(2)},
			want: []string{"--max-pods=4 --pods-per-core=2"}},
		{name: "al2 max_pods", alias: "al2@latest", instanceType: "m5.large", kubelet: manifest.Kubelet{MaxPods: i32(110), PodsPerCore: i32(1)},
			want: []string{"--max-pods=110 --pods-per-core=1"}},
		{name: "al2 raid0 taints labels maps", alias: "al2@latest", instanceType: "t3.micro", raid0: true, kubelet: reserved,
			taints: []manifest.Taint{gpuTaint}, startup: []manifest.Taint{agentTaint}, labels: team, requirements: zoneLabel, capacityType: "spot",
			userData: "#!/bin/bash\necho hello\n", want: []string{"--local-disks raid0", "--max-pods=4"}},
		{name: "al2 ipv6", alias: "al2@latest", instanceType: "p4d.24xlarge", facts: &demoIPv6, want: []string{"--ip-family ipv6", "--max-pods=737"}},
		// AL2023: NodeConfig.
		{name: "al2023 m6g.large", alias: "al2023@latest", instanceType: "m6g.large", want: []string{"maxPods: 29"}},
		{name: "al2023 c7g.16xlarge", alias: "al2023@latest", instanceType: "c7g.16xlarge", want: []string{"maxPods: 737"}},
		{name: "al2023 g5g.xlarge", alias: "al2023@latest", instanceType: "g5g.xlarge", taints: []manifest.Taint{gpuTaint}, want: []string{"maxPods: 58"}},
		{name: "al2023 pods_per_core", alias: "al2023@latest", instanceType: "m5.large", kubelet: manifest.Kubelet{PodsPerCore: i32(2)},
			want: []string{"maxPods: 4", "podsPerCore: 2"}},
		{name: "al2023 raid0 maps labels", alias: "al2023@latest", instanceType: "t3.micro", raid0: true, kubelet: reserved,
			taints: []manifest.Taint{gpuTaint}, startup: []manifest.Taint{agentTaint}, labels: team, requirements: zoneLabel, capacityType: "spot",
			want: []string{"strategy: RAID0", "maxPods: 4"}},
		{name: "al2023 nodeconfig userData", alias: "al2023@latest", instanceType: "m5.large", kubelet: manifest.Kubelet{MaxPods: i32(50)},
			userData: "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      shutdownGracePeriod: 30s\n",
			want:     []string{"maxPods: 50", "shutdownGracePeriod: 30s"}},
		{name: "al2023 ipv6", alias: "al2023@latest", instanceType: "m6g.large", facts: &demoIPv6, want: []string{"fd30:1c53:5f8a::a", "maxPods: 29"}},
		// Bottlerocket: settings TOML; pods_per_core does not apply.
		{name: "bottlerocket c7g.16xlarge", alias: "bottlerocket@latest", karpenterVersion: "latest", instanceType: "c7g.16xlarge",
			kubelet: manifest.Kubelet{PodsPerCore: i32(2)}, want: []string{"max-pods = 737"}},
		{name: "bottlerocket raid0", alias: "bottlerocket@latest", karpenterVersion: "latest", instanceType: "m5.large", raid0: true, kubelet: reserved,
			taints: []manifest.Taint{gpuTaint, agentTaint}, labels: team, userData: "[settings.host-containers.admin]\nenabled = true\n",
			want: []string{"max-pods = 29", "000-mount-instance-storage", "'ephemeral-storage', 'bind']"}},
		// Images before 1.46 (selected by id: the version comes from the
		// resolved image's name on both sides).
		{name: "bottlerocket raid0 before 1.46", alias: "bottlerocket@latest", imageRelease: "v1.40.0", instanceType: "m5.large", raid0: true,
			want: []string{"'--dirs', '/var/lib/containerd'"}},
		{name: "bottlerocket ipv6", alias: "bottlerocket@latest", karpenterVersion: "latest", instanceType: "g5g.xlarge", facts: &demoIPv6,
			want: []string{"cluster-dns-ip = 'fd30:1c53:5f8a::a'", "max-pods = 58"}},
		// Windows: 110 unless pods_per_core says less; RAID0 is not written.
		{name: "windows2019", alias: "windows2019@latest", instanceType: "m5.large", want: []string{"--max-pods=110"}},
		{name: "windows2022 pods_per_core", alias: "windows2022@latest", instanceType: "m5.large", kubelet: manifest.Kubelet{PodsPerCore: i32(2)},
			raid0: true, taints: []manifest.Taint{gpuTaint}, labels: team, want: []string{"--max-pods=4 --pods-per-core=2"}},
		{name: "windows2025", alias: "windows2025@latest", kubernetes: 35, instanceType: "m5.xlarge", kubelet: reserved,
			userData: "Write-Host hello", want: []string{"--max-pods=110"}},
		// The user's userData merged with Karpenter's part, per format.
		{name: "al2 mime userData", alias: "al2@latest", instanceType: "m5.xlarge", kubelet: manifest.Kubelet{ClusterDNS: []string{"10.100.0.10"}},
			userData: mimeUserData, want: []string{"--dns-cluster-ip '10.100.0.10'", "--max-pods=58", "echo from mime"}},
		{name: "al2023 mime userData", alias: "al2023@latest", instanceType: "m5.xlarge", userData: mimeUserData, want: []string{"echo from mime"}},
		{name: "al2023 shell userData", alias: "al2023@latest", instanceType: "inf2.xlarge", userData: "#!/bin/bash\necho hello\n",
			taints: []manifest.Taint{{Key: "aws.amazon.com/neuron", Effect: "NoSchedule"}}, want: []string{"echo hello", "maxPods: 58"}},
		{name: "bottlerocket user settings", alias: "bottlerocket@latest", karpenterVersion: "latest", instanceType: "g5.xlarge", raid0: true,
			kubelet: manifest.Kubelet{MaxPods: i32(40), ClusterDNS: []string{"10.100.0.10"}},
			taints:  []manifest.Taint{{Key: "dedicated", Value: "gpu", Effect: "NoSchedule"}, {Key: "dedicated", Value: "gpu", Effect: "NoExecute"}},
			labels:  map[string]string{"example.com/team": "ml"},
			userData: "[settings.kubernetes]\nmax-pods = 10\nallowed-unsafe-sysctls = ['net.core.somaxconn']\n[settings.kubernetes.node-labels]\n'example.com/team' = 'web'\n'example.com/extra' = 'x'\n" +
				"[settings.bootstrap-commands.010-mine]\ncommands = [['echo', 'hi']]\nmode = 'once'\nessential = false\n",
			want: []string{"max-pods = 40", "'example.com/extra' = 'x'", "010-mine"}},
		{name: "windows userData", alias: "windows2022@latest", instanceType: "c5.large", userData: "Write-Host hello\nWrite-Host again",
			kubelet: manifest.Kubelet{MaxPods: i32(20), ClusterDNS: []string{"10.100.0.10"}}, want: []string{"-DNSClusterIP '10.100.0.10'", "--max-pods=20"}},
		// Custom: the userData as written.
		{name: "custom", alias: "al2023@latest", family: "Custom", instanceType: "m5.large", raid0: true,
			userData: "#!/bin/bash\n/etc/eks/bootstrap.sh demo\n", want: []string{"/etc/eks/bootstrap.sh demo"}},
	}
}

// Karpenter's userData for a NodeClaim of the pool on the class, and what
// the provider renders for it (nodepool.PreviewFor, which a pool's plan
// checks), are the same bytes.
func TestUserDataMatchesKarpenter(t *testing.T) {
	e := newEnv(t)
	for _, c := range userDataCases() {
		t.Run(c.name, func(t *testing.T) {
			p, facts := providerPool(t, e, c)
			r := nodepool.Check(p, e.live, karpenter114)
			if r.Findings.HasErrors() {
				t.Fatalf("pool: %v", r.Findings)
			}
			got := nodepool.PreviewFor(p, r, facts, karpenter114)
			if got.UserData == "" || len(got.Findings) > 0 {
				t.Fatalf("no preview: %q %v", got.Unavailable, got.Findings)
			}
			want := karpenterUserData(t, karpenterSide(t, e, c, p, facts))
			if normalise(got.UserData) != normalise(want) {
				t.Errorf("the rendered userData differs from Karpenter's\n--- provider\n%s\n--- Karpenter\n%s", got.UserData, want)
			}
			for _, w := range c.want {
				if !strings.Contains(got.UserData, w) {
					t.Errorf("preview lacks %q:\n%s", w, got.UserData)
				}
			}
		})
	}
}

// providerPool is the pool and class of a case as the provider's domain
// packages see them.
func providerPool(t *testing.T, e env, c userDataCase) (nodepool.Pool, cluster.Facts) {
	t.Helper()
	minor := c.kubernetes
	if minor == 0 {
		minor = 32
	}
	terms := []ami.Term{{Alias: c.alias}}
	res, err := e.resolver.Resolve(context.Background(), ami.Request{Terms: terms, Kubernetes: versions.Kubernetes{Minor: minor}, Karpenter: karpenter114})
	if err != nil || res.Findings.HasErrors() {
		t.Fatalf("resolve %s: %v %v", c.alias, err, res.Findings)
	}
	family, ok := ami.ResolvedFamily(c.family, terms, karpenter114)
	if !ok {
		t.Fatalf("no family for %q", c.alias)
	}
	if c.imageRelease != "" {
		for i := range res.AMIs {
			res.AMIs[i].Name = releaseRE.ReplaceAllString(res.AMIs[i].Name, "-"+c.imageRelease+"-")
		}
	}
	class := nodepool.ClassFacts{Known: true, Family: family, AMIs: res.AMIs, Kubelet: c.kubelet, UserData: c.userData, AMIVersion: c.karpenterVersion}
	if c.raid0 {
		class.InstanceStorePolicy = "RAID0"
	}
	if !family.Model().KarpenterBootstraps() {
		class.RegisteredTaints = userdata.EffectiveTaints(nil, nil)
	}
	p := nodepool.Pool{Unknown: rules.Unknowns{}, Empty: nodepool.PathSet{}, Class: class}
	p.Manifest.Metadata.Name = "general"
	spec := &p.Manifest.Spec.Template.Spec
	spec.NodeClassRef = nodepool.NodeClassRef(nil, nil, "default")
	capacity := c.capacityType
	if capacity == "" {
		capacity = "on-demand"
	}
	spec.Requirements = append([]manifest.Requirement{
		{Key: "node.kubernetes.io/instance-type", Operator: "In", Values: []string{c.instanceType}},
		{Key: "karpenter.sh/capacity-type", Operator: "In", Values: []string{capacity}},
	}, c.requirements...)
	spec.Taints, spec.StartupTaints = c.taints, c.startup
	if c.labels != nil {
		p.Manifest.Spec.Template.Metadata = &manifest.TemplateMeta{Labels: c.labels}
	}
	facts := demo
	if c.facts != nil {
		facts = *c.facts
	}
	return p, facts
}

// karpenterSide builds Karpenter's objects for the same pool, class and
// cluster: the EC2NodeClass (status.amis from the provider's resolution),
// the NodeClaim the pool's template gives, the instance type from the same
// DescribeInstanceTypes record, and the launch-template options
// (CreateAMIOptions: NodeClaim labels plus capacity type, and
// karpenter.sh/do-not-sync-taints from InjectDoNotSyncTaintsLabel).
func karpenterSide(t *testing.T, e env, c userDataCase, p nodepool.Pool, facts cluster.Facts) karpenterInputs {
	t.Helper()
	info, ok := e.infos[c.instanceType]
	if !ok {
		t.Fatalf("%s not in the fixtures", c.instanceType)
	}
	family := string(p.Class.Family)
	nc := &awsv1.EC2NodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	nc.Spec.AMIFamily = &family
	nc.Spec.AMISelectorTerms = []awsv1.AMISelectorTerm{{Alias: c.alias}}
	if c.imageRelease != "" {
		nc.Spec.AMISelectorTerms = []awsv1.AMISelectorTerm{{ID: p.Class.AMIs[0].ID}}
	}
	nc.Spec.Kubelet = karpenterKubelet(p.Class.Kubelet)
	if c.userData != "" {
		nc.Spec.UserData = &c.userData
	}
	var isp *awsv1.InstanceStorePolicy
	if c.raid0 {
		isp = new(awsv1.InstanceStorePolicyRAID0)
		nc.Spec.InstanceStorePolicy = isp
	}
	nc.Status.AMIs = statusAMIs(p.Class)

	claim := &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Labels: nodeClaimLabels(p)}}
	claim.Spec.Taints = karpenterTaints(c.taints)
	claim.Spec.StartupTaints = karpenterTaints(c.startup)

	capacity := c.capacityType
	if capacity == "" {
		capacity = karpv1.CapacityTypeOnDemand
	}
	labels := map[string]string{}
	for k, v := range claim.Labels {
		labels[k] = v
	}
	labels[karpv1.CapacityTypeLabelKey] = capacity
	labels = launchtemplate.InjectDoNotSyncTaintsLabel(family, labels)
	cidr, ca := facts.ServiceCIDR, facts.CertificateAuthority
	opts := &amifamily.Options{
		ClusterName: facts.Name, ClusterEndpoint: facts.Endpoint, ClusterCIDR: &cidr, CABundle: &ca,
		InstanceStorePolicy: isp, AMISelectorTerms: nc.Spec.AMISelectorTerms, AMIs: nc.Status.AMIs,
		Labels: labels, KubeDNSIP: kubeDNS(facts.ClusterDNS), NodeClassName: nc.Name,
	}
	return karpenterInputs{nodeClass: nc, nodeClaim: claim, instanceType: karpenterInstanceType(info, family, nc.Spec.Kubelet, isp),
		capacityType: capacity, options: opts}
}
