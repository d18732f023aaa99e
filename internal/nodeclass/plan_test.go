package nodeclass

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/cluster"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules/rulestest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

var demoFacts = cluster.Facts{
	Name: "demo", KubernetesVersion: "1.32", Endpoint: "https://DEMO.gr7.us-east-1.eks.amazonaws.com",
	CertificateAuthority: "Q0E=", ServiceCIDR: "172.20.0.0/16", ClusterDNS: "172.20.0.10",
}

// plan resolves the class's terms against the emulator fixtures and plans it.
func plan(t *testing.T, c Class) Planned {
	t.Helper()
	url, _ := awsemutest.Start(t)
	awsemutest.Setenv(t, url)
	r := &ami.Resolver{Source: awsclient.NewCache(awsclient.NewClients(awsclient.Config{Region: "us-east-1", MaxRetries: 2})), Now: func() time.Time { return time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC) }}
	res, err := r.Resolve(context.Background(), ami.Request{Terms: c.Terms, Kubernetes: versions.Kubernetes{Minor: 32}, Karpenter: versions.DefaultKarpenter})
	if err != nil || res.Findings.HasErrors() {
		t.Fatalf("resolve: %v %v", err, res.Findings)
	}
	return Plan(PlanInput{Class: c, AMIs: res, Cluster: demoFacts, Karpenter: versions.DefaultKarpenter})
}

func TestPlanDefaultRootVolumeSmallerThanCustomImage(t *testing.T) {
	c := valid()
	c.Family = "AL2023"
	c.Terms = []ami.Term{{Name: "team-eks-node-al2023-x86_64-*"}}
	p := plan(t, c)
	f := p.Findings.ByRule(ruleSnapshot.ID)
	if len(f) == 0 || f[0].Path.String() != "block_device_mappings" || !strings.Contains(f[0].Detail, "AL2023 default of 20 GiB for /dev/xvda") || !rulestest.FixWrites(f[0], "block_device_mappings[0].ebs.volume_size", `"30Gi"`) {
		t.Fatalf("got %v", p.Findings)
	}
	c.Spec.BlockDeviceMappings = []manifest.BlockDeviceMapping{{DeviceName: "/dev/xvda", RootVolume: true, EBS: &manifest.BlockDevice{VolumeSize: "30Gi"}}}
	if p := plan(t, c); len(p.Findings.ByRule(ruleSnapshot.ID)) != 0 {
		t.Fatalf("30Gi fits: %v", p.Findings)
	}
}

func TestPlanBottlerocketNvidiaOSVolume(t *testing.T) {
	c := valid()
	c.Terms = []ami.Term{{Alias: "bottlerocket@latest"}}
	c.Spec.BlockDeviceMappings = []manifest.BlockDeviceMapping{
		{DeviceName: "/dev/xvda", EBS: &manifest.BlockDevice{VolumeSize: "2Gi"}},
		{DeviceName: "/dev/xvdb", EBS: &manifest.BlockDevice{VolumeSize: "20Gi"}},
	}
	p := plan(t, c)
	f := p.Findings.ByRule(ruleSnapshot.ID)
	// The two NVIDIA images (x86_64 and aarch64) have a 4 GiB OS snapshot;
	// the standard ones fit in 2 GiB.
	if len(f) != 2 || f[0].Path.String() != "block_device_mappings[0].ebs.volume_size" || !strings.Contains(f[0].Detail, "nvidia") || !strings.Contains(f[0].Detail, "smaller than snapshot") {
		t.Fatalf("got %v", p.Findings)
	}
}

func TestPlanImageFamilyMismatch(t *testing.T) {
	c := valid()
	c.Family = "AL2023"
	c.Terms = []ami.Term{{Name: "bottlerocket-aws-k8s-1.32-x86_64-*", Owner: "amazon"}}
	c.Spec.BlockDeviceMappings = []manifest.BlockDeviceMapping{{DeviceName: "/dev/xvda", EBS: &manifest.BlockDevice{VolumeSize: "20Gi"}}}
	p := plan(t, c)
	f := p.Findings.ByRule(ruleImageFamily.ID)
	if len(f) != 1 || f[0].Severity != rules.Error || !strings.Contains(f[0].Detail, "nodeadm NodeConfig (MIME) userData") || !rulestest.FixWrites(f[0], "ami_family", `"Bottlerocket"`) {
		t.Fatalf("got %v", p.Findings)
	}
}

func TestPlanCustomShellOnBottlerocketImage(t *testing.T) {
	c := valid()
	c.Family = "Custom"
	c.Terms = []ami.Term{{ID: awsemu.CustomBottlerocketNvidiaArm64ID}}
	c.Spec.UserData = ptr("#!/bin/bash\n/etc/eks/bootstrap.sh demo --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n")
	p := plan(t, c)
	f := p.Findings.ByRule(ruleImageFamily.ID)
	if len(f) != 1 || f[0].Path.String() != "user_data" || !strings.Contains(f[0].Detail, "Bottlerocket image") {
		t.Fatalf("got %v", p.Findings)
	}
}

func TestPlanCustomBootstrapSHOnAL2023Image(t *testing.T) {
	c := valid()
	c.Family = "Custom"
	c.Terms = []ami.Term{{Alias: "al2023@latest"}}
	c.Spec.UserData = ptr("#!/bin/bash\n/etc/eks/bootstrap.sh demo --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n")
	// Decided offline: the alias names the images' family.
	fs := Validate(c, versions.DefaultKarpenter)
	if f := fs.ByRule(ruleImageFamily.ID); len(f) != 1 || !strings.Contains(f[0].Detail, "exit") {
		t.Fatalf("bootstrap.sh exits 1 on AL2023 images: %v", fs)
	}
}

func TestPlanRendersBootstrapWithClusterDefaults(t *testing.T) {
	c := valid()
	c.Family = "Custom"
	c.Terms = []ami.Term{{Alias: "al2023@latest"}}
	c.Bootstrap = &userdata.Bootstrap{Format: userdata.FormatNodeadm}
	p := plan(t, c)
	if p.Findings.HasErrors() || p.UserData == nil || !strings.Contains(*p.UserData, "apiServerEndpoint: https://DEMO.gr7.us-east-1.eks.amazonaws.com") {
		t.Fatalf("got %v %v", p.Findings, p.UserData)
	}
	if len(p.RegisteredTaints) != 1 || p.RegisteredTaints[0].Key != "karpenter.sh/unregistered" {
		t.Fatalf("registered taints: %v", p.RegisteredTaints)
	}
	if p.Manifest.Spec.UserData == nil || *p.Manifest.Spec.UserData != *p.UserData {
		t.Fatal("the manifest carries the rendered userData")
	}
}

func TestPlanPinAMIsAndLatestDrift(t *testing.T) {
	c := valid()
	c.Terms = []ami.Term{{Alias: "al2023@latest"}}
	p := plan(t, c)
	if f := p.Findings.ByRule(ruleLatestDrift.ID); len(f) != 1 || !rulestest.FixWrites(f[0], "ami_selector_terms[0].alias", `"al2023@v20251209"`) || !rulestest.FixWrites(f[0], "pin_amis", "true") {
		t.Fatalf("latest drift warning: %v", p.Findings)
	}
	if p.Manifest.Spec.AMISelectorTerms[0].Alias != "al2023@latest" || p.Manifest.Spec.AMIFamily != "" {
		t.Fatalf("unpinned manifest keeps the alias: %+v", p.Manifest.Spec)
	}
	c.PinAMIs = true
	p = plan(t, c)
	if len(p.Findings.ByRule(ruleLatestDrift.ID)) != 0 {
		t.Fatal("pinned: no drift warning")
	}
	// An alias is pinned to its current release, which keeps the variants:
	// id terms would leave Karpenter one image per architecture.
	if terms := p.Manifest.Spec.AMISelectorTerms; len(terms) != 1 || terms[0].Alias != "al2023@v20251209" || p.Manifest.Spec.AMIFamily != "" {
		t.Fatalf("pinned manifest: %+v", p.Manifest.Spec)
	}
	c.Terms = []ami.Term{{Alias: "bottlerocket@latest"}}
	if terms := plan(t, c).Manifest.Spec.AMISelectorTerms; len(terms) != 1 || terms[0].Alias != "bottlerocket@1.51.0-47438798" {
		t.Fatalf("pinned bottlerocket: %+v", terms)
	}
	// Images chosen by tags carry only their architecture: id terms pin them.
	c.Family = "AL2023"
	c.Terms = []ami.Term{{Tags: map[string]string{"karpenter.sh/discovery": "demo"}}}
	c.Spec.BlockDeviceMappings = []manifest.BlockDeviceMapping{{DeviceName: "/dev/xvda", EBS: &manifest.BlockDevice{VolumeSize: "30Gi"}}}
	p = plan(t, c)
	if terms := p.Manifest.Spec.AMISelectorTerms; len(terms) != 2 || terms[0].ID == "" || p.Manifest.Spec.AMIFamily != "AL2023" {
		t.Fatalf("pinned ids: %+v", p.Manifest.Spec)
	}
}

func TestPlanFamilyRequiredSuggestsFromImages(t *testing.T) {
	c := valid()
	c.Terms = []ami.Term{{Tags: map[string]string{"karpenter.sh/discovery": "demo"}}}
	p := plan(t, c)
	if f := p.Findings.ByRule(ami.RuleFamilyRequired.ID); len(f) != 1 || !rulestest.FixWrites(f[0], "ami_family", `"AL2023"`) {
		t.Fatalf("got %v", p.Findings)
	}
}

// The drift warning's fix must be one the provider accepts: Windows aliases
// take only @latest (alias-windows-version), so it points at pin_amis.
func TestPlanLatestDriftAdviceIsAccepted(t *testing.T) {
	c := valid()
	c.Family = ""
	c.Terms = []ami.Term{{Alias: "windows2022@latest"}}
	p := plan(t, c)
	f := p.Findings.ByRule(ruleLatestDrift.ID)
	if len(f) != 1 || strings.Contains(f[0].Detail, "windows2022@<release>") || !rulestest.FixWrites(f[0], "pin_amis", "true") || f[0].Fix.Value != "true" {
		t.Fatalf("windows drift advice: %v", p.Findings)
	}
	// The advice, followed, is accepted and silences the warning.
	c.PinAMIs = true
	if p := plan(t, c); p.Findings.HasErrors() || len(p.Findings.ByRule(ruleLatestDrift.ID)) != 0 {
		t.Fatalf("pin_amis on windows: %v", p.Findings)
	}
	for _, alias := range []string{"al2023@latest", "bottlerocket@latest"} {
		c := valid()
		c.Terms = []ami.Term{{Alias: alias}}
		f := plan(t, c).Findings.ByRule(ruleLatestDrift.ID)
		if len(f) != 1 {
			t.Fatalf("%s: %v", alias, f)
		}
		pinned, err := strconv.Unquote(f[0].Fix.Value)
		if err != nil || f[0].FixField().String() != "ami_selector_terms[0].alias" {
			t.Fatalf("%s: no pinned release in the fix %+v", alias, f[0].Fix)
		}
		c.Terms = []ami.Term{{Alias: pinned}}
		if p := plan(t, c); p.Findings.HasErrors() || len(p.Findings.ByRule(ruleLatestDrift.ID)) != 0 {
			t.Fatalf("%s pinned as advised to %s: %v", alias, c.Terms[0].Alias, p.Findings)
		}
	}
}

// A Custom class's userData reaches the node untouched: the advice for a
// bootstrap.sh call on AL2023 images must not rely on Karpenter's NodeConfig.
func TestPlanCustomBootstrapSHOnAL2023ImageAdvice(t *testing.T) {
	c := valid()
	c.Family = "Custom"
	c.Terms = []ami.Term{{Alias: "al2023@latest"}}
	c.Spec.UserData = ptr("#!/bin/bash\n/etc/eks/bootstrap.sh demo --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n")
	f := Validate(c, versions.DefaultKarpenter).ByRule(ruleImageFamily.ID)
	if len(f) != 1 || strings.Contains(f[0].Detail, "Karpenter appends its own NodeConfig") || !strings.Contains(f[0].Detail, "passes Custom userData through untouched") {
		t.Fatalf("custom advice: %v", f)
	}
}

// Karpenter accepts a Custom class without userData (its own CEL tests do):
// a custom image may bootstrap itself. Only EKS-optimized images prove it
// broken.
func TestPlanCustomWithoutUserData(t *testing.T) {
	c := valid()
	c.Family = "Custom"
	c.Terms = []ami.Term{{Name: "team-eks-node-al2023-x86_64-*", Owner: "self"}}
	c.Spec.BlockDeviceMappings = []manifest.BlockDeviceMapping{{DeviceName: "/dev/xvda", EBS: &manifest.BlockDevice{VolumeSize: "30Gi"}}}
	if fs := Validate(c, versions.DefaultKarpenter).ByRule(ruleCustomNoUserData.ID); len(fs) != 0 {
		t.Fatalf("custom images at validate: %v", fs)
	}
	f := plan(t, c).Findings.ByRule(ruleCustomNoUserData.ID)
	if len(f) != 1 || f[0].Severity != rules.Warning || !strings.Contains(f[0].Detail, "bootstrap the node themselves") {
		t.Fatalf("custom images: %v", f)
	}
	c.Terms = []ami.Term{{Name: "amazon-eks-node-al2023-x86_64-standard-1.32-*", Owner: "amazon"}}
	f = plan(t, c).Findings.ByRule(ruleCustomNoUserData.ID)
	if len(f) != 1 || f[0].Severity != rules.Error || !strings.Contains(f[0].Detail, "EKS-optimized") {
		t.Fatalf("EKS-optimized images by name: %v", f)
	}
	c.Terms = []ami.Term{{Alias: "al2023@latest"}}
	if f := Validate(c, versions.DefaultKarpenter).ByRule(ruleCustomNoUserData.ID); len(f) != 1 || f[0].Severity != rules.Error {
		t.Fatalf("alias at validate: %v", f)
	}
	if f := plan(t, c).Findings.ByRule(ruleCustomNoUserData.ID); len(f) != 0 {
		t.Fatalf("alias is judged at validate only, not again at plan: %v", f)
	}
}

// An error stops only the plan-time checks that read its part of the class.
func TestPlanChecks(t *testing.T) {
	kv := versions.DefaultKarpenter
	for _, c := range []struct {
		name              string
		mutate            func(*Class)
		images, readiness bool
	}{
		{"kubelet", func(c *Class) { c.Spec.Kubelet = &manifest.Kubelet{MaxPods: ptr(int32(-5))} }, true, true},
		{"tags", func(c *Class) { c.Spec.Tags = map[string]string{"eks:eks-cluster-name": "x"} }, true, true},
		{"alias", func(c *Class) { c.Terms = []ami.Term{{Alias: "al2023@v1@v2"}} }, false, true},
		{"subnet id", func(c *Class) { c.Spec.SubnetSelectorTerms = []manifest.SubnetSelectorTerm{{ID: "subnet-"}} }, true, false},
		{"role and profile", func(c *Class) { c.Spec.InstanceProfile = "p" }, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl := valid()
			c.mutate(&cl)
			fs := Validate(cl, kv)
			if !fs.HasErrors() {
				t.Fatalf("no error: %v", fs)
			}
			if images, readiness := PlanChecks(fs); images != c.images || readiness != c.readiness {
				t.Errorf("images %v, readiness %v for %v", images, readiness, fs)
			}
		})
	}
	if images, readiness := PlanChecks(nil); !images || !readiness {
		t.Error("nothing stops them without errors")
	}
}
