package nodepool

import (
	"reflect"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/cluster"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata"
)

var demoFacts = cluster.Facts{
	Name: "demo", Endpoint: "https://ABCDEF.gr7.us-east-1.eks.amazonaws.com",
	CertificateAuthority: "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUM=", ServiceCIDR: "172.20.0.0/16",
}

func previewPool(t *testing.T, e env, class string) (Pool, Result) {
	t.Helper()
	c := e.namedClass(t, class, kv("1.14"))
	p := newPool("gpu", c, strings.ReplaceAll(class, "_", "-"),
		"karpenter.k8s.aws/instance-family In m6g,g5", "example.com/team In ml", "example.com/zone In a,b", "karpenter.sh/capacity-type In spot,on-demand")
	setLabels(&p, "example.com/tier", "batch", "node-role.kubernetes.io/gpu", "true")
	tmpl(&p).Taints = []manifest.Taint{{Key: "nvidia.com/gpu", Effect: "NoSchedule"}}
	tmpl(&p).StartupTaints = []manifest.Taint{{Key: "example.com/agent-not-ready", Effect: "NoExecute"}}
	p.Class.Kubelet.MaxPods = new(int32(58))
	return p, Check(p, e.live, kv("1.14"))
}

func TestPreviewAL2023(t *testing.T) {
	e := newEnv(t)
	p, r := previewPool(t, e, "al2023")
	ud, fs := previewText(p, r, demoFacts, kv("1.14"))
	if len(fs) != 0 || ud == "" {
		t.Fatalf("%v %q", fs, ud)
	}
	mustContain(t, ud,
		"apiVersion: node.eks.aws/v1alpha1", "name: demo", "cidr: 172.20.0.0/16",
		"clusterDNS:", "172.20.0.10", // the 10th address of the service CIDR
		"maxPods: 58",
		"key: nvidia.com/gpu", "key: example.com/agent-not-ready", "key: karpenter.sh/unregistered",
		"example.com/team=ml", "example.com/tier=batch", "karpenter.sh/nodepool=gpu", "karpenter.k8s.aws/ec2nodeclass=al2023",
		"karpenter.sh/capacity-type=spot", "karpenter.sh/do-not-sync-taints=true")
	for _, absent := range []string{"example.com/zone", "node-role.kubernetes.io"} {
		// several values: Karpenter picks one at random; kubernetes.io: synced, not passed to the kubelet
		if strings.Contains(ud, absent) {
			t.Errorf("%s in preview:\n%s", absent, ud)
		}
	}
	// The same as userdata.Render with the inputs spelled out.
	want, _ := userdata.Render(amifamily.AL2023, userdata.Options{
		ClusterName: demoFacts.Name, ClusterEndpoint: demoFacts.Endpoint, CABundle: demoFacts.CertificateAuthority,
		ClusterCIDR: demoFacts.ServiceCIDR, KubeDNSIP: "172.20.0.10",
		Taints: toTaints(tmpl(&p).Taints), StartupTaints: toTaints(tmpl(&p).StartupTaints),
		Labels:       map[string]string{"example.com/tier": "batch", "node-role.kubernetes.io/gpu": "true", "example.com/team": "ml"},
		NodePoolName: "gpu", NodeClassName: "al2023", CapacityType: "spot", Kubelet: p.Class.Kubelet, Karpenter: kv("1.14"),
	})
	if ud != want {
		t.Errorf("preview differs from userdata.Render:\n%s\nwant\n%s", ud, want)
	}
}

func TestPreviewOtherFamilies(t *testing.T) {
	e := newEnv(t)
	for class, want := range map[string]string{
		"al2":          "/etc/eks/bootstrap.sh 'demo'",
		"bottlerocket": "[settings.kubernetes]",
		"custom":       customUserData,
	} {
		p, r := previewPool(t, e, class)
		ud, fs := previewText(p, r, demoFacts, kv("1.14"))
		if len(fs) != 0 || !strings.Contains(ud, want) {
			t.Errorf("%s: %v\n%s", class, fs, ud)
		}
	}
	// Custom: unchanged, even without cluster facts.
	p, r := previewPool(t, e, "custom")
	if ud, _ := previewText(p, r, cluster.Facts{}, kv("1.14")); ud != customUserData {
		t.Errorf("custom: %q", ud)
	}
}

func TestPreviewNotAvailable(t *testing.T) {
	e := newEnv(t)
	p, r := previewPool(t, e, "al2023")
	noCIDR := demoFacts
	noCIDR.ServiceCIDR = ""
	for name, c := range map[string]struct {
		p     Pool
		r     Result
		facts cluster.Facts
	}{
		"no cluster facts":    {p, r, cluster.Facts{}},
		"al2023 without cidr": {p, r, noCIDR},
		"class elsewhere":     {func() Pool { q := p; q.Class = ClassFacts{}; return q }(), r, demoFacts},
		"class pending":       {func() Pool { q := p; q.Unknown = map[string]bool{"node_class.user_data": true}; return q }(), r, demoFacts},
		"families unknown":    {p, Result{InstanceFamilies: r.InstanceFamilies}, demoFacts},
		"invalid taint": {func() Pool {
			q := p
			q.Manifest.Spec.Template.Spec.Taints = []manifest.Taint{{Key: "a", Value: "b/c", Effect: "NoSchedule"}}
			return q
		}(), r, demoFacts},
	} {
		if ud, fs := previewText(c.p, c.r, c.facts, kv("1.14")); ud != "" || len(fs) != 0 {
			t.Errorf("%s: %q %v", name, ud, fs)
		}
	}
	// A class problem (a CA that is not base64) is a warning: the pool only
	// loses its preview.
	bad := demoFacts
	bad.CertificateAuthority = "not base64!"
	ud, fs := previewText(p, r, bad, kv("1.14"))
	if ud != "" || len(fs) == 0 || fs.HasErrors() {
		t.Errorf("%q %v", ud, fs)
	}
}

func TestPreviewNeeds(t *testing.T) {
	if got := PreviewNeeds(amifamily.AL2023); !reflect.DeepEqual(got, []string{"name", "endpoint", "certificate_authority", "service_cidr", "cluster_dns"}) {
		t.Error(got)
	}
	if PreviewNeeds(amifamily.Custom) != nil || len(PreviewNeeds(amifamily.Bottlerocket)) != 4 {
		t.Error("custom needs nothing; others no CIDR")
	}
}

func TestCapacityTypeAndLabels(t *testing.T) {
	for reqs, want := range map[string]string{
		"": "spot",
		"karpenter.sh/capacity-type In on-demand":     "on-demand",
		"karpenter.sh/capacity-type In reserved":      "reserved",
		"karpenter.sh/capacity-type NotIn spot":       "on-demand",
		"karpenter.sh/capacity-type In spot,reserved": "spot",
	} {
		var rs []string
		if reqs != "" {
			rs = append(rs, reqs)
		}
		if got := capacityType(newPool("p", ClassFacts{}, "c", rs...)); got != want {
			t.Errorf("%q: %s, want %s", reqs, got, want)
		}
	}
	p := newPool("p", ClassFacts{}, "c", "example.com/a In x", "example.com/b Exists", "example.com/c In y,z", "kubernetes.io/arch In arm64")
	setLabels(&p, "example.com/d", "w")
	if got := nodeClaimLabels(p); !reflect.DeepEqual(got, map[string]string{"example.com/a": "x", "example.com/d": "w"}) {
		t.Error(got)
	}
}

func TestRenderHasNoNullRequirements(t *testing.T) {
	p := newPool("default", ClassFacts{}, "default")
	y, err := renderYAML(p)
	if err != nil || strings.Contains(y, "null") || !strings.Contains(y, "requirements: []") || !strings.Contains(y, "apiVersion: karpenter.sh/v1") {
		t.Errorf("%v\n%s", err, y)
	}
	// The manifest model alone renders a nil list as null (see the report).
	y, _ = manifest.YAML(p.Manifest)
	if !strings.Contains(y, "requirements: null") {
		t.Log("manifest renders nil requirements without null now; Object's workaround can go")
	}
}

// Without max_pods, maxPods is the pod capacity of the first admitted type
// of the first family: g5 (g5.xlarge: 4 ENIs of 15 addresses) before m6g.
func TestPreviewMaxPodsFromInstanceType(t *testing.T) {
	e := newEnv(t)
	for class, want := range map[string]string{
		"al2023":       "maxPods: 58",
		"al2":          "--max-pods=58",
		"bottlerocket": "max-pods = 58",
	} {
		p, _ := previewPool(t, e, class)
		p.Class.Kubelet.MaxPods = nil
		o := PreviewFor(p, Check(p, e.live, kv("1.14")), demoFacts, kv("1.14"))
		if o.InstanceType != "g5.xlarge" || !strings.Contains(o.UserData, want) {
			t.Errorf("%s: %q %q\n%s", class, o.InstanceType, o.Unavailable, o.UserData)
		}
	}
	// pods_per_core × vCPUs caps it where the family honours it.
	p, _ := previewPool(t, e, "al2")
	p.Class.Kubelet.MaxPods, p.Class.Kubelet.PodsPerCore = nil, new(int32(3))
	if o := PreviewFor(p, Check(p, e.live, kv("1.14")), demoFacts, kv("1.14")); !strings.Contains(o.UserData, "--max-pods=12 --pods-per-core=3") {
		t.Errorf("pods_per_core: %s", o.UserData)
	}
}

// Offline the pod capacity is unknown: no preview, and a reason naming the
// two ways to get one, unless max_pods (or Windows's fixed 110) decides it.
func TestPreviewOfflineMaxPods(t *testing.T) {
	e := newEnv(t)
	p, _ := previewPool(t, e, "al2023")
	p.Class.Kubelet.MaxPods = nil
	o := PreviewFor(p, Check(p, instancetype.Embedded(), kv("1.14")), demoFacts, kv("1.14"))
	if o.UserData != "" || len(o.Findings) != 0 || !strings.Contains(o.Unavailable, "kubelet.maxPods") || !strings.Contains(o.Unavailable, "Configure AWS") {
		t.Errorf("%+v", o)
	}
	p.Class.Kubelet.MaxPods = new(int32(40))
	if o := PreviewFor(p, Check(p, instancetype.Embedded(), kv("1.14")), demoFacts, kv("1.14")); !strings.Contains(o.UserData, "maxPods: 40") || o.InstanceType != "" {
		t.Errorf("max_pods offline: %+v", o)
	}
	w := newPool("win", e.namedClass(t, "windows", kv("1.14")), "windows", "karpenter.k8s.aws/instance-family In m5")
	if o := PreviewFor(w, Check(w, instancetype.Embedded(), kv("1.14")), demoFacts, kv("1.14")); !strings.Contains(o.UserData, "--max-pods=110") {
		t.Errorf("windows offline: %+v", o)
	}
	w.Class.Kubelet.PodsPerCore = new(int32(2))
	if o := PreviewFor(w, Check(w, instancetype.Embedded(), kv("1.14")), demoFacts, kv("1.14")); o.UserData != "" || !strings.Contains(o.Unavailable, "vCPUs") {
		t.Errorf("windows pods_per_core offline: %+v", o)
	}
}

// instance_store_policy RAID0 reaches the renderers; Bottlerocket's bind
// command follows the image release.
func TestPreviewRAID0(t *testing.T) {
	e := newEnv(t)
	for class, want := range map[string]string{
		"al2":          "\\\n--local-disks raid0",
		"al2023":       "localStorage:\n      strategy: RAID0",
		"bottlerocket": "['apiclient', 'ephemeral-storage', 'bind']]",
	} {
		p, r := previewPool(t, e, class)
		p.Class.InstanceStorePolicy = "RAID0"
		if ud, _ := previewText(p, r, demoFacts, kv("1.14")); !strings.Contains(ud, want) {
			t.Errorf("%s:\n%s", class, ud)
		}
	}
	p, r := previewPool(t, e, "bottlerocket")
	p.Class.InstanceStorePolicy, p.Class.AMIVersion = "RAID0", "v1.45.2"
	if ud, _ := previewText(p, r, demoFacts, kv("1.14")); !strings.Contains(ud, "'--dirs', '/var/lib/containerd'") {
		t.Errorf("before 1.46:\n%s", ud)
	}
	// A policy not known yet (a class created in the same run) waits.
	p.Unknown = map[string]bool{"node_class.instance_store_policy": true}
	if ud, _ := previewText(p, r, demoFacts, kv("1.14")); ud != "" {
		t.Errorf("pending policy:\n%s", ud)
	}
}

func TestBottlerocketVersion(t *testing.T) {
	c := ClassFacts{AMIs: []ami.AMI{{Name: "amazon-eks-node-al2023-x86_64-standard-1.32-v20251209"}, {Name: "bottlerocket-aws-k8s-1.32-x86_64-v1.45.0-abc"}}}
	if v := bottlerocketVersion(c); v != "v1.45.0" {
		t.Error(v)
	}
	c.AMIVersion = "latest"
	if v := bottlerocketVersion(c); v != "latest" {
		t.Error(v)
	}
}

func TestAMIVersion(t *testing.T) {
	br := func(id, v string) ami.AMI {
		return ami.AMI{ID: id, Name: "bottlerocket-aws-k8s-1.32-x86_64-" + v + "-abc"}
	}
	amis := []ami.AMI{{ID: "ami-c", Name: "team-v9.9.9"}, br("ami-a", "v1.40.0"), br("ami-b", "v1.51.0")}
	for want, terms := range map[string][]ami.Term{
		"latest":  {{Name: "x-v1.2.3"}, {Alias: "bottlerocket@latest"}},
		"v1.2.3":  {{Name: "x-v1.2.3"}, {ID: "ami-b"}},
		"v1.51.0": {{ID: "ami-c"}, {ID: "ami-b"}},
		"v1.40.0": {{Tags: map[string]string{"a": "b"}}},
		"":        {{Alias: "bottlerocket"}, {Name: "no-version"}},
	} {
		a := amis
		if want == "" {
			a = amis[:1]
		}
		if got := AMIVersion(terms, a); got != want {
			t.Errorf("%+v: %q, want %q", terms, got, want)
		}
	}
}
