package node

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/capacity"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/cluster"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifestcheck"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodeclass"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// env is the emulator's region: its live catalogue, subnets, offerings and
// a resolver for the class's images.
type env struct {
	cat       *instancetype.Catalogue
	cache     *awsclient.Cache
	offerings map[string][]string
}

func newEnv(t testing.TB) env {
	t.Helper()
	f, err := awsemu.DefaultFixtures()
	if err != nil {
		t.Fatal(err)
	}
	url, _ := awsemutest.StartWith(t, f)
	cache := awsclient.NewCache(awsclient.NewClients(awsclient.Config{Region: "us-east-1", MaxRetries: 2,
		Endpoints: awsclient.Endpoints{EC2: url, SSM: url, EKS: url, STS: url, IAM: url}}))
	t.Setenv("AWS_ACCESS_KEY_ID", "x")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "x")
	offerings, err := cache.OfferingsByZone(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return env{cat: instancetype.NewLive(f.InstanceTypes), cache: cache, offerings: offerings}
}

var demo = cluster.Facts{Name: "demo", Endpoint: "https://ABCDEF.gr7.us-east-1.eks.amazonaws.com",
	CertificateAuthority: "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUM=", ServiceCIDR: "172.20.0.0/16"}

// ask computes the node for manifests and a type, with the facts the data
// source gathers.
func (e env) ask(t *testing.T, poolYAML, classYAML, typ string, tweak func(*Request, *Facts)) (Node, rules.Findings) {
	t.Helper()
	p, fs, err := manifestcheck.DecodeNodePool(poolYAML)
	if err != nil || len(fs) > 0 {
		t.Fatalf("pool: %v %v", fs, err)
	}
	c, fs, err := manifestcheck.DecodeEC2NodeClass(classYAML)
	if err != nil || len(fs) > 0 {
		t.Fatalf("class: %v %v", fs, err)
	}
	it, ok := e.cat.Type(typ)
	if !ok {
		t.Fatalf("no type %s", typ)
	}
	kv := versions.DefaultKarpenter
	k8s := versions.Kubernetes{Minor: 32}
	res, err := (&ami.Resolver{Source: e.cache}).Resolve(context.Background(), ami.Request{Terms: nodeclass.Terms(c), Kubernetes: k8s, Karpenter: kv})
	if err != nil {
		t.Fatal(err)
	}
	r := Request{Pool: p, Class: c, Type: it}
	f := Facts{Region: "us-east-1", Images: res, Kubernetes: k8s, Cluster: demo, Settings: capacity.DefaultSettings(), Karpenter: kv,
		Zones:     []instancetype.Zone{{Name: "us-east-1a", ID: "use1-az1"}, {Name: "us-east-1b", ID: "use1-az2"}, {Name: "us-east-1c", ID: "use1-az4"}},
		Offerings: e.offerings}
	if tweak != nil {
		tweak(&r, &f)
	}
	return Compute(r, f)
}

func bottlerocketClass(spec string) string {
	return strings.Replace(classYAML("default", spec), "al2023@latest", "bottlerocket@latest", 1)
}

func windowsClass() string {
	return strings.Replace(classYAML("default", ""), "al2023@latest", "windows2022@latest", 1)
}

func errorsOf(fs rules.Findings) string {
	var out []string
	for _, f := range fs {
		out = append(out, f.String())
	}
	return strings.Join(out, "\n")
}

func TestAL2023Node(t *testing.T) {
	e := newEnv(t)
	taints := "      taints:\n        - key: team\n          value: ml\n          effect: NoSchedule\n      startupTaints:\n        - key: node.cilium.io/agent-not-ready\n          effect: NoExecute\n"
	pool := "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: general\nspec:\n  template:\n    metadata:\n      labels:\n        team: ml\n    spec:\n" +
		"      nodeClassRef:\n        group: karpenter.k8s.aws\n        kind: EC2NodeClass\n        name: default\n" + taints
	n, fs := e.ask(t, pool, classYAML("default", ""), "m5.large", func(r *Request, _ *Facts) { r.Zone = "us-east-1b" })
	if fs.HasErrors() || len(fs) > 0 {
		t.Fatalf("findings: %s", errorsOf(fs))
	}
	for k, want := range map[string]string{
		"node.kubernetes.io/instance-type": "m5.large", "karpenter.sh/nodepool": "general", "karpenter.k8s.aws/ec2nodeclass": "default",
		"karpenter.sh/capacity-type": "spot", "topology.kubernetes.io/zone": "us-east-1b", "topology.k8s.aws/zone-id": "use1-az2",
		"topology.kubernetes.io/region": "us-east-1", "kubernetes.io/os": "linux", "team": "ml", "karpenter.sh/registered": "true",
		"karpenter.sh/initialized": "true", "karpenter.k8s.aws/instance-family": "m5", "karpenter.sh/do-not-sync-taints": "true",
	} {
		if n.Labels[k] != want {
			t.Errorf("label %s = %q, want %q", k, n.Labels[k], want)
		}
	}
	if len(n.Taints) != 1 || n.Taints[0].Key != "team" || len(n.StartupTaints) != 1 {
		t.Errorf("taints %v %v", n.Taints, n.StartupTaints)
	}
	if q := n.Resources.Allocatable[corev1.ResourceMemory]; q.String() != "6903Mi" || n.Resources.MaxPods != 29 {
		t.Errorf("allocatable memory %s, max pods %d", q.String(), n.Resources.MaxPods)
	}
	if !strings.Contains(n.AMI.Name, "al2023-x86_64-standard-1.32") {
		t.Errorf("image %s", n.AMI.Name)
	}
	for _, want := range []string{"maxPods: 29", "karpenter.sh/capacity-type=spot", "key: team", "apiServerEndpoint: " + demo.Endpoint} {
		if !strings.Contains(n.UserData, want) {
			t.Errorf("userData lacks %q:\n%s", want, n.UserData)
		}
	}
	// The controller's reserved ENIs reach capacity and the userData.
	n, _ = e.ask(t, pool, classYAML("default", ""), "m5.large", func(_ *Request, f *Facts) { f.Settings.ReservedENIs = 1 })
	if n.Resources.MaxPods != 20 || !strings.Contains(n.UserData, "maxPods: 20") {
		t.Errorf("reserved ENIs: max pods %d", n.Resources.MaxPods)
	}
}

func TestBottlerocketAndRAID0(t *testing.T) {
	e := newEnv(t)
	n, fs := e.ask(t, poolYAML("general", ""), bottlerocketClass("  instanceStorePolicy: RAID0\n"), "g5.xlarge", nil)
	if fs.HasErrors() {
		t.Fatalf("findings: %s", errorsOf(fs))
	}
	if q := n.Resources.Capacity[corev1.ResourceEphemeralStorage]; q.String() != "250G" {
		t.Errorf("RAID0 storage %s", q.String())
	}
	if q := n.Resources.Capacity[capacity.ResourceNVIDIAGPU]; q.String() != "1" {
		t.Errorf("gpus %s", q.String())
	}
	if !strings.Contains(n.AMI.Name, "nvidia") {
		t.Errorf("a GPU type gets the NVIDIA image, not %s", n.AMI.Name)
	}
	for _, want := range []string{"max-pods = 58", "[settings.bootstrap-commands", "ephemeral-storage"} {
		if !strings.Contains(n.UserData, want) {
			t.Errorf("userData lacks %q:\n%s", want, n.UserData)
		}
	}
}

func TestWindowsNode(t *testing.T) {
	e := newEnv(t)
	n, fs := e.ask(t, poolYAML("general", ""), windowsClass(), "m5.large", nil)
	if fs.HasErrors() {
		t.Fatalf("findings: %s", errorsOf(fs))
	}
	if n.Labels["kubernetes.io/os"] != "windows" || n.Labels["node.kubernetes.io/windows-build"] != "10.0.20348" {
		t.Errorf("labels %v", n.Labels)
	}
	if q := n.Resources.Capacity[capacity.ResourcePrivateIPv4Address]; q.String() != "9" || n.Resources.MaxPods != 110 {
		t.Errorf("private IPv4 %s, pods %d", q.String(), n.Resources.MaxPods)
	}
	if !strings.Contains(n.UserData, "<powershell>") || !strings.Contains(n.UserData, "--max-pods=110") {
		t.Errorf("userData:\n%s", n.UserData)
	}
}

func TestCustomPassesUserDataThrough(t *testing.T) {
	e := newEnv(t)
	class := strings.Replace(classYAML("default", "  userData: |\n    #!/bin/bash\n    /etc/eks/bootstrap.sh demo\n"), "    - alias: al2023@latest", "    - id: ami-0aaf333b614a08570", 1)
	class = strings.Replace(class, "spec:\n", "spec:\n  amiFamily: Custom\n", 1)
	n, fs := e.ask(t, poolYAML("general", ""), class, "m5.large", func(_ *Request, f *Facts) { f.ClusterMissing = "no cluster" })
	if fs.HasErrors() || n.UserData != "#!/bin/bash\n/etc/eks/bootstrap.sh demo\n" || n.AMI.ID != "ami-0aaf333b614a08570" {
		t.Errorf("custom: %q %s %s", n.UserData, n.AMI.ID, errorsOf(fs))
	}
}

func TestWhyNot(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		name, pool, class, typ string
		tweak                  func(*Request, *Facts)
		rule                   string
		detail                 []string
	}{
		{"requirement", poolYAML("graviton", arm64Only), classYAML("default", ""), "m5.large", nil,
			"node-instance-type-excluded", []string{"requirements[0] (kubernetes.io/arch In", "kubernetes.io/arch In [amd64]"}},
		{"template label", strings.Replace(poolYAML("gpu", ""), "    spec:\n", "    metadata:\n      labels:\n        karpenter.k8s.aws/instance-family: g5\n    spec:\n", 1), classYAML("default", ""), "m5.large", nil,
			"node-instance-type-excluded", []string{`template label karpenter.k8s.aws/instance-family="g5"`}},
		{"a1 on AL2023", poolYAML("general", ""), classYAML("default", ""), "a1.large", nil, "node-instance-type-excluded", []string{"a1"}},
		{"arm64 on Windows", poolYAML("general", ""), windowsClass(), "m6g.large", nil, "node-instance-type-excluded", []string{"amd64 only"}},
		{"capacity type of the pool", poolYAML("steady", onDemandReq), classYAML("default", ""), "m5.large",
			func(r *Request, _ *Facts) { r.CapacityType = "spot" }, "node-capacity-type-excluded", []string{`"spot"`, "In [on-demand]"}},
		{"capacity type spelling", poolYAML("general", ""), classYAML("default", ""), "m5.large",
			func(r *Request, _ *Facts) { r.CapacityType = "ondemand" }, "node-capacity-type-excluded", []string{`"ondemand"`}},
		{"reserved without reservations", poolYAML("general", ""), classYAML("default", ""), "m5.large",
			func(r *Request, _ *Facts) { r.CapacityType = "reserved" }, "node-capacity-type-excluded", []string{"capacityReservationSelectorTerms"}},
		{"spot not sold", poolYAML("general", ""), classYAML("default", ""), "mac1.metal", nil, "", nil},
		{"zone of the pool", poolYAML("zonal", zoneReq), classYAML("default", ""), "m5.large",
			func(r *Request, _ *Facts) { r.Zone = "us-east-1c" }, "node-zone-excluded", []string{`"us-east-1c"`, "us-east-1a"}},
		{"zone without subnet", poolYAML("general", ""), classYAML("default", ""), "m5.large",
			func(r *Request, _ *Facts) { r.Zone = "us-east-1d" }, "node-zone-excluded", []string{"no subnet", "us-east-1a"}},
		{"zone without offering", poolYAML("general", ""), classYAML("default", ""), "p4d.24xlarge",
			func(r *Request, _ *Facts) { r.Zone = "us-east-1a" }, "node-zone-excluded", []string{"does not offer p4d.24xlarge", `"us-east-1d"`}},
		{"other class", poolYAML("general", ""), classYAML("gpu", ""), "m5.large", nil, "node-class-mismatch", []string{`"gpu"`, "nodeClassRef"}},
		{"no image", poolYAML("general", ""), strings.Replace(classYAML("default", ""), "al2023@latest", "al2@latest", 1), "g5g.xlarge", nil,
			"", []string{"g5g.xlarge"}},
		{"offline type", poolYAML("general", ""), classYAML("default", ""), "m5.large",
			func(r *Request, _ *Facts) { r.Type, _ = instancetype.Embedded().Type("m5.large") }, "node-capacity-unavailable", []string{"Configure AWS"}},
		{"bad kubelet value", poolYAML("general", ""), classYAML("default", "  kubelet:\n    kubeReserved:\n      cpu: lots\n"), "m5.large", nil,
			"node-capacity-unavailable", []string{`kube_reserved["cpu"] = "lots"`, "Write a Kubernetes quantity"}},
	}
	for _, c := range cases {
		if c.name == "spot not sold" {
			continue // mac1.metal is not offered by Karpenter at all (no x86_64/arm64)
		}
		_, fs := e.ask(t, c.pool, c.class, c.typ, c.tweak)
		if !fs.HasErrors() {
			t.Errorf("%s: no error", c.name)
			continue
		}
		got := errorsOf(fs)
		if c.rule != "" && !strings.Contains(got, c.rule+":") {
			t.Errorf("%s: want rule %s, got\n%s", c.name, c.rule, got)
		}
		for _, d := range c.detail {
			if !strings.Contains(got, d) {
				t.Errorf("%s: detail lacks %q:\n%s", c.name, d, got)
			}
		}
	}
}

func TestDefaultCapacityType(t *testing.T) {
	e := newEnv(t)
	n, _ := e.ask(t, poolYAML("steady", onDemandReq), classYAML("default", ""), "m5.large", nil)
	if n.CapacityType != "on-demand" || n.Labels["karpenter.sh/capacity-type"] != "on-demand" {
		t.Errorf("on-demand pool: %q", n.CapacityType)
	}
}

func TestUserDataNeedsTheCluster(t *testing.T) {
	e := newEnv(t)
	n, fs := e.ask(t, poolYAML("general", ""), classYAML("default", ""), "m5.large", func(_ *Request, f *Facts) {
		f.ClusterMissing = "the cluster's endpoint is not configured"
	})
	if n.UserData != "" || fs.HasErrors() || !strings.Contains(errorsOf(fs), "node-user-data-unavailable") || n.Resources.MaxPods != 29 {
		t.Errorf("%q %s", n.UserData, errorsOf(fs))
	}
}
