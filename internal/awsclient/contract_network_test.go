package awsclient_test

// Contract test of the readiness reads: the same selector terms and IAM
// lookups, asked through awsclient.Cache, of moto_server and of the
// project's emulator seeded with what moto holds. Skipped like
// TestContractMotoVersusEmulator when moto_server is missing.
//
// Seeding. moto gets a VPC with two subnets, a third subnet with the
// selector's tag key only, security groups (one whose Name tag differs from
// its group name), a role and two instance profiles through the real SDK.
// moto also has its own default VPC, default subnets and default groups;
// the emulator is seeded with every subnet, group and zone offering moto then
// describes (N1: ids, free addresses, zone ids are moto's), and with the
// roles and profiles read back by name.
//
// Compared: SelectSubnets and SelectSecurityGroups (every field awsclient
// reads, per term and in Karpenter's order) for tags terms (a value, "*",
// a wildcard value, a term matching nothing), id terms (with an unknown id)
// and name terms ("default" is in both VPCs; a name that is only a Name
// tag, with the Name-tag query that follows); GetRole and
// GetInstanceProfile (found, without a role, missing); OfferingsByZone.
// DescribeCapacityReservations is not compared: moto 5.2.1 does not serve
// it (probed, logged).

import (
	"context"
	"net/url"
	"reflect"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
)

func TestContractNetworkMotoVersusEmulator(t *testing.T) {
	if testing.Short() {
		t.Skip("contract test against moto_server skipped in -short mode")
	}
	start := time.Now()
	motoURL := startMoto(t)
	dir := t.TempDir()
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test", "AWS_SESSION_TOKEN": "", "AWS_PROFILE": "",
		"AWS_DEFAULT_PROFILE": "", "AWS_CONFIG_FILE": dir + "/config", "AWS_SHARED_CREDENTIALS_FILE": dir + "/credentials",
		"AWS_EC2_METADATA_DISABLED": "true", "AWS_REGION": "us-east-1",
	} {
		t.Setenv(k, v)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	cfg := aws.Config{
		Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""),
		BaseEndpoint: aws.String(motoURL), RetryMaxAttempts: 3,
		APIOptions: []func(*middleware.Stack) error{awsclient.AvoidBodyRace},
	}
	motoEC2, motoIAM := ec2.NewFromConfig(cfg), iam.NewFromConfig(cfg)
	ids := seedMotoNetwork(ctx, t, motoEC2, motoIAM)
	fixtures := readBackNetwork(ctx, t, motoEC2, motoIAM)
	emuURL, _ := awsemutest.StartWith(t, fixtures)

	newCache := func(url string) *awsclient.Cache {
		return awsclient.NewCache(awsclient.NewClients(awsclient.Config{
			Region: "us-east-1", Endpoints: awsclient.Endpoints{EC2: url, IAM: url}, MaxRetries: 2,
		}))
	}
	moto, emu := newCache(motoURL), newCache(emuURL)
	same := func(t *testing.T, what string, get func(*awsclient.Cache) (any, error)) any {
		t.Helper()
		m, err := get(moto)
		if err != nil {
			t.Fatalf("%s from moto: %v", what, err)
		}
		e, err := get(emu)
		if err != nil {
			t.Fatalf("%s from the emulator: %v", what, err)
		}
		if !reflect.DeepEqual(m, e) {
			t.Errorf("%s differs:\nmoto     %s\nemulator %s", what, jsonString(m), jsonString(e))
		}
		return m
	}

	t.Run("SelectSubnets", func(t *testing.T) {
		for name, tc := range map[string]struct {
			terms []awsclient.SubnetTerm
			n     int // subnets matched (the comparison is only as good as the data)
		}{
			"tag value":        {[]awsclient.SubnetTerm{{Tags: map[string]string{"karpenter.sh/discovery": "kt"}}}, 2},
			"tag value and *":  {[]awsclient.SubnetTerm{{Tags: map[string]string{"karpenter.sh/discovery": "kt", "tier": "*"}}}, 1},
			"wildcard value":   {[]awsclient.SubnetTerm{{Tags: map[string]string{"Name": "kt-*"}}}, 2},
			"ids, one unknown": {[]awsclient.SubnetTerm{{ID: ids["subnet-a"]}, {ID: "subnet-0000000000000000f"}, {ID: ids["subnet-b"]}}, 2},
			"terms ORed, one matching nothing": {[]awsclient.SubnetTerm{{Tags: map[string]string{"karpenter.sh/discovery": "kt"}},
				{Tags: map[string]string{"karpenter.sh/discovery": "nope"}}, {ID: ids["subnet-other"]}}, 3},
		} {
			t.Run(name, func(t *testing.T) {
				got := same(t, name, func(c *awsclient.Cache) (any, error) {
					sel, err := c.SelectSubnets(ctx, tc.terms)
					return sel, err
				})
				if n := len(got.(awsclient.Selection[awsclient.Subnet]).All); n != tc.n {
					t.Errorf("moto matched %d subnets, want %d", n, tc.n)
				}
			})
		}
	})
	t.Run("SelectSecurityGroups", func(t *testing.T) {
		for name, tc := range map[string]struct {
			terms    []awsclient.SecurityGroupTerm
			n, byTag int // groups matched, groups found by Name tag
		}{
			"tag value":                 {[]awsclient.SecurityGroupTerm{{Tags: map[string]string{"karpenter.sh/discovery": "kt"}}}, 1, 0},
			"name in both VPCs":         {[]awsclient.SecurityGroupTerm{{Name: "default"}}, 2, 0},
			"name that is only the tag": {[]awsclient.SecurityGroupTerm{{Name: "kt-extra"}, {Name: "kt-node"}}, 1, 1},
			"ids, one unknown":          {[]awsclient.SecurityGroupTerm{{ID: ids["sg-node"]}, {ID: "sg-0000000000000000f"}}, 1, 0},
			"tag-key":                   {[]awsclient.SecurityGroupTerm{{Tags: map[string]string{"team": "*"}}}, 1, 0},
		} {
			t.Run(name, func(t *testing.T) {
				got := same(t, name, func(c *awsclient.Cache) (any, error) {
					sel, err := c.SelectSecurityGroups(ctx, tc.terms)
					return sel, err
				}).(awsclient.SecurityGroupSelection)
				if len(got.All) != tc.n || len(got.NameTagMatches[0]) != tc.byTag {
					t.Errorf("moto matched %d groups (%d by Name tag), want %d (%d)", len(got.All), len(got.NameTagMatches[0]), tc.n, tc.byTag)
				}
			})
		}
	})
	t.Run("IAM", func(t *testing.T) {
		for _, name := range []string{"kt-node-role", "kt-missing-role"} {
			same(t, "role "+name, func(c *awsclient.Cache) (any, error) { return c.GetRole(ctx, name) })
		}
		for _, name := range []string{"kt-node-profile", "kt-empty-profile", "kt-missing-profile"} {
			same(t, "instance profile "+name, func(c *awsclient.Cache) (any, error) { return c.GetInstanceProfile(ctx, name) })
		}
	})
	t.Run("OfferingsByZone", func(t *testing.T) {
		same(t, "offerings", func(c *awsclient.Cache) (any, error) { return c.OfferingsByZone(ctx) })
	})
	t.Run("moto limitations", func(t *testing.T) {
		once := cfg.Copy()
		once.RetryMaxAttempts = 1
		_, err := ec2.NewFromConfig(once).DescribeCapacityReservations(ctx, &ec2.DescribeCapacityReservationsInput{})
		t.Logf("moto DescribeCapacityReservations: %v (code %q); the emulator serves it", err, apiCode(err))
	})
	t.Logf("network contract test took %s", time.Since(start).Round(time.Millisecond))
}

// seedMotoNetwork creates the contract's network and IAM objects in moto and
// returns their ids by key.
func seedMotoNetwork(ctx context.Context, t *testing.T, c *ec2.Client, ic *iam.Client) map[string]string {
	t.Helper()
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("seeding moto: %s: %v", what, err)
		}
	}
	tags := func(kind ec2types.ResourceType, m map[string]string) []ec2types.TagSpecification {
		return []ec2types.TagSpecification{{ResourceType: kind, Tags: sdkTags(m)}}
	}
	ids := map[string]string{}
	vpc, err := c.CreateVpc(ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.0.0.0/16"),
		TagSpecifications: tags(ec2types.ResourceTypeVpc, map[string]string{"Name": "kt"})})
	must("CreateVpc", err)
	vpcID := aws.ToString(vpc.Vpc.VpcId)
	for _, s := range []struct {
		key, zone, cidr string
		tags            map[string]string
	}{
		{"subnet-a", "us-east-1a", "10.0.0.0/24", map[string]string{"Name": "kt-a", "karpenter.sh/discovery": "kt", "tier": "private"}},
		{"subnet-b", "us-east-1b", "10.0.1.0/25", map[string]string{"Name": "kt-b", "karpenter.sh/discovery": "kt"}},
		{"subnet-other", "us-east-1c", "10.0.2.0/28", map[string]string{"Name": "other", "tier": "isolated"}},
	} {
		out, err := c.CreateSubnet(ctx, &ec2.CreateSubnetInput{VpcId: aws.String(vpcID), CidrBlock: aws.String(s.cidr),
			AvailabilityZone: aws.String(s.zone), TagSpecifications: tags(ec2types.ResourceTypeSubnet, s.tags)})
		must("CreateSubnet "+s.key, err)
		ids[s.key] = aws.ToString(out.Subnet.SubnetId)
	}
	for _, g := range []struct {
		key, name string
		tags      map[string]string
	}{
		{"sg-node", "kt-node", map[string]string{"Name": "kt-node", "karpenter.sh/discovery": "kt"}},
		{"sg-extra", "terraform-20251114093512345600000001", map[string]string{"Name": "kt-extra", "team": "platform"}},
	} {
		out, err := c.CreateSecurityGroup(ctx, &ec2.CreateSecurityGroupInput{GroupName: aws.String(g.name),
			Description: aws.String("contract " + g.key), VpcId: aws.String(vpcID),
			TagSpecifications: tags(ec2types.ResourceTypeSecurityGroup, g.tags)})
		must("CreateSecurityGroup "+g.key, err)
		ids[g.key] = aws.ToString(out.GroupId)
	}
	trust := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"ec2.amazonaws.com"},"Action":"sts:AssumeRole"}]}`
	_, err = ic.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("kt-node-role"), AssumeRolePolicyDocument: aws.String(trust)})
	must("CreateRole", err)
	for _, p := range []string{"kt-node-profile", "kt-empty-profile"} {
		_, err = ic.CreateInstanceProfile(ctx, &iam.CreateInstanceProfileInput{InstanceProfileName: aws.String(p)})
		must("CreateInstanceProfile "+p, err)
	}
	_, err = ic.AddRoleToInstanceProfile(ctx, &iam.AddRoleToInstanceProfileInput{
		InstanceProfileName: aws.String("kt-node-profile"), RoleName: aws.String("kt-node-role")})
	must("AddRoleToInstanceProfile", err)
	return ids
}

// readBackNetwork builds the emulator's fixtures from everything moto
// describes (N1).
func readBackNetwork(ctx context.Context, t *testing.T, c *ec2.Client, ic *iam.Client) *awsemu.Fixtures {
	t.Helper()
	f := &awsemu.Fixtures{}
	subnets, err := c.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{})
	if err != nil {
		t.Fatal(err)
	}
	f.AddSubnets(subnets.Subnets...)
	groups, err := c.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{})
	if err != nil {
		t.Fatal(err)
	}
	f.AddSecurityGroups(groups.SecurityGroups...)
	in := &ec2.DescribeInstanceTypeOfferingsInput{LocationType: ec2types.LocationTypeAvailabilityZone}
	for {
		page, err := c.DescribeInstanceTypeOfferings(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		f.AddInstanceTypeOfferings(page.InstanceTypeOfferings...)
		if aws.ToString(page.NextToken) == "" {
			break
		}
		in.NextToken = page.NextToken
	}
	decoded := func(r iamtypes.Role) iamtypes.Role {
		// IAM sends the document URL-encoded; the fixtures hold it plain.
		if doc, err := url.QueryUnescape(aws.ToString(r.AssumeRolePolicyDocument)); err == nil {
			r.AssumeRolePolicyDocument = &doc
		}
		return r
	}
	role, err := ic.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("kt-node-role")})
	if err != nil {
		t.Fatal(err)
	}
	f.AddRoles(decoded(*role.Role))
	for _, name := range []string{"kt-node-profile", "kt-empty-profile"} {
		p, err := ic.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: aws.String(name)})
		if err != nil {
			t.Fatal(err)
		}
		for i := range p.InstanceProfile.Roles {
			p.InstanceProfile.Roles[i] = decoded(p.InstanceProfile.Roles[i])
		}
		f.AddInstanceProfiles(*p.InstanceProfile)
	}
	t.Logf("moto holds %d subnets, %d security groups, %d zone offerings", len(f.Subnets), len(f.SecurityGroups), len(f.InstanceTypeOfferings))
	return f
}
