package awsemu_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
)

const al2023Recommended = "/aws/service/eks/optimized-ami/1.32/amazon-linux-2023/x86_64/standard/recommended/image_id"

func TestSSMGetParameter(t *testing.T) {
	e := newEnv(t, nil, awsemu.Options{}, nil)
	ctx := context.Background()
	f := defaultFixtures(t)
	latest, _ := f.Image("amazon-eks-node-al2023-x86_64-standard-1.32-" + awsemu.EKSReleaseLatest)

	out, err := e.SSM.GetParameter(ctx, &ssm.GetParameterInput{Name: aws.String(al2023Recommended)})
	if err != nil {
		t.Fatal(err)
	}
	p := out.Parameter
	if *p.Name != al2023Recommended || *p.Value != *latest.ImageId || p.Type != ssmtypes.ParameterTypeString ||
		p.Version != 2 || *p.DataType != "text" || *p.ARN != "arn:aws:ssm:us-east-1::parameter"+al2023Recommended {
		t.Errorf("parameter decoded wrongly: %+v", p)
	}
	created, _ := time.Parse(time.RFC3339, *latest.CreationDate)
	if p.LastModifiedDate == nil || !p.LastModifiedDate.After(created) || p.LastModifiedDate.Sub(created) > 3*time.Hour {
		t.Errorf("LastModifiedDate %v, want shortly after the image's creation %v", p.LastModifiedDate, created)
	}

	// Karpenter's ssmParameter may be an ARN.
	byARN, err := e.SSM.GetParameter(ctx, &ssm.GetParameterInput{Name: p.ARN})
	if err != nil || *byARN.Parameter.Value != *p.Value {
		t.Errorf("by ARN: %v %v", byARN, err)
	}

	// Absent: the typed error the SSM client registers.
	_, err = e.SSM.GetParameter(ctx, &ssm.GetParameterInput{Name: aws.String("/aws/service/eks/optimized-ami/1.33/amazon-linux-2/recommended/image_id")})
	var nf *ssmtypes.ParameterNotFound
	if !errors.As(err, &nf) {
		t.Errorf("want ParameterNotFound, got %v", err)
	}
}

func TestSSMGetParameters(t *testing.T) {
	e := newEnv(t, nil, awsemu.Options{}, nil)
	ctx := context.Background()
	missing := "/aws/service/eks/optimized-ami/1.32/amazon-linux-2023/arm64/neuron/recommended/image_id"
	out, err := e.SSM.GetParameters(ctx, &ssm.GetParametersInput{Names: []string{
		al2023Recommended, awsemu.ParamCustomX86, missing, awsemu.ParamCustomNotAMI,
	}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range out.Parameters {
		got = append(got, *p.Name+"="+*p.Value)
	}
	slices.Sort(got)
	if len(got) != 3 || !strings.Contains(strings.Join(got, " "), awsemu.ParamCustomX86+"="+awsemu.CustomAvailableOldID) {
		t.Errorf("parameters %v", got)
	}
	if !slices.Equal(out.InvalidParameters, []string{missing}) {
		t.Errorf("InvalidParameters %v, want [%s]", out.InvalidParameters, missing)
	}

	var eleven []string
	for i := range 11 {
		eleven = append(eleven, fmt.Sprintf("/p/%d", i))
	}
	_, err = e.SSM.GetParameters(ctx, &ssm.GetParametersInput{Names: eleven})
	if code := apiCode(t, err); code != "ValidationException" {
		t.Errorf("11 names: code %s, want ValidationException", code)
	}
}

// AWS answers a version or label selector ("name:3", "name:prod") with the
// parameter under its plain name, Selector ":3" and that version's Version
// and Value; an unknown version is ParameterVersionNotFound, an unknown label
// ParameterNotFound, and GetParameters lists either as invalid.
func TestSSMSelectors(t *testing.T) {
	e := newEnv(t, nil, awsemu.Options{}, nil)
	ctx := context.Background()
	f := defaultFixtures(t)
	older, _ := f.Image("amazon-eks-node-al2023-x86_64-standard-1.32-" + awsemu.EKSReleaseOlder)
	latest, _ := f.Image("amazon-eks-node-al2023-x86_64-standard-1.32-" + awsemu.EKSReleaseLatest)
	arm64, _ := f.Parameter(awsemu.ParamCustomArm64)

	for _, c := range []struct {
		asked, name, selector, value string
		version                      int64
	}{
		{al2023Recommended + ":1", al2023Recommended, ":1", *older.ImageId, 1},
		{al2023Recommended + ":2", al2023Recommended, ":2", *latest.ImageId, 2},
		{"arn:aws:ssm:us-east-1::parameter" + al2023Recommended + ":1", al2023Recommended, ":1", *older.ImageId, 1},
		{awsemu.ParamCustomX86 + ":prod", awsemu.ParamCustomX86, ":prod", awsemu.CustomAvailableOldID, 2},
		{awsemu.ParamCustomX86 + ":rollback", awsemu.ParamCustomX86, ":rollback", awsemu.CustomDeregisteredID, 1},
		{awsemu.ParamCustomX86 + ":1", awsemu.ParamCustomX86, ":1", awsemu.CustomDeregisteredID, 1},
		// No history: the one version is 1.
		{awsemu.ParamCustomArm64 + ":1", awsemu.ParamCustomArm64, ":1", *arm64.Value, 1},
	} {
		out, err := e.SSM.GetParameter(ctx, ssmGet(c.asked))
		if err != nil {
			t.Errorf("GetParameter(%s): %v", c.asked, err)
			continue
		}
		p := out.Parameter
		if aws.ToString(p.Name) != c.name || aws.ToString(p.Selector) != c.selector || aws.ToString(p.Value) != c.value || p.Version != c.version {
			t.Errorf("GetParameter(%s) = Name %q Selector %q Value %q Version %d, want %q %q %q %d", c.asked,
				aws.ToString(p.Name), aws.ToString(p.Selector), aws.ToString(p.Value), p.Version, c.name, c.selector, c.value, c.version)
		}
		account := awsemu.AccountID
		if strings.HasPrefix(c.name, "/aws/") {
			account = "" // public parameters
		}
		if want := "arn:aws:ssm:us-east-1:" + account + ":parameter" + c.name; aws.ToString(p.ARN) != want {
			t.Errorf("GetParameter(%s): ARN %s, want %s (of the plain name)", c.asked, aws.ToString(p.ARN), want)
		}
	}
	plain, err := e.SSM.GetParameter(ctx, ssmGet(awsemu.ParamCustomX86))
	if err != nil || plain.Parameter.Selector != nil || plain.Parameter.Version != 2 || *plain.Parameter.Value != awsemu.CustomAvailableOldID {
		t.Errorf("plain name: %+v %v; want version 2 without Selector", plain, err)
	}

	for _, c := range []struct{ asked, code string }{
		{al2023Recommended + ":3", "ParameterVersionNotFound"},
		{awsemu.ParamCustomArm64 + ":2", "ParameterVersionNotFound"},
		{awsemu.ParamCustomArm64 + ":0", "ParameterVersionNotFound"},
		{awsemu.ParamCustomX86 + ":staging", "ParameterNotFound"},
		{awsemu.ParamCustomX86 + ":", "ParameterNotFound"},
		{awsemu.ParamCustomX86 + ":prod:1", "ParameterNotFound"},
		{"/no/such/parameter:1", "ParameterNotFound"},
	} {
		_, err := e.SSM.GetParameter(ctx, ssmGet(c.asked))
		if code := apiCode(t, err); code != c.code {
			t.Errorf("GetParameter(%s): %s, want %s", c.asked, code, c.code)
		}
	}
	var vnf *ssmtypes.ParameterVersionNotFound
	if _, err := e.SSM.GetParameter(ctx, ssmGet(al2023Recommended+":3")); !errors.As(err, &vnf) {
		t.Errorf("want the SDK's ParameterVersionNotFound, got %v", err)
	}

	// GetParameters: found ones with their Selector, the rest invalid as asked.
	asked := []string{al2023Recommended + ":1", al2023Recommended, awsemu.ParamCustomX86 + ":rollback",
		al2023Recommended + ":9", awsemu.ParamCustomX86 + ":staging", "/no/such/parameter:1"}
	out, err := e.SSM.GetParameters(ctx, &ssm.GetParametersInput{Names: asked})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range out.Parameters {
		got = append(got, fmt.Sprintf("%s%s=%s v%d", *p.Name, aws.ToString(p.Selector), *p.Value, p.Version))
	}
	slices.Sort(got)
	want := []string{
		awsemu.ParamCustomX86 + ":rollback=" + awsemu.CustomDeregisteredID + " v1",
		al2023Recommended + "=" + *latest.ImageId + " v2",
		al2023Recommended + ":1=" + *older.ImageId + " v1",
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("GetParameters found %v, want %v", got, want)
	}
	if !slices.Equal(out.InvalidParameters, asked[3:]) {
		t.Errorf("InvalidParameters %v, want %v", out.InvalidParameters, asked[3:])
	}
}

// Fixtures built in Go: history entries add versions and labels; the
// Parameters entry is the current version.
func TestSSMSelectorsFromGoFixtures(t *testing.T) {
	f := &awsemu.Fixtures{}
	f.AddParameters(ssmtypes.Parameter{Name: aws.String("/team/ami"), Value: aws.String("ami-3"), Version: 3})
	f.AddParameterHistory(
		ssmtypes.ParameterHistory{Name: aws.String("/team/ami"), Value: aws.String("ami-1"), Version: 1, Labels: []string{"old"}},
		ssmtypes.ParameterHistory{Name: aws.String("/team/ami"), Value: aws.String("ami-2"), Version: 2},
		ssmtypes.ParameterHistory{Name: aws.String("/team/ami"), Value: aws.String("stale"), Version: 3, Labels: []string{"prod"}},
	)
	e := newEnv(t, f, awsemu.Options{}, nil)
	ctx := context.Background()
	for asked, want := range map[string]string{
		"/team/ami": "ami-3 v3", "/team/ami:1": "ami-1 v1", "/team/ami:2": "ami-2 v2", "/team/ami:3": "ami-3 v3",
		"/team/ami:old": "ami-1 v1", "/team/ami:prod": "ami-3 v3",
	} {
		out, err := e.SSM.GetParameter(ctx, ssmGet(asked))
		if err != nil {
			t.Errorf("%s: %v", asked, err)
			continue
		}
		if got := fmt.Sprintf("%s v%d", *out.Parameter.Value, out.Parameter.Version); got != want {
			t.Errorf("%s: %s, want %s", asked, got, want)
		}
		if p := out.Parameter; p.Type != ssmtypes.ParameterTypeString || *p.DataType != "text" ||
			*p.ARN != "arn:aws:ssm:us-east-1:"+awsemu.AccountID+":parameter/team/ami" {
			t.Errorf("%s: defaults not filled: %+v", asked, p)
		}
	}
}

func TestEKSDescribeCluster(t *testing.T) {
	e := newEnv(t, nil, awsemu.Options{}, nil)
	ctx := context.Background()
	out, err := e.EKS.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String(awsemu.ClusterDemo)})
	if err != nil {
		t.Fatal(err)
	}
	c := out.Cluster
	ca, err := base64.StdEncoding.DecodeString(aws.ToString(c.CertificateAuthority.Data))
	if err != nil || !strings.HasPrefix(string(ca), "-----BEGIN CERTIFICATE-----") {
		t.Errorf("CA %q does not decode to a PEM certificate: %v", ca, err)
	}
	if *c.Name != "demo" || *c.Version != "1.32" || c.Status != ekstypes.ClusterStatusActive ||
		*c.Arn != "arn:aws:eks:us-east-1:123456789012:cluster/demo" ||
		!strings.HasSuffix(*c.Endpoint, ".gr7.us-east-1.eks.amazonaws.com") ||
		*c.KubernetesNetworkConfig.ServiceIpv4Cidr != "172.20.0.0/16" || c.KubernetesNetworkConfig.IpFamily != ekstypes.IpFamilyIpv4 ||
		!c.CreatedAt.Equal(time.Date(2025, 3, 14, 9, 12, 0, 0, time.UTC)) {
		t.Errorf("demo decoded wrongly: %+v", c)
	}

	v6, err := e.EKS.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String(awsemu.ClusterIPv6)})
	if err != nil {
		t.Fatal(err)
	}
	if n := v6.Cluster.KubernetesNetworkConfig; n.IpFamily != ekstypes.IpFamilyIpv6 || *n.ServiceIpv6Cidr != "fd00:10:96::/112" || n.ServiceIpv4Cidr != nil {
		t.Errorf("v6 network config %+v", n)
	}
	modern, err := e.EKS.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String(awsemu.ClusterModern)})
	if err != nil || *modern.Cluster.Version != "1.35" || *modern.Cluster.KubernetesNetworkConfig.ServiceIpv4Cidr != "10.100.0.0/16" {
		t.Errorf("modern: %+v %v", modern, err)
	}

	_, err = e.EKS.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String("nope")})
	var nf *ekstypes.ResourceNotFoundException
	if !errors.As(err, &nf) {
		t.Errorf("want ResourceNotFoundException, got %v", err)
	}
}

func TestSTSGetCallerIdentity(t *testing.T) {
	e := newEnv(t, nil, awsemu.Options{}, nil)
	out, err := e.STS.GetCallerIdentity(context.Background(), &sts.GetCallerIdentityInput{})
	if err != nil {
		t.Fatal(err)
	}
	if *out.Account != awsemu.AccountID || *out.Arn != "arn:aws:iam::123456789012:user/awsemu" || *out.UserId != awsemu.CallerUserID {
		t.Errorf("identity %+v", out)
	}
	// Another account id is reported when configured.
	e2 := newEnv(t, nil, awsemu.Options{AccountID: "210987654321"}, nil)
	out, err = e2.STS.GetCallerIdentity(context.Background(), &sts.GetCallerIdentityInput{})
	if err != nil || *out.Account != "210987654321" {
		t.Errorf("custom account: %+v %v", out, err)
	}
}
