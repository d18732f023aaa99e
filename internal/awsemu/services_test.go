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
