// Package schedulingtest is test support: it reads a decision's AWS facts
// from the project's emulator as the data source reads them from AWS (one
// awsclient.Cache), and predicts each EC2NodeClass's status with package
// readiness. Only tests import it.
package schedulingtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/capacity"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/readiness"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// Class is an EC2NodeClass named default on cluster demo's subnets and
// security groups, with the demo node role.
const Class = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  amiSelectorTerms:
    - alias: al2023@latest
  role: KarpenterNodeRole-demo
  subnetSelectorTerms:
    - tags:
        karpenter.sh/discovery: demo
  securityGroupSelectorTerms:
    - tags:
        karpenter.sh/discovery: demo
`

// Pool is a NodePool named name on Class; spec goes under spec (weight,
// limits), template under spec.template.spec (requirements, taints).
func Pool(name, spec, template string) string {
	return fmt.Sprintf("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: %s\nspec:\n%s  template:\n    spec:\n"+
		"      nodeClassRef:\n        group: karpenter.k8s.aws\n        kind: EC2NodeClass\n        name: default\n%s", name, spec, template)
}

// Deployment is a Deployment whose pods request cpu; pod goes under
// spec.template.spec.
func Deployment(name string, replicas int, cpu, pod string) string {
	return fmt.Sprintf("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: %[1]s\nspec:\n  replicas: %[2]d\n"+
		"  selector:\n    matchLabels:\n      app: %[1]s\n  template:\n    metadata:\n      labels:\n        app: %[1]s\n"+
		"    spec:\n      containers:\n        - name: app\n          image: nginx\n          resources:\n            requests:\n"+
		"              cpu: %[3]q\n%[4]s", name, replicas, cpu, pod)
}

// Now is the time capacity reservations are judged at: after the fixtures'
// expired reservation ended, within the capacity block's window.
var Now = time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)

// Emulator is a started emulator and the facts read from it.
type Emulator struct {
	URL       string
	Cache     *awsclient.Cache
	Catalogue *scheduling.Catalogue
}

// Start serves f (the default fixtures when nil) and reads the region's
// instance types and offerings.
func Start(t testing.TB, f *awsemu.Fixtures) *Emulator {
	t.Helper()
	if f == nil {
		var err error
		if f, err = awsemu.DefaultFixtures(); err != nil {
			t.Fatal(err)
		}
	}
	url, _ := awsemutest.StartWith(t, f)
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	c := awsclient.NewCache(awsclient.NewClients(awsclient.Config{
		Region: "us-east-1", Endpoints: awsclient.Endpoints{EC2: url, IAM: url, SSM: url, EKS: url, STS: url}, MaxRetries: 0,
	}))
	cat, err := scheduling.ReadCatalogue(context.Background(), "us-east-1", c)
	if err != nil {
		t.Fatal(err)
	}
	return &Emulator{URL: url, Cache: c, Catalogue: cat}
}

// Status predicts a class's status from the emulator; the images are taken
// to resolve (the tests use aliases the fixtures publish).
func (e *Emulator) Status(t testing.TB, m manifest.EC2NodeClass) scheduling.ClassStatus {
	t.Helper()
	ctx := context.Background()
	c := readiness.Class{Role: m.Spec.Role, InstanceProfile: m.Spec.InstanceProfile}
	for _, s := range m.Spec.SubnetSelectorTerms {
		c.SubnetTerms = append(c.SubnetTerms, awsclient.SubnetTerm{ID: s.ID, Tags: s.Tags})
	}
	for _, s := range m.Spec.SecurityGroupSelectorTerms {
		c.SecurityGroupTerms = append(c.SecurityGroupTerms, awsclient.SecurityGroupTerm{ID: s.ID, Name: s.Name, Tags: s.Tags})
	}
	for _, s := range m.Spec.CapacityReservationSelectorTerms {
		c.CapacityReservationTerms = append(c.CapacityReservationTerms, awsclient.CapacityReservationTerm{
			ID: s.ID, OwnerID: s.OwnerID, Tags: s.Tags, InstanceMatchCriteria: s.InstanceMatchCriteria})
	}
	var o readiness.Observed
	var err error
	if o.Subnets, err = e.Cache.SelectSubnets(ctx, c.SubnetTerms); err != nil {
		t.Fatal(err)
	}
	if o.SecurityGroups, err = e.Cache.SelectSecurityGroups(ctx, c.SecurityGroupTerms); err != nil {
		t.Fatal(err)
	}
	if len(c.CapacityReservationTerms) > 0 {
		if o.CapacityReservations, err = e.Cache.SelectCapacityReservations(ctx, c.CapacityReservationTerms); err != nil {
			t.Fatal(err)
		}
	}
	switch {
	case c.Role != "":
		role, err := e.Cache.GetRole(ctx, readiness.RoleName(c.Role))
		if err != nil {
			t.Fatal(err)
		}
		o.Role = &role
	case c.InstanceProfile != "":
		p, err := e.Cache.GetInstanceProfile(ctx, c.InstanceProfile)
		if err != nil {
			t.Fatal(err)
		}
		o.InstanceProfile = &p
	}
	r := readiness.Evaluate(c, o, readiness.Options{Now: Now, CapacityReservations: true})
	return scheduling.StatusOf(r, "")
}

// Facts are the decision's facts for the classes of p.
func (e *Emulator) Facts(t testing.TB, p *scheduling.Parsed) scheduling.Facts {
	t.Helper()
	f := scheduling.Facts{Catalogue: e.Catalogue, Classes: map[string]scheduling.ClassStatus{},
		Settings: capacity.DefaultSettings(), Karpenter: versions.DefaultKarpenter}
	for _, c := range p.Classes {
		f.Classes[c.Manifest.Metadata.Name] = e.Status(t, c.Manifest)
	}
	return f
}

// Decide parses in and decides it on the emulator's facts.
func (e *Emulator) Decide(t testing.TB, in scheduling.Input) *scheduling.Decision {
	t.Helper()
	p := scheduling.Parse(in)
	d, err := p.Decide(context.Background(), e.Facts(t, p))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// ExampleWorkloads returns the YAML of the example's workloads heredoc,
// and of its commented-out mistake (a GPU Job without the gpu pool's
// toleration); root is the repository root, relative to the test.
func ExampleWorkloads(t testing.TB, root string) (workloads, mistake string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(root, "examples/data-sources/karpenter_scheduling/data-source.tf"))
	if err != nil {
		t.Fatal(err)
	}
	var w, m strings.Builder
	in := ""
	for _, l := range strings.SplitAfter(string(src), "\n") {
		switch {
		case strings.HasPrefix(l, "  workloads = [<<-EOT"):
			in = "workloads"
		case strings.HasPrefix(l, "    # , <<-EOT"):
			in = "mistake"
		case in == "workloads" && strings.HasPrefix(l, "  EOT"), in == "mistake" && strings.HasPrefix(l, "    # EOT"):
			in = ""
		case in == "workloads":
			w.WriteString(strings.TrimPrefix(l, "    "))
		case in == "mistake":
			m.WriteString(strings.TrimPrefix(l, "    #   "))
		}
	}
	if !strings.Contains(w.String(), "\nkind: Deployment\n") || !strings.HasPrefix(m.String(), "apiVersion: batch/v1\nkind: Job\n") {
		t.Fatalf("the example's workloads were not found:\n%s\n---\n%s", w.String(), m.String())
	}
	return w.String(), m.String()
}
