package awsclient_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
)

func emulatorCache(t *testing.T, f *awsemu.Fixtures, opts ...awsemu.Options) (*awsclient.Cache, *awsemu.Server) {
	t.Helper()
	if f == nil {
		var err error
		if f, err = awsemu.DefaultFixtures(); err != nil {
			t.Fatal(err)
		}
	}
	url, srv := awsemutest.StartWith(t, f, opts...)
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	return awsclient.NewCache(awsclient.NewClients(awsclient.Config{
		Region:     "us-east-1",
		Endpoints:  awsclient.Endpoints{EC2: url, SSM: url, EKS: url, STS: url, IAM: url},
		MaxRetries: 2,
	})), srv
}

// TestSelectorQueries pins the requests Karpenter sends for selector terms
// (pkg/providers/subnet, securitygroup, capacityreservation getFilterSets /
// QueriesFromSelectorTerms): tags become one query per term ("*" is
// tag-key), ids (and group names) one batched query.
func TestSelectorQueries(t *testing.T) {
	str := func(qs []awsclient.TermQuery) []string {
		out := []string{}
		for _, q := range qs {
			out = append(out, fmt.Sprintf("%s%v", q, q.Terms))
		}
		return out
	}
	for _, tc := range []struct {
		name string
		got  []awsclient.TermQuery
		want []string
	}{
		{"subnets", awsclient.SubnetQueries([]awsclient.SubnetTerm{
			{Tags: map[string]string{"karpenter.sh/discovery": "demo", "tier": "*"}},
			{ID: "subnet-1"}, {}, {ID: "subnet-2"}, {Tags: map[string]string{"Name": "a"}},
		}), []string{"(tag:karpenter.sh/discovery=demo tag-key=tier)[0]", "(tag:Name=a)[4]", "(subnet-id=subnet-1,subnet-2)[1 3]"}},
		{"security groups", awsclient.SecurityGroupQueries([]awsclient.SecurityGroupTerm{
			{Name: "default"}, {ID: "sg-1"}, {Tags: map[string]string{"a": "b"}}, {Name: "x"},
		}), []string{"(tag:a=b)[2]", "(group-id=sg-1)[1]", "(group-name=default,x)[0 3]"}},
		{"capacity reservations", awsclient.CapacityReservationQueries([]awsclient.CapacityReservationTerm{
			{ID: "cr-1"}, {OwnerID: "123456789012"}, {OwnerID: "123456789012", Tags: map[string]string{"a": "*"}},
			{InstanceMatchCriteria: "open"},
		}), []string{"(ids=cr-1 state=active)[0]", "(state=active owner-id=123456789012 tag-key=a)[2]",
			"(state=active instance-match-criteria=open)[3]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := str(tc.got); !slices.Equal(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func ids[T any](items []T, id func(T) string) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, id(it))
	}
	return out
}

func subnetID(s awsclient.Subnet) string          { return s.ID }
func groupID(g awsclient.SecurityGroup) string    { return g.ID }
func crID(r awsclient.CapacityReservation) string { return r.ID }
func byTerm[T any](sel [][]T, id func(T) string) [][]string {
	out := [][]string{}
	for _, items := range sel {
		out = append(out, ids(items, id))
	}
	return out
}

func TestSelectAgainstEmulator(t *testing.T) {
	c, _ := emulatorCache(t, nil)
	ctx := context.Background()

	subnets, err := c.SelectSubnets(ctx, []awsclient.SubnetTerm{
		{Tags: map[string]string{"karpenter.sh/discovery": "demo"}},
		{ID: awsemu.SubnetDemoPrivateA}, {ID: "subnet-0000000000000000f"},
		{Tags: map[string]string{"tier": "*"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	// Karpenter's status order: most free addresses first.
	if got, want := ids(subnets.All, subnetID), []string{awsemu.SubnetDemoPrivateA, awsemu.SubnetDemoPrivateC,
		awsemu.SubnetDemoPrivateB, awsemu.SubnetDemoExhausted}; !slices.Equal(got, want) {
		t.Errorf("All %v, want %v", got, want)
	}
	if got, want := byTerm(subnets.ByTerm, subnetID), [][]string{
		{awsemu.SubnetDemoPrivateA, awsemu.SubnetDemoPrivateB, awsemu.SubnetDemoPrivateC},
		{awsemu.SubnetDemoPrivateA}, {}, {awsemu.SubnetDemoExhausted},
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("ByTerm %v, want %v", got, want)
	}
	a := subnets.All[0]
	if a.Zone != awsemu.ZoneA || a.ZoneID != awsemu.ZoneIDA || a.VPCID != awsemu.VPCDemo || a.AvailableIPs != 8123 || a.Tags["karpenter.sh/discovery"] != "demo" {
		t.Errorf("subnet %+v", a)
	}

	groups, err := c.SelectSecurityGroups(ctx, []awsclient.SecurityGroupTerm{
		{Name: "default"}, {Name: "demo-extra"}, {ID: awsemu.SecurityGroupDemoCluster},
		{Tags: map[string]string{"karpenter.sh/discovery": "demo"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := byTerm(groups.ByTerm, groupID), [][]string{
		sortedIDs(awsemu.SecurityGroupDemoDefault, awsemu.SecurityGroupLegacyDefault), {},
		{awsemu.SecurityGroupDemoCluster}, {awsemu.SecurityGroupDemoNode},
	}; !reflect.DeepEqual(sortEach(got), want) {
		t.Errorf("ByTerm %v, want %v", got, want)
	}
	if got := ids(groups.All, groupID); len(got) != 4 || !slices.IsSorted(got) {
		t.Errorf("All %v: want 4 groups sorted by id", got)
	}
	if got := ids(groups.NameTagMatches[1], groupID); !slices.Equal(got, []string{awsemu.SecurityGroupDemoNameTagOnly}) {
		t.Errorf("Name tag matches of term 1: %v", groups.NameTagMatches)
	}

	crs, err := c.SelectCapacityReservations(ctx, []awsclient.CapacityReservationTerm{
		{Tags: map[string]string{"karpenter.sh/discovery": "demo"}},
		{ID: awsemu.CapacityReservationDemoExpired}, {ID: "cr-0000000000000000f"},
		{ID: awsemu.CapacityReservationBlockP4d},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := byTerm(crs.ByTerm, crID), [][]string{{awsemu.CapacityReservationDemoM5}, {}, {}, {awsemu.CapacityReservationBlockP4d}}; !reflect.DeepEqual(got, want) {
		t.Errorf("ByTerm %v, want %v", got, want)
	}
	block := crs.ByTerm[3][0]
	if block.ReservationType != "capacity-block" || block.InstanceType != "p4d.24xlarge" || block.Zone != awsemu.ZoneD ||
		!block.EndDate.Equal(time.Date(2026, 12, 4, 11, 30, 0, 0, time.UTC)) || block.OwnerID != awsemu.AccountID {
		t.Errorf("capacity block %+v", block)
	}

	off, err := c.OfferingsByZone(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(off) != 4 || !slices.Contains(off[awsemu.ZoneD], "p4d.24xlarge") || slices.Contains(off[awsemu.ZoneA], "p4d.24xlarge") ||
		!slices.IsSorted(off[awsemu.ZoneA]) {
		t.Errorf("offerings %v", off)
	}

	role, err := c.GetRole(ctx, awsemu.RoleNodeDemo)
	if err != nil || !role.Found || role.ARN != "arn:aws:iam::123456789012:role/KarpenterNodeRole-demo" {
		t.Errorf("role %+v %v", role, err)
	}
	missing, err := c.GetRole(ctx, "KarpenterNodeRole-prod")
	if err != nil || missing.Found || missing.Name != "KarpenterNodeRole-prod" {
		t.Errorf("missing role %+v %v", missing, err)
	}
	prof, err := c.GetInstanceProfile(ctx, awsemu.InstanceProfileDemo)
	if err != nil || !prof.Found || !slices.Equal(prof.Roles, []string{awsemu.RoleNodeDemo}) {
		t.Errorf("profile %+v %v", prof, err)
	}
	empty, err := c.GetInstanceProfile(ctx, awsemu.InstanceProfileRoleless)
	if err != nil || !empty.Found || len(empty.Roles) != 0 {
		t.Errorf("roleless profile %+v %v", empty, err)
	}
	if p, err := c.GetInstanceProfile(ctx, "nope"); err != nil || p.Found {
		t.Errorf("missing profile %+v %v", p, err)
	}
}

func sortedIDs(s ...string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func sortEach(ss [][]string) [][]string {
	for _, s := range ss {
		slices.Sort(s)
	}
	return ss
}

// TestSubnetsNotServed: an emulator without subnets.json makes
// DescribeSubnets fail with ErrNotServed, once (cached), and an empty
// subnets.json answers "no subnets".
func TestSubnetsNotServed(t *testing.T) {
	c, srv := emulatorCache(t, &awsemu.Fixtures{})
	ctx := context.Background()
	terms := []awsclient.SubnetTerm{{Tags: map[string]string{"karpenter.sh/discovery": "demo"}}}
	for range 2 {
		if _, err := c.SelectSubnets(ctx, terms); !errors.Is(err, awsclient.ErrNotServed) {
			t.Fatalf("want ErrNotServed, got %v", err)
		}
	}
	if n := srv.Stats()["ec2:DescribeSubnets"]; n != 1 {
		t.Errorf("%d DescribeSubnets calls, want 1 (the error is cached)", n)
	}
	f := &awsemu.Fixtures{}
	f.AddSubnets()
	c, _ = emulatorCache(t, f)
	sel, err := c.SelectSubnets(ctx, terms)
	if err != nil || len(sel.All) != 0 || len(sel.ByTerm) != 1 {
		t.Errorf("empty subnets.json: %+v %v", sel, err)
	}
}

// TestIAMEndpointFromEnvironment: without an `iam` endpoint in the provider
// block, AWS_ENDPOINT_URL_IAM reaches the IAM client.
func TestIAMEndpointFromEnvironment(t *testing.T) {
	url, srv := awsemutest.Start(t)
	awsemutest.Setenv(t, url)
	c := awsclient.NewCache(awsclient.NewClients(awsclient.Config{Region: "eu-west-1", MaxRetries: 0}))
	if r, err := c.GetRole(context.Background(), awsemu.RoleNodeDemo); err != nil || !r.Found {
		t.Fatalf("%+v %v", r, err)
	}
	if srv.Stats()["iam:GetRole"] != 1 {
		t.Errorf("stats %v", srv.Stats())
	}
}

// TestReadinessRequestEconomy: 60 node classes with one set of selectors,
// planned concurrently, cost one call per distinct query; a second round
// costs nothing.
func TestReadinessRequestEconomy(t *testing.T) {
	c, srv := emulatorCache(t, nil, awsemu.Options{Latency: 5 * time.Millisecond})
	subnets := []awsclient.SubnetTerm{
		{Tags: map[string]string{"karpenter.sh/discovery": "demo"}},
		{ID: awsemu.SubnetDemoPrivateA}, {ID: awsemu.SubnetDemoPrivateB},
	}
	groups := []awsclient.SecurityGroupTerm{
		{Tags: map[string]string{"karpenter.sh/discovery": "demo"}}, {ID: awsemu.SecurityGroupDemoCluster}, {Name: "demo-extra"},
	}
	reservations := []awsclient.CapacityReservationTerm{{Tags: map[string]string{"karpenter.sh/discovery": "demo"}}, {ID: awsemu.CapacityReservationDemoM5}}
	round := func() {
		var wg sync.WaitGroup
		for range 60 {
			wg.Go(func() {
				ctx := context.Background()
				for _, err := range []error{
					second(c.SelectSubnets(ctx, subnets)),
					second(c.SelectSecurityGroups(ctx, groups)),
					second(c.SelectCapacityReservations(ctx, reservations)),
					second(c.OfferingsByZone(ctx)),
					second(c.GetRole(ctx, awsemu.RoleNodeDemo)),
					second(c.GetInstanceProfile(ctx, awsemu.InstanceProfileDemo)),
				} {
					if err != nil {
						t.Error(err)
					}
				}
			})
		}
		wg.Wait()
	}
	round()
	want := map[string]int{
		"ec2:DescribeSubnets":               2, // the tags term; both id terms in one subnet-id query
		"ec2:DescribeSecurityGroups":        4, // tags, group-id, group-name, and the Name tag of the missed name
		"ec2:DescribeCapacityReservations":  2, // the tags term, the id term
		"ec2:DescribeInstanceTypeOfferings": 1,
		"iam:GetRole":                       1,
		"iam:GetInstanceProfile":            1,
	}
	got := srv.Stats()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %d calls, want %d", k, got[k], v)
		}
	}
	total := got["total"]
	t.Logf("60 classes: %d requests (%v)", total, got)
	round()
	if again := srv.Stats()["total"]; again != total {
		t.Errorf("a second round made %d more requests", again-total)
	}
}

func second[T any](_ T, err error) error { return err }
