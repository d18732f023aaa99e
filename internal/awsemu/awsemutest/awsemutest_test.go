package awsemutest_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go/middleware"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
)

// TestEnvDrivesDefaultConfig: the environment from Env is all
// config.LoadDefaultConfig needs to reach the emulator for every service.
func TestEnvDrivesDefaultConfig(t *testing.T) {
	url, srv := awsemutest.Start(t)
	awsemutest.Setenv(t, url)
	t.Setenv("AWS_CONFIG_FILE", t.TempDir()+"/none")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", t.TempDir()+"/none")
	t.Setenv("AWS_PROFILE", "")
	ctx := context.Background()
	// The API option only makes the request counts below exact.
	cfg, err := config.LoadDefaultConfig(ctx, config.WithAPIOptions([]func(*middleware.Stack) error{awsemutest.AvoidSDKBodyRace}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ec2.NewFromConfig(cfg).DescribeInstanceTypes(ctx, &ec2.DescribeInstanceTypesInput{}); err != nil {
		t.Error(err)
	}
	if _, err := ssm.NewFromConfig(cfg).GetParameter(ctx, &ssm.GetParameterInput{Name: aws.String(awsemu.ParamCustomX86)}); err != nil {
		t.Error(err)
	}
	if _, err := eks.NewFromConfig(cfg).DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String(awsemu.ClusterDemo)}); err != nil {
		t.Error(err)
	}
	id, err := sts.NewFromConfig(cfg).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil || *id.Account != awsemu.AccountID {
		t.Errorf("%v %v", id, err)
	}
	// IAM is global: AWS_ENDPOINT_URL_IAM still applies.
	if _, err := iam.NewFromConfig(cfg).GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(awsemu.RoleNodeDemo)}); err != nil {
		t.Error(err)
	}
	st := srv.Stats()
	for _, k := range []string{"ec2:DescribeInstanceTypes", "ssm:GetParameter", "eks:DescribeCluster", "sts:GetCallerIdentity", "iam:GetRole"} {
		if st[k] != 1 {
			t.Errorf("%s = %d, want 1 (%v)", k, st[k], st)
		}
	}
}

func TestConfigAndStartWith(t *testing.T) {
	f, err := awsemu.DefaultFixtures()
	if err != nil {
		t.Fatal(err)
	}
	f.Clusters = nil
	url, _ := awsemutest.StartWith(t, f, awsemu.Options{AccountID: "111122223333"})
	cfg := awsemutest.Config(url)
	ctx := context.Background()
	id, err := sts.NewFromConfig(cfg).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil || *id.Account != "111122223333" {
		t.Errorf("%v %v", id, err)
	}
	if _, err := eks.NewFromConfig(cfg).DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String(awsemu.ClusterDemo)}); err == nil {
		t.Error("clusters were removed from the fixtures")
	}
}

// TestAvoidSDKBodyRace: against a server that answers instantly with a large
// body, fresh connections with the option never fail (without it, a few
// percent fail with "use of closed network connection").
func TestAvoidSDKBodyRace(t *testing.T) {
	body := []byte(`<?xml version="1.0" encoding="UTF-8"?><DescribeImagesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><imagesSet>` +
		strings.Repeat(`<item><name>x</name><description>`+strings.Repeat("d", 200)+`</description></item>`, 250) +
		`</imagesSet></DescribeImagesResponse>`)
	for i := range 150 {
		hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			_, _ = w.Write(body)
		}))
		cfg := awsemutest.Config(hs.URL)
		cfg.Retryer = func() aws.Retryer { return aws.NopRetryer{} }
		_, err := ec2.NewFromConfig(cfg).DescribeImages(context.Background(), &ec2.DescribeImagesInput{})
		hs.Close()
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
}
