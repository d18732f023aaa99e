package scheduling

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/capacity"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// fixtureFacts are the emulator's instance types and offerings read
// directly (no server), and any class on the demo subnets.
func fixtureFacts(t testing.TB) Facts {
	t.Helper()
	f, err := awsemu.DefaultFixtures()
	if err != nil {
		t.Fatal(err)
	}
	offerings := map[string][]string{}
	for _, o := range f.InstanceTypeOfferings {
		offerings[aws.ToString(o.Location)] = append(offerings[aws.ToString(o.Location)], string(o.InstanceType))
	}
	st := ClassStatus{Ready: true, Subnets: []Subnet{{ID: awsemu.SubnetDemoPrivateA, Zone: awsemu.ZoneA, ZoneID: awsemu.ZoneIDA},
		{ID: awsemu.SubnetDemoPrivateB, Zone: awsemu.ZoneB, ZoneID: awsemu.ZoneIDB}}}
	return Facts{Catalogue: NewCatalogue("us-east-1", f.InstanceTypes, offerings),
		Classes:  map[string]ClassStatus{"default": st},
		Settings: capacity.DefaultSettings(), Karpenter: versions.DefaultKarpenter}
}

// FuzzDecide: any workloads text, next to a valid pool and class, is read
// and decided without a panic, and every finding names its element.
func FuzzDecide(f *testing.F) {
	for _, s := range []string{
		exampleDeployment("2", "500m", ""),
		exampleDeployment("2", "500m", "      tolerations:\n        - operator: Exists\n"),
		exampleDeployment("1", "1M", "      topologySpreadConstraints:\n        - maxSkew: 0\n          topologyKey: \"\"\n"),
		"apiVersion: v1\nkind: List\nitems: [1, 2]\n",
		"apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: s\nspec:\n  replicas: -3\n  volumeClaimTemplates: [{}]\n",
		"apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {parallelism: 2147483647, completions: 3, template: {spec: {containers: [{name: c, resources: {requests: {cpu: -1}}}]}}}\n",
		// An HPA (its target at maxReplicas with scale max) and zones named
		// together and alone (the tie groups).
		exampleDeployment("2", "500m", "") + "---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web}\n" +
			"spec: {scaleTargetRef: {kind: Deployment, name: web}, maxReplicas: 4}\n",
		exampleDeployment("4", "500m", "      nodeSelector: {topology.kubernetes.io/zone: us-east-1a}\n      topologySpreadConstraints:\n"+
			"        - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}}\n"),
		"zones: [us-east-1a, [us-east-1b, use1-az2], {a: us-east-1c}]\n",
		"---\n---\n{}\n", "kind: [", "\t- x", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  affinity:\n    podAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        - topologyKey: ''\n",
	} {
		f.Add(s)
	}
	facts := fixtureFacts(f)
	f.Fuzz(func(t *testing.T, workloads string) {
		p := Parse(Input{NodePools: []string{examplePool("default", "")}, NodeClasses: []string{exampleClass}, Workloads: []string{workloads},
			WorkloadNames: []string{"apps/fuzz.yaml"}, Scale: ScaleMax})
		pods := 0
		for _, w := range p.world.workloads {
			pods += len(w.Pods)
		}
		if pods > 200 {
			t.Skip("thousands of pods take the scheduler seconds; MaxPods bounds them (TestTooManyPods)")
		}
		d, err := p.Decide(context.Background(), facts)
		if err != nil {
			return // the input made Karpenter's scheduler fail: reported, not a crash
		}
		for _, fd := range d.Findings {
			if fd.Path.IsEmpty() || fd.Detail == "" {
				t.Errorf("finding without a path or detail: %v", fd)
			}
		}
		if len(d.Explain()) != len(d.NodePools) {
			t.Errorf("explanation %v for pools %v", d.Explain(), d.NodePools)
		}
		if len(d.Drawn) != len(d.NodeClaims) {
			t.Errorf("%d NodeClaims drawn, %d reported", len(d.Drawn), len(d.NodeClaims))
		}
	})
}

// TestDecidePanicIsAFinding: whatever fails inside Karpenter's scheduler
// (here a decision without its catalogue) becomes a finding at workloads,
// not a crash of the provider.
func TestDecidePanicIsAFinding(t *testing.T) {
	p := Parse(Input{NodePools: []string{examplePool("default", "")}, NodeClasses: []string{exampleClass},
		Workloads: []string{exampleDeployment("1", "1", "")}})
	d, err := p.Decide(context.Background(), Facts{Classes: map[string]ClassStatus{"default": {Ready: true, Subnets: []Subnet{{Zone: "us-east-1a"}}}}})
	if err != nil || d == nil || len(d.Findings) != 1 || d.Findings[0].Rule != ruleDocument || d.Findings[0].Path.String() != "workloads" {
		t.Fatalf("decision %+v, error %v", d, err)
	}
}

// FuzzKarpenterList: any text as an element of Input.Karpenter (a file
// given to karpenter-lint schedule --pools) is read and decided without a
// panic; every finding names its list and element.
func FuzzKarpenterList(f *testing.F) {
	for _, s := range []string{
		exampleClass + "---\n" + examplePool("default", ""),
		examplePool("default", "") + "---\n" + examplePool("default", ""),
		strings.Replace(examplePool("old", ""), "karpenter.sh/v1", "karpenter.sh/v1beta1", 1),
		"apiVersion: v1\nkind: List\nitems:\n  - apiVersion: karpenter.k8s.aws/v1\n    kind: EC2NodeClass\n    metadata: {name: x}\n",
		"apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p}\nspec: {template: {spec: {nodeClassRef: null}}}\n",
		"kind: [", "---\n", "apiVersion: v1\nkind: ConfigMap\n",
	} {
		f.Add(s)
	}
	facts := fixtureFacts(f)
	f.Fuzz(func(t *testing.T, text string) {
		p := Parse(Input{Karpenter: []string{text}, Workloads: []string{exampleDeployment("2", "500m", "")}})
		d, err := p.Decide(context.Background(), facts)
		if err != nil {
			return
		}
		for _, fd := range d.Findings {
			if fd.Detail == "" || (fd.List != ListKarpenter && fd.List != ListWorkloads) || fd.Input > 0 {
				t.Errorf("finding without its place or detail: %+v", fd)
			}
		}
	})
}
