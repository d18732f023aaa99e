package awsemu_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
)

// TestNetworkWireRoundTripEveryField: every field of the new served types
// survives the emulator's serialisation and the real SDK's decoding.
func TestNetworkWireRoundTripEveryField(t *testing.T) {
	var sn ec2types.Subnet
	fill(reflect.ValueOf(&sn).Elem(), "subnet", 0)
	sn.SubnetId = aws.String("subnet-0full")
	var sg ec2types.SecurityGroup
	fill(reflect.ValueOf(&sg).Elem(), "sg", 0)
	sg.GroupId = aws.String("sg-0full")
	var off ec2types.InstanceTypeOffering
	fill(reflect.ValueOf(&off).Elem(), "offering", 0)
	off.LocationType = ec2types.LocationTypeAvailabilityZone
	var cr ec2types.CapacityReservation
	fill(reflect.ValueOf(&cr).Elem(), "cr", 0)
	cr.CapacityReservationId = aws.String("cr-0full")
	var role iamtypes.Role
	fill(reflect.ValueOf(&role).Elem(), "role", 0)
	role.RoleName = aws.String("full-role")
	role.AssumeRolePolicyDocument = aws.String(`{"Version":"2012-10-17","Statement":[]}`)
	var profile iamtypes.InstanceProfile
	fill(reflect.ValueOf(&profile).Elem(), "profile", 0)
	profile.InstanceProfileName = aws.String("full-profile")
	for i := range profile.Roles {
		profile.Roles[i].AssumeRolePolicyDocument = aws.String(`{"a":"b c"}`)
	}

	f := &awsemu.Fixtures{}
	f.AddSubnets(sn)
	f.AddSecurityGroups(sg)
	f.AddInstanceTypeOfferings(off)
	f.AddCapacityReservations(cr)
	f.AddRoles(role)
	f.AddInstanceProfiles(profile)
	e := newEnv(t, f, awsemu.Options{}, nil)
	ctx := context.Background()

	subnets, err := e.EC2.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{SubnetIds: []string{*sn.SubnetId}})
	if err != nil {
		t.Fatal(err)
	}
	assertSame(t, "Subnet", []ec2types.Subnet{sn}, subnets.Subnets)
	groups, err := e.EC2.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{GroupIds: []string{*sg.GroupId}})
	if err != nil {
		t.Fatal(err)
	}
	assertSame(t, "SecurityGroup", []ec2types.SecurityGroup{sg}, groups.SecurityGroups)
	offs, err := e.EC2.DescribeInstanceTypeOfferings(ctx, &ec2.DescribeInstanceTypeOfferingsInput{LocationType: off.LocationType})
	if err != nil {
		t.Fatal(err)
	}
	assertSame(t, "InstanceTypeOffering", []ec2types.InstanceTypeOffering{off}, offs.InstanceTypeOfferings)
	crs, err := e.EC2.DescribeCapacityReservations(ctx, &ec2.DescribeCapacityReservationsInput{CapacityReservationIds: []string{*cr.CapacityReservationId}})
	if err != nil {
		t.Fatal(err)
	}
	assertSame(t, "CapacityReservation", []ec2types.CapacityReservation{cr}, crs.CapacityReservations)

	// IAM sends policy documents URL-encoded and the SDK passes them on so.
	encoded := func(r iamtypes.Role) iamtypes.Role {
		r.AssumeRolePolicyDocument = aws.String(url.QueryEscape(*r.AssumeRolePolicyDocument))
		return r
	}
	gr, err := e.IAM.GetRole(ctx, &iam.GetRoleInput{RoleName: role.RoleName})
	if err != nil {
		t.Fatal(err)
	}
	assertSame(t, "Role", encoded(role), *gr.Role)
	gp, err := e.IAM.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: profile.InstanceProfileName})
	if err != nil {
		t.Fatal(err)
	}
	want := profile
	want.Roles = []iamtypes.Role{encoded(profile.Roles[0]), encoded(profile.Roles[1])}
	assertSame(t, "InstanceProfile", want, *gp.InstanceProfile)
}

// TestDefaultNetworkFixturesRoundTrip: the clients decode exactly what the
// JSON files hold.
func TestDefaultNetworkFixturesRoundTrip(t *testing.T) {
	f := defaultFixtures(t)
	if len(f.Subnets) != 7 || len(f.SecurityGroups) != 6 || len(f.CapacityReservations) != 3 ||
		len(f.Roles) != 2 || len(f.InstanceProfiles) != 2 || len(f.InstanceTypeOfferings) < 80 {
		t.Fatalf("default fixtures: %d subnets, %d groups, %d reservations, %d roles, %d profiles, %d offerings",
			len(f.Subnets), len(f.SecurityGroups), len(f.CapacityReservations), len(f.Roles), len(f.InstanceProfiles), len(f.InstanceTypeOfferings))
	}
	e := newEnv(t, f, awsemu.Options{}, nil)
	ctx := context.Background()
	subnets, err := e.EC2.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{})
	if err != nil {
		t.Fatal(err)
	}
	assertSame(t, "subnets", f.Subnets, subnets.Subnets)
	groups, err := e.EC2.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{})
	if err != nil {
		t.Fatal(err)
	}
	assertSame(t, "security groups", f.SecurityGroups, groups.SecurityGroups)
	crs, err := e.EC2.DescribeCapacityReservations(ctx, &ec2.DescribeCapacityReservationsInput{})
	if err != nil {
		t.Fatal(err)
	}
	assertSame(t, "capacity reservations", f.CapacityReservations, crs.CapacityReservations)
	var offerings []ec2types.InstanceTypeOffering
	p := ec2.NewDescribeInstanceTypeOfferingsPaginator(e.EC2, &ec2.DescribeInstanceTypeOfferingsInput{LocationType: ec2types.LocationTypeAvailabilityZone})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		offerings = append(offerings, page.InstanceTypeOfferings...)
	}
	assertSame(t, "offerings", f.InstanceTypeOfferings, offerings)
	for _, want := range f.Roles {
		got, err := e.IAM.GetRole(ctx, &iam.GetRoleInput{RoleName: want.RoleName})
		if err != nil {
			t.Fatal(err)
		}
		doc, err := url.QueryUnescape(aws.ToString(got.Role.AssumeRolePolicyDocument))
		if err != nil || doc != aws.ToString(want.AssumeRolePolicyDocument) {
			t.Errorf("%s: policy document %q (%v), want %q", *want.RoleName, doc, err, *want.AssumeRolePolicyDocument)
		}
		got.Role.AssumeRolePolicyDocument = want.AssumeRolePolicyDocument
		assertSame(t, *want.RoleName, want, *got.Role)
	}
	for _, want := range f.InstanceProfiles {
		got, err := e.IAM.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: want.InstanceProfileName})
		if err != nil {
			t.Fatal(err)
		}
		for i := range got.InstanceProfile.Roles {
			doc, _ := url.QueryUnescape(aws.ToString(got.InstanceProfile.Roles[i].AssumeRolePolicyDocument))
			got.InstanceProfile.Roles[i].AssumeRolePolicyDocument = &doc
		}
		assertSame(t, *want.InstanceProfileName, want, *got.InstanceProfile)
	}
}

func subnetIDs(ss []ec2types.Subnet) []string {
	out := []string{}
	for _, s := range ss {
		out = append(out, aws.ToString(s.SubnetId))
	}
	slices.Sort(out)
	return out
}

func groupIDs(gs []ec2types.SecurityGroup) []string {
	out := []string{}
	for _, g := range gs {
		out = append(out, aws.ToString(g.GroupId))
	}
	slices.Sort(out)
	return out
}

// TestDescribeSubnetsFilters: the filters Karpenter sends, as EC2 applies
// them, on the default fixtures and their traps.
func TestDescribeSubnetsFilters(t *testing.T) {
	e := newEnv(t, nil, awsemu.Options{}, nil)
	ctx := context.Background()
	demo := sorted(awsemu.SubnetDemoPrivateA, awsemu.SubnetDemoPrivateB, awsemu.SubnetDemoPrivateC)
	for _, tc := range []struct {
		name    string
		in      ec2.DescribeSubnetsInput
		want    []string
		errCode string
	}{
		{"discovery tag", ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{filter("tag:karpenter.sh/discovery", "demo")}}, demo, ""},
		{"the misspelt tag key", ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{filter("tag:karpenter.sh/discovry", "demo")}},
			[]string{awsemu.SubnetDemoPublicTypo}, ""},
		{"tag-key (value *)", ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{filter("tag-key", "tier")}},
			[]string{awsemu.SubnetDemoExhausted}, ""},
		{"a role tag both VPCs carry", ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{filter("tag:kubernetes.io/role/internal-elb", "1")}},
			sorted(append(demo, awsemu.SubnetLegacyA, awsemu.SubnetLegacyD)...), ""},
		{"tags ANDed", ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{
			filter("tag:kubernetes.io/role/internal-elb", "1"), filter("tag:karpenter.sh/discovery", "legacy")}},
			sorted(awsemu.SubnetLegacyA, awsemu.SubnetLegacyD), ""},
		{"values ORed, wildcards", ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{filter("tag:Name", "legacy-*", "demo-isolated-*")}},
			sorted(awsemu.SubnetLegacyA, awsemu.SubnetLegacyD, awsemu.SubnetDemoExhausted), ""},
		{"subnet-id filter ignores unknown ids", ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{
			filter("subnet-id", awsemu.SubnetDemoPrivateA, "subnet-0000000000000000f")}}, []string{awsemu.SubnetDemoPrivateA}, ""},
		{"vpc-id and zone", ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{
			filter("vpc-id", awsemu.VPCDemo), filter("availability-zone", awsemu.ZoneC)}},
			sorted(awsemu.SubnetDemoPrivateC, awsemu.SubnetDemoExhausted), ""},
		{"zone id", ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{filter("availability-zone-id", awsemu.ZoneIDD)}},
			[]string{awsemu.SubnetLegacyD}, ""},
		{"SubnetIds", ec2.DescribeSubnetsInput{SubnetIds: []string{awsemu.SubnetLegacyA}}, []string{awsemu.SubnetLegacyA}, ""},
		{"unknown SubnetIds", ec2.DescribeSubnetsInput{SubnetIds: []string{"subnet-0000000000000000f"}}, nil, "InvalidSubnetID.NotFound"},
		{"unknown filter", ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{filter("group-name", "x")}}, nil, "InvalidParameterValue"},
		{"MaxResults out of range", ec2.DescribeSubnetsInput{MaxResults: aws.Int32(4)}, nil, "InvalidParameterValue"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := e.EC2.DescribeSubnets(ctx, &tc.in)
			var got []string
			if err == nil {
				got = subnetIDs(out.Subnets)
			}
			checkList(t, got, err, tc.want, tc.errCode)
		})
	}
}

// checkList compares the ids a Describe call answered, or its error code.
func checkList(t *testing.T, got []string, err error, want []string, errCode string) {
	t.Helper()
	if errCode != "" {
		if code := apiCode(t, err); code != errCode {
			t.Fatalf("code %s, want %s", code, errCode)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestDescribeSubnetsPagination(t *testing.T) {
	e := newEnv(t, nil, awsemu.Options{}, nil)
	var pages, n int
	p := ec2.NewDescribeSubnetsPaginator(e.EC2, &ec2.DescribeSubnetsInput{MaxResults: aws.Int32(5)})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		pages++
		n += len(page.Subnets)
	}
	if pages != 2 || n != 7 {
		t.Errorf("%d subnets in %d pages, want 7 in 2", n, pages)
	}
	// A token replayed with other filters is refused, as EC2 does.
	first, err := e.EC2.DescribeSubnets(context.Background(), &ec2.DescribeSubnetsInput{MaxResults: aws.Int32(5)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.EC2.DescribeSubnets(context.Background(), &ec2.DescribeSubnetsInput{
		MaxResults: aws.Int32(5), NextToken: first.NextToken, Filters: []ec2types.Filter{filter("vpc-id", awsemu.VPCDemo)}})
	if code := apiCode(t, err); code != "InvalidPaginationToken" {
		t.Errorf("code %s", code)
	}
}

func TestDescribeSecurityGroupsFilters(t *testing.T) {
	e := newEnv(t, nil, awsemu.Options{}, nil)
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		in      ec2.DescribeSecurityGroupsInput
		want    []string
		errCode string
	}{
		{"discovery tag", ec2.DescribeSecurityGroupsInput{Filters: []ec2types.Filter{filter("tag:karpenter.sh/discovery", "demo")}},
			[]string{awsemu.SecurityGroupDemoNode}, ""},
		{"group-name matches the name field, not the Name tag", ec2.DescribeSecurityGroupsInput{Filters: []ec2types.Filter{filter("group-name", "demo-extra")}},
			[]string{}, ""},
		{"the Name tag", ec2.DescribeSecurityGroupsInput{Filters: []ec2types.Filter{filter("tag:Name", "demo-extra")}},
			[]string{awsemu.SecurityGroupDemoNameTagOnly}, ""},
		{"group-name default is in both VPCs", ec2.DescribeSecurityGroupsInput{Filters: []ec2types.Filter{filter("group-name", "default")}},
			sorted(awsemu.SecurityGroupDemoDefault, awsemu.SecurityGroupLegacyDefault), ""},
		{"group-id", ec2.DescribeSecurityGroupsInput{Filters: []ec2types.Filter{filter("group-id", awsemu.SecurityGroupDemoCluster, "sg-0000000000000000f")}},
			[]string{awsemu.SecurityGroupDemoCluster}, ""},
		{"tag-key and vpc-id", ec2.DescribeSecurityGroupsInput{Filters: []ec2types.Filter{filter("tag-key", "karpenter.sh/discovery"), filter("vpc-id", awsemu.VPCLegacy)}},
			[]string{awsemu.SecurityGroupLegacyNode}, ""},
		{"GroupIds", ec2.DescribeSecurityGroupsInput{GroupIds: []string{awsemu.SecurityGroupDemoNode}}, []string{awsemu.SecurityGroupDemoNode}, ""},
		{"unknown GroupIds", ec2.DescribeSecurityGroupsInput{GroupIds: []string{"sg-0000000000000000f"}}, nil, "InvalidGroup.NotFound"},
		{"GroupIds with MaxResults", ec2.DescribeSecurityGroupsInput{GroupIds: []string{awsemu.SecurityGroupDemoNode}, MaxResults: aws.Int32(5)}, nil, "InvalidParameterCombination"},
		{"GroupNames", ec2.DescribeSecurityGroupsInput{GroupNames: []string{"legacy-node"}}, []string{awsemu.SecurityGroupLegacyNode}, ""},
		{"unknown GroupNames", ec2.DescribeSecurityGroupsInput{GroupNames: []string{"nope"}}, nil, "InvalidGroup.NotFound"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := e.EC2.DescribeSecurityGroups(ctx, &tc.in)
			var got []string
			if err == nil {
				got = groupIDs(out.SecurityGroups)
			}
			checkList(t, got, err, tc.want, tc.errCode)
		})
	}
}

func TestDescribeInstanceTypeOfferings(t *testing.T) {
	e := newEnv(t, nil, awsemu.Options{}, nil)
	ctx := context.Background()
	locations := func(in *ec2.DescribeInstanceTypeOfferingsInput) []string {
		t.Helper()
		var out []string
		p := ec2.NewDescribeInstanceTypeOfferingsPaginator(e.EC2, in)
		for p.HasMorePages() {
			page, err := p.NextPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range page.InstanceTypeOfferings {
				out = append(out, aws.ToString(o.Location)+"/"+string(o.InstanceType))
			}
		}
		return out
	}
	zone := ec2types.LocationTypeAvailabilityZone
	if got := locations(&ec2.DescribeInstanceTypeOfferingsInput{LocationType: zone,
		Filters: []ec2types.Filter{filter("instance-type", "p4d.24xlarge")}}); !slices.Equal(got, []string{"us-east-1d/p4d.24xlarge"}) {
		t.Errorf("p4d.24xlarge offered in %v, want us-east-1d only", got)
	}
	if got := locations(&ec2.DescribeInstanceTypeOfferingsInput{LocationType: zone,
		Filters: []ec2types.Filter{filter("instance-type", "m5.large"), filter("location", "us-east-1a", "us-east-1c")}}); len(got) != 2 {
		t.Errorf("m5.large in a and c: %v", got)
	}
	region := locations(&ec2.DescribeInstanceTypeOfferingsInput{})
	if len(region) != 25 || region[0] != "us-east-1/m5.large" {
		t.Errorf("region offerings (the default location type) %d: %v", len(region), region)
	}
	_, err := e.EC2.DescribeInstanceTypeOfferings(ctx, &ec2.DescribeInstanceTypeOfferingsInput{LocationType: "galaxy"})
	if code := apiCode(t, err); code != "InvalidParameterValue" {
		t.Errorf("code %s", code)
	}
}

func TestDescribeCapacityReservations(t *testing.T) {
	e := newEnv(t, nil, awsemu.Options{}, nil)
	ctx := context.Background()
	ids := func(in *ec2.DescribeCapacityReservationsInput) ([]string, error) {
		out, err := e.EC2.DescribeCapacityReservations(ctx, in)
		if err != nil {
			return nil, err
		}
		got := []string{}
		for _, c := range out.CapacityReservations {
			got = append(got, aws.ToString(c.CapacityReservationId))
		}
		return got, nil
	}
	active := filter("state", "active")
	// Karpenter's tag query: state=active, tag:K=V, MaxResults 1000.
	got, err := ids(&ec2.DescribeCapacityReservationsInput{MaxResults: aws.Int32(1000),
		Filters: []ec2types.Filter{active, filter("tag:karpenter.sh/discovery", "demo")}})
	if err != nil || !slices.Equal(got, []string{awsemu.CapacityReservationDemoM5}) {
		t.Errorf("discovery=demo, active: %v %v", got, err)
	}
	got, err = ids(&ec2.DescribeCapacityReservationsInput{Filters: []ec2types.Filter{filter("tag-key", "karpenter.sh/discovery")}})
	if err != nil || len(got) != 2 {
		t.Errorf("tag-key without state: %v %v", got, err)
	}
	got, err = ids(&ec2.DescribeCapacityReservationsInput{Filters: []ec2types.Filter{active, filter("owner-id", awsemu.AccountID),
		filter("instance-match-criteria", "targeted")}})
	if err != nil || !slices.Equal(got, []string{awsemu.CapacityReservationBlockP4d}) {
		t.Errorf("targeted: %v %v", got, err)
	}
	// Karpenter's id query: the id plus state=active.
	got, err = ids(&ec2.DescribeCapacityReservationsInput{CapacityReservationIds: []string{awsemu.CapacityReservationDemoExpired},
		Filters: []ec2types.Filter{active}})
	if err != nil || len(got) != 0 {
		t.Errorf("expired by id: %v %v", got, err)
	}
	_, err = ids(&ec2.DescribeCapacityReservationsInput{CapacityReservationIds: []string{"cr-0000000000000000f"}})
	if code := apiCode(t, err); code != "InvalidCapacityReservationId.NotFound" {
		t.Errorf("code %s", code)
	}
}

func TestIAMGetRoleAndInstanceProfile(t *testing.T) {
	e := newEnv(t, nil, awsemu.Options{}, nil)
	ctx := context.Background()
	r, err := e.IAM.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(awsemu.RoleNodeDemo)})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(r.Role.Arn) != "arn:aws:iam::123456789012:role/KarpenterNodeRole-demo" {
		t.Errorf("ARN %s", aws.ToString(r.Role.Arn))
	}
	_, err = e.IAM.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("KarpenterNodeRole-prod")})
	var nse *iamtypes.NoSuchEntityException
	if !errors.As(err, &nse) || nse.ErrorMessage() != "The role with name KarpenterNodeRole-prod cannot be found." {
		t.Errorf("missing role: %v", err)
	}
	_, err = e.IAM.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("path/name")})
	if code := apiCode(t, err); code != "ValidationError" {
		t.Errorf("a role name with a slash: %s", code)
	}
	p, err := e.IAM.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: aws.String(awsemu.InstanceProfileDemo)})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.InstanceProfile.Roles) != 1 || aws.ToString(p.InstanceProfile.Roles[0].RoleName) != awsemu.RoleNodeDemo {
		t.Errorf("roles of %s: %+v", awsemu.InstanceProfileDemo, p.InstanceProfile.Roles)
	}
	p, err = e.IAM.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: aws.String(awsemu.InstanceProfileRoleless)})
	if err != nil || len(p.InstanceProfile.Roles) != 0 {
		t.Errorf("roleless profile: %v %v", p, err)
	}
	_, err = e.IAM.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: aws.String("nope")})
	if !errors.As(err, &nse) {
		t.Errorf("missing profile: %v", err)
	}
	if st := e.Srv.Stats(); st["iam:GetRole"] != 3 || st["iam:GetInstanceProfile"] != 3 {
		t.Errorf("stats %v", st)
	}
}

// TestSTSAssumeRole: the SDK's assume-role credential provider works against
// the emulator, and an unknown role is refused as STS refuses it.
func TestSTSAssumeRole(t *testing.T) {
	e := newEnv(t, nil, awsemu.Options{}, nil)
	ctx := context.Background()
	prov := stscreds.NewAssumeRoleProvider(e.STS, "arn:aws:iam::123456789012:role/"+awsemu.RoleTerraformPlan, func(o *stscreds.AssumeRoleOptions) {
		o.RoleSessionName = "plan"
		o.Duration = 15 * time.Minute
	})
	creds, err := prov.Retrieve(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if creds.AccessKeyID == "" || creds.SessionToken == "" || !creds.Expires.Equal(testNow.Add(15*time.Minute)) {
		t.Errorf("credentials %+v", creds)
	}
	out, err := e.STS.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String("arn:aws:iam::123456789012:role/TerraformPlan"), RoleSessionName: aws.String("s")})
	if code := apiCode(t, err); code != "ValidationError" {
		t.Errorf("a one-character session name: %v %v", out, err)
	}
	_, err = e.STS.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String("arn:aws:iam::123456789012:role/Nope"), RoleSessionName: aws.String("plan")})
	if code := apiCode(t, err); code != "AccessDenied" {
		t.Errorf("unknown role: %s", code)
	}
	_, err = e.STS.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String("TerraformPlan"), RoleSessionName: aws.String("plan")})
	if code := apiCode(t, err); code != "ValidationError" {
		t.Errorf("not an ARN: %s", code)
	}
}

// TestSubnetsServedOrNot: without subnets.json DescribeSubnets answers
// NotServedCode; an empty file (or AddSubnets with nothing) answers "none".
func TestSubnetsServedOrNot(t *testing.T) {
	ctx := context.Background()
	bare := newEnv(t, &awsemu.Fixtures{}, awsemu.Options{}, nil)
	_, err := bare.EC2.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{})
	if code := apiCode(t, err); code != awsemu.NotServedCode {
		t.Errorf("no subnets.json: code %s", code)
	}
	// Not a throttle or a transient error: the SDK must not retry it.
	if retry.IsErrorRetryables(retry.DefaultRetryables).IsErrorRetryable(err) == aws.TrueTernary {
		t.Errorf("the SDK retries %v", err)
	}
	// The other kinds are just empty.
	if out, err := bare.EC2.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{}); err != nil || len(out.SecurityGroups) != 0 {
		t.Errorf("security groups without fixtures: %v %v", out, err)
	}

	f := &awsemu.Fixtures{}
	f.AddSubnets()
	empty := newEnv(t, f, awsemu.Options{}, nil)
	out, err := empty.EC2.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{})
	if err != nil || len(out.Subnets) != 0 {
		t.Errorf("empty subnets: %v %v", out, err)
	}

	dir := t.TempDir()
	loaded, err := awsemu.LoadFixtures(dir)
	if err != nil || loaded.ServesSubnets() {
		t.Fatalf("an empty directory: served %v, %v", loaded.ServesSubnets(), err)
	}
	if err := os.WriteFile(filepath.Join(dir, awsemu.SubnetsFile), []byte(`{"Subnets": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if loaded, err = awsemu.LoadFixtures(dir); err != nil || !loaded.ServesSubnets() || len(loaded.Subnets) != 0 {
		t.Fatalf("an empty subnets.json: served %v, %v", loaded.ServesSubnets(), err)
	}
	// The CLI prints trust policies as objects; both forms load.
	roles := `{"Roles": [{"RoleName": "a", "AssumeRolePolicyDocument": {"Version": "2012-10-17"}},
		{"RoleName": "b", "AssumeRolePolicyDocument": "{\"Version\":\"2012-10-17\"}"}]}`
	profiles := `{"InstanceProfiles": [{"InstanceProfileName": "p", "Roles": [{"RoleName": "a", "AssumeRolePolicyDocument": {"Version": "2012-10-17"}}]}]}`
	for name, body := range map[string]string{awsemu.RolesFile: roles, awsemu.InstanceProfilesFile: profiles} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	loaded, err = awsemu.LoadFixtures(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range []*string{loaded.Roles[0].AssumeRolePolicyDocument, loaded.Roles[1].AssumeRolePolicyDocument,
		loaded.InstanceProfiles[0].Roles[0].AssumeRolePolicyDocument} {
		if aws.ToString(doc) != `{"Version":"2012-10-17"}` {
			t.Errorf("policy document %q", aws.ToString(doc))
		}
	}
}

func TestNetworkThrottlingAndStats(t *testing.T) {
	e := newEnv(t, nil, awsemu.Options{ThrottleRate: 1}, nil)
	ctx := context.Background()
	isThrottle := retry.IsErrorThrottles(retry.DefaultThrottles)
	calls := map[string]func() error{
		"ec2:DescribeSubnets": func() error {
			_, err := e.EC2.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{})
			return err
		},
		"ec2:DescribeSecurityGroups": func() error {
			_, err := e.EC2.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{})
			return err
		},
		"ec2:DescribeInstanceTypeOfferings": func() error {
			_, err := e.EC2.DescribeInstanceTypeOfferings(ctx, &ec2.DescribeInstanceTypeOfferingsInput{})
			return err
		},
		"ec2:DescribeCapacityReservations": func() error {
			_, err := e.EC2.DescribeCapacityReservations(ctx, &ec2.DescribeCapacityReservationsInput{})
			return err
		},
		"iam:GetRole": func() error {
			_, err := e.IAM.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(awsemu.RoleNodeDemo)})
			return err
		},
		"iam:GetInstanceProfile": func() error {
			_, err := e.IAM.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: aws.String(awsemu.InstanceProfileDemo)})
			return err
		},
		"sts:AssumeRole": func() error {
			_, err := e.STS.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String("arn:aws:iam::123456789012:role/TerraformPlan"), RoleSessionName: aws.String("plan")})
			return err
		},
	}
	for name, call := range calls {
		if err := call(); isThrottle.IsErrorThrottle(err) != aws.TrueTernary {
			t.Errorf("%s: the SDK does not classify %v as throttling", name, err)
		}
	}
	st := e.Srv.Stats()
	for name := range calls {
		if st[name] != 1 {
			t.Errorf("%s counted %d times", name, st[name])
		}
	}
	if st["throttled"] != len(calls) || st["total"] != len(calls) {
		t.Errorf("stats %v", st)
	}
}

// TestUnsignedIAMRouting: an unsigned IAM request is told from EC2 and STS
// by its API version.
func TestUnsignedIAMRouting(t *testing.T) {
	e := newEnv(t, nil, awsemu.Options{}, nil)
	resp, err := http.PostForm(e.URL+"/", url.Values{"Action": {"GetInstanceProfile"}, "Version": {"2010-05-08"},
		"InstanceProfileName": {awsemu.InstanceProfileDemo}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(body), `<GetInstanceProfileResponse xmlns="https://iam.amazonaws.com/doc/2010-05-08/"><GetInstanceProfileResult><InstanceProfile>`) ||
		!strings.Contains(string(body), "<Roles><member>") {
		t.Errorf("%d %s", resp.StatusCode, body)
	}
	if got := e.Srv.Stats()["iam:GetInstanceProfile"]; got != 1 {
		t.Errorf("counted %d", got)
	}
}
