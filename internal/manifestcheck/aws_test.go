package manifestcheck

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// The classes and pool of the --region acceptance: AL2 on @latest with a
// g5g pool, a name selector whose only image is pending, a subnet selector
// that matches nothing.
const awsManifests = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: al2
spec:
  role: KarpenterNodeRole-demo
  amiSelectorTerms:
    - alias: al2@latest
  subnetSelectorTerms:
    - tags:
        karpenter.sh/discovery: demo
  securityGroupSelectorTerms:
    - tags:
        karpenter.sh/discovery: demo
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: gpu
spec:
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: al2
      requirements:
        - key: karpenter.k8s.aws/instance-family
          operator: In
          values: ["g5g"]
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: gpu-images
spec:
  role: KarpenterNodeRole-demo
  amiFamily: AL2023
  amiSelectorTerms:
    - name: team-gpu-node-*
  subnetSelectorTerms:
    - tags:
        karpenter.sh/discovery: prod
  securityGroupSelectorTerms:
    - tags:
        karpenter.sh/discovery: demo
`

func TestRunWithAWS(t *testing.T) {
	url, emu := awsemutest.Start(t)
	awsemutest.Setenv(t, url)
	cache := awsclient.NewCache(awsclient.NewClients(awsclient.Config{Region: "us-east-1", MaxRetries: -1}))
	summary := func(res Result) string {
		var out []string
		for _, f := range res.Findings {
			out = append(out, fmt.Sprintf("%d:%d %s %s", f.Line, f.Column, f.Object, f.Rule.ID))
		}
		return strings.Join(out, "\n")
	}
	// Twice the same classes: the second run asks AWS nothing new.
	inputs := []Input{{Name: "a.yaml", Text: awsManifests}, {Name: "b/a.yaml", Text: awsManifests}}
	res := Run(context.Background(), inputs, Options{Karpenter: versions.DefaultKarpenter, AWS: cache, Kubernetes: "1.32"})
	want := strings.Repeat(`30:11 NodePool/gpu arm64-gpu-no-image
39:3 EC2NodeClass/gpu-images ami-not-available
41:3 EC2NodeClass/gpu-images subnet-selector-matches-nothing
`, 2)
	if got := summary(res); got != strings.TrimSpace(want) || len(res.Failures) > 0 || len(res.Skipped) > 0 {
		t.Fatalf("got\n%s\nfailures %v, skipped %q", got, res.Failures, res.Skipped)
	}
	// With AWS the message names the class's images.
	if m := res.Findings[0].Message; !strings.Contains(m, "no instance types satisfy requirements of amis [ami-0") {
		t.Errorf("arm64-gpu-no-image without the images: %s", m)
	}
	// One call per distinct question: two subnet selectors, one security
	// group selector, one role, one SSM batch, a name and an alias query.
	for action, n := range map[string]int{"ec2:DescribeSubnets": 2, "ec2:DescribeSecurityGroups": 1, "iam:GetRole": 1,
		"ssm:GetParameters": 1, "ec2:DescribeImages": 2, "ec2:DescribeInstanceTypes": 1} {
		if got := emu.Stats()[action]; got != n {
			t.Errorf("%s: %d calls, want %d (%v)", action, got, n, emu.Stats())
		}
	}

	// Offline: the family facts still catch the arm64 GPU pool; the rest
	// needs AWS, and the result says so.
	res = Run(context.Background(), inputs[:1], Options{Karpenter: versions.DefaultKarpenter})
	if got := summary(res); got != "30:11 NodePool/gpu arm64-gpu-no-image" || len(res.Skipped) != 1 || !strings.Contains(res.Skipped[0], "need AWS") {
		t.Fatalf("offline: got\n%s\nskipped %q", got, res.Skipped)
	}

	// Without a Kubernetes version, alias classes are not resolved: the
	// result says so; the name selector is still read.
	res = Run(context.Background(), inputs[:1], Options{Karpenter: versions.DefaultKarpenter, AWS: cache})
	if got := summary(res); !strings.Contains(got, "ami-not-available") || len(res.Skipped) != 1 || !strings.Contains(res.Skipped[0], "--kubernetes-version") {
		t.Fatalf("no version: got\n%s\nskipped %q", got, res.Skipped)
	}
	// A cluster name reads the version with eks:DescribeCluster.
	res = Run(context.Background(), inputs[:1], Options{Karpenter: versions.DefaultKarpenter, AWS: cache, Cluster: "demo"})
	if got := summary(res); !strings.Contains(got, "ami-not-available") || len(res.Skipped) > 0 || len(res.Failures) > 0 {
		t.Fatalf("cluster: got\n%s\nskipped %q failures %v", got, res.Skipped, res.Failures)
	}
	res = Run(context.Background(), inputs[:1], Options{Karpenter: versions.DefaultKarpenter, AWS: cache, Cluster: "nope"})
	if len(res.Failures) != 1 || !strings.Contains(res.Failures[0].Error(), `cluster "nope"`) {
		t.Fatalf("unknown cluster: failures %v", res.Failures)
	}
}

// A readiness read AWS denies skips the checks it feeds, says so, and the
// rest goes on, as in the provider; a denied image read is a failure.
func TestRunWithDeniedReads(t *testing.T) {
	for _, tc := range []struct {
		deny, want, skipped, failed string
	}{
		{"iam:GetRole", "arm64-gpu-no-image ami-not-available subnet-selector-matches-nothing", "iam:GetRole (InstanceProfileReady)", ""},
		{"ec2:DescribeSubnets", "arm64-gpu-no-image ami-not-available", "ec2:DescribeSubnets (SubnetsReady)", ""},
		{"ec2:DescribeImages", "arm64-gpu-no-image subnet-selector-matches-nothing", "", "resolving the AMI selector terms"},
	} {
		t.Run(tc.deny, func(t *testing.T) {
			url, _ := awsemutest.Start(t, awsemu.Options{Deny: []string{tc.deny}})
			awsemutest.Setenv(t, url)
			cache := awsclient.NewCache(awsclient.NewClients(awsclient.Config{Region: "us-east-1", MaxRetries: -1}))
			res := Run(context.Background(), []Input{{Name: "a.yaml", Text: awsManifests}}, Options{Karpenter: versions.DefaultKarpenter, AWS: cache, Kubernetes: "1.32"})
			var got []string
			for _, f := range res.Findings {
				got = append(got, f.Rule.ID)
			}
			skipped := strings.Join(res.Skipped, "; ")
			if strings.Join(got, " ") != tc.want || (tc.skipped == "") != (skipped == "") || !strings.Contains(skipped, tc.skipped) ||
				(tc.failed == "") != (len(res.Failures) == 0) || (tc.failed != "" && !strings.Contains(res.Failures[0].Error(), tc.failed)) {
				t.Errorf("findings %v\nskipped %q\nfailures %v", got, skipped, res.Failures)
			}
		})
	}
}

// zonesManifests: a class on the demo subnets (us-east-1a-c), a pool that
// requires us-east-1d, and one that names p4d, which no zone offers.
const zonesManifests = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: demo
spec:
  role: KarpenterNodeRole-demo
  amiSelectorTerms:
    - alias: al2023@latest
  subnetSelectorTerms:
    - tags:
        karpenter.sh/discovery: demo
  securityGroupSelectorTerms:
    - tags:
        karpenter.sh/discovery: demo
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: zone-d
spec:
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: demo
      requirements:
        - key: topology.kubernetes.io/zone
          operator: In
          values: ["us-east-1d"]
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: p4d
spec:
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: demo
      requirements:
        - key: karpenter.k8s.aws/instance-family
          operator: In
          values: ["p4d"]
`

// TestRunZonesWithAWS: with AWS, a pool's zones are checked against its
// class's subnets and its families against the offerings of those zones,
// as the resource checks them; offline neither is (and the result says
// the checks that need AWS were skipped).
func TestRunZonesWithAWS(t *testing.T) {
	url, emu := awsemutest.Start(t)
	awsemutest.Setenv(t, url)
	cache := awsclient.NewCache(awsclient.NewClients(awsclient.Config{Region: "us-east-1", MaxRetries: -1}))
	in := []Input{{Name: "zones.yaml", Text: zonesManifests}}
	res := Run(context.Background(), in, Options{Karpenter: versions.DefaultKarpenter, AWS: cache, Kubernetes: "1.32"})
	var got []string
	for _, f := range res.Findings {
		got = append(got, fmt.Sprintf("%d %s %s", f.Line, f.Object, f.Rule.ID))
	}
	want := []string{"30 NodePool/zone-d nodepool-zones-without-subnet", "46 NodePool/p4d nodepool-families-not-offered"} // the lines of their values
	if strings.Join(got, "\n") != strings.Join(want, "\n") || len(res.Failures) > 0 || len(res.Skipped) > 0 {
		t.Fatalf("got\n%s\nwant\n%s\nfailures %v skipped %q", strings.Join(got, "\n"), strings.Join(want, "\n"), res.Failures, res.Skipped)
	}
	for _, s := range []string{`The pool admits zones "us-east-1d"`, `Instance family "p4d" is offered in none of the zones`} {
		if !strings.Contains(res.Findings[0].Message+res.Findings[1].Message, s) {
			t.Errorf("messages do not say %q:\n%s\n%s", s, res.Findings[0].Message, res.Findings[1].Message)
		}
	}
	if n := emu.Stats()["ec2:DescribeInstanceTypeOfferings"]; n != 1 {
		t.Errorf("ec2:DescribeInstanceTypeOfferings: %d calls, want 1 per run", n)
	}
	res = Run(context.Background(), in, Options{Karpenter: versions.DefaultKarpenter})
	for _, f := range res.Findings {
		if f.Rule.ID == "nodepool-zones-without-subnet" || f.Rule.ID == "nodepool-families-not-offered" {
			t.Errorf("offline: %d %s %s", f.Line, f.Object, f.Rule.ID)
		}
	}
}

// TestRunZonesOfferingsDenied: a role without
// ec2:DescribeInstanceTypeOfferings still gets the zone check; the family
// check is skipped and the result names the permission.
func TestRunZonesOfferingsDenied(t *testing.T) {
	url, _ := awsemutest.Start(t, awsemu.Options{Deny: []string{"ec2:DescribeInstanceTypeOfferings"}})
	awsemutest.Setenv(t, url)
	cache := awsclient.NewCache(awsclient.NewClients(awsclient.Config{Region: "us-east-1", MaxRetries: -1}))
	res := Run(context.Background(), []Input{{Name: "zones.yaml", Text: zonesManifests}},
		Options{Karpenter: versions.DefaultKarpenter, AWS: cache, Kubernetes: "1.32"})
	var got []string
	for _, f := range res.Findings {
		got = append(got, f.Object+" "+f.Rule.ID)
	}
	if strings.Join(got, ",") != "NodePool/zone-d nodepool-zones-without-subnet" || len(res.Failures) > 0 ||
		len(res.Skipped) != 1 || !strings.Contains(res.Skipped[0], "ec2:DescribeInstanceTypeOfferings") {
		t.Fatalf("got %q, failures %v, skipped %q", got, res.Failures, res.Skipped)
	}
}

// A Kubernetes version Karpenter does not support is reported on each
// class whose alias resolves for it; a class without an alias is not.
func TestRunKubernetesVersionUnsupported(t *testing.T) {
	url, _ := awsemutest.Start(t)
	awsemutest.Setenv(t, url)
	cache := awsclient.NewCache(awsclient.NewClients(awsclient.Config{Region: "us-east-1", MaxRetries: -1}))
	for k8s, want := range map[string]string{
		"1.25": "8:7 EC2NodeClass/al2 kubernetes-version-unsupported",
		"1.32": "",
	} {
		res := Run(context.Background(), []Input{{Name: "a.yaml", Text: awsManifests}}, Options{Karpenter: versions.DefaultKarpenter, AWS: cache, Kubernetes: k8s})
		var got []string
		for _, f := range res.Findings {
			if f.Rule.ID == "kubernetes-version-unsupported" {
				got = append(got, fmt.Sprintf("%d:%d %s %s", f.Line, f.Column, f.Object, f.Rule.ID))
			}
		}
		if strings.Join(got, ",") != want {
			t.Errorf("Kubernetes %s: got %q, want %q", k8s, got, want)
		}
	}
}

// A class is checked as the karpenter_ec2nodeclass resource checks it
// (checks.EC2NodeClass): an error in one part (a reserved tag) does not
// hide what AWS says about the others (an image that is not available, a
// subnet selector that matches nothing), and an error in the AMI selector
// terms skips only the image read, which it makes meaningless.
func TestRunChecksAWSDespiteErrorsElsewhere(t *testing.T) {
	url, emu := awsemutest.Start(t)
	awsemutest.Setenv(t, url)
	cache := awsclient.NewCache(awsclient.NewClients(awsclient.Config{Region: "us-east-1", MaxRetries: -1}))
	const class = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: %s
spec:
  role: KarpenterNodeRole-demo
  amiFamily: AL2023
  amiSelectorTerms:
    - %s
  subnetSelectorTerms:
    - tags:
        karpenter.sh/discovery: prod
  securityGroupSelectorTerms:
    - tags:
        karpenter.sh/discovery: demo
  tags:
    %s
`
	for _, tc := range []struct {
		name, term, tag string
		want, notWant   []string
	}{
		{"reserved-tag", "name: team-gpu-node-*", "karpenter.sh/nodepool: x",
			[]string{"nodeclass-tag-restricted", "ami-not-available", "subnet-selector-matches-nothing"}, nil},
		{"bad-term", "id: not-an-ami", "team: a",
			[]string{"subnet-selector-matches-nothing"}, []string{"ami-not-available"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := emu.Stats()["ec2:DescribeImages"]
			res := Run(context.Background(), []Input{{Name: "a.yaml", Text: fmt.Sprintf(class, tc.name, tc.term, tc.tag)}},
				Options{Karpenter: versions.DefaultKarpenter, AWS: cache, Kubernetes: "1.32"})
			var got []string
			for _, f := range res.Findings {
				got = append(got, f.Rule.ID)
			}
			s := strings.Join(got, " ")
			for _, w := range tc.want {
				if !strings.Contains(s, w) {
					t.Errorf("findings %q, want %s among them", s, w)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(s, w) {
					t.Errorf("findings %q, want no %s", s, w)
				}
			}
			if read := emu.Stats()["ec2:DescribeImages"] - before; (tc.notWant != nil) != (read == 0) {
				t.Errorf("%d image reads", read)
			}
			if len(res.Failures) > 0 {
				t.Errorf("failures %v", res.Failures)
			}
		})
	}
}
