package awsclient_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/smithy-go"

	. "github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
)

// A request AWS keeps throttling fails after the configured retries with
// the throttling error, and the failure is remembered: nobody waits for it
// again in the same run.
func TestThrottledRequestFailsAndIsCached(t *testing.T) {
	url, srv := awsemutest.Start(t, awsemu.Options{ThrottleRate: 1})
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	c := NewCache(NewClients(Config{Region: "us-east-1", MaxRetries: 2, Endpoints: Endpoints{SSM: url, EC2: url}}))
	start := time.Now()
	_, err := c.GetParameters(context.Background(), []string{"/a"})
	elapsed := time.Since(start)
	var api smithy.APIError
	if !errors.As(err, &api) || api.ErrorCode() != "ThrottlingException" || !strings.Contains(err.Error(), "ssm:GetParameters") {
		t.Fatalf("err = %v, want the throttling error of ssm:GetParameters", err)
	}
	if got := srv.Stats()["ssm:GetParameters"]; got != 3 {
		t.Errorf("%d requests, want 3 (1 + 2 retries)", got)
	}
	if elapsed > 2*MaxBackoff+2*time.Second {
		t.Errorf("took %s", elapsed)
	}
	if _, err2 := c.GetParameters(context.Background(), []string{"/a"}); err2 == nil || srv.Stats()["ssm:GetParameters"] != 3 {
		t.Errorf("second call: %v, %d requests; want the cached error and no request", err2, srv.Stats()["ssm:GetParameters"])
	}
}

// With 30% of requests throttled, every query still gets its answer, each
// distinct one succeeds exactly once, and the retries stay few.
func TestPartlyThrottledQueriesSucceedOnce(t *testing.T) {
	url, srv := awsemutest.Start(t, awsemu.Options{ThrottleRate: 0.3, Seed: 3})
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	c := NewCache(NewClients(Config{Region: "us-east-1", MaxRetries: -1, Endpoints: Endpoints{SSM: url, EC2: url, EKS: url}}))
	ctx := context.Background()
	names := []string{
		"/aws/service/eks/optimized-ami/1.32/amazon-linux-2023/x86_64/standard/recommended/image_id",
		"/aws/service/eks/optimized-ami/1.32/amazon-linux-2023/arm64/standard/recommended/image_id",
	}
	for range 3 {
		ps, err := c.GetParameters(ctx, names)
		if err != nil || !ps[names[0]].Found || !ps[names[1]].Found {
			t.Fatalf("GetParameters: %v %v", ps, err)
		}
		imgs, err := c.DescribeImages(ctx, ImageQuery{Owners: []string{"amazon"}, Filters: []Filter{{Name: "name", Values: []string{"amazon-eks-node-al2023-*"}}}})
		if err != nil || len(imgs) == 0 {
			t.Fatalf("DescribeImages: %d images, %v", len(imgs), err)
		}
		if _, err := c.DescribeInstanceTypes(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := c.DescribeCluster(ctx, "demo"); err != nil {
			t.Fatal(err)
		}
	}
	st := srv.Stats()
	if ok := st["total"] - st["throttled"]; ok != 4 {
		t.Errorf("%d answered requests, want 4 (one per distinct query): %v", ok, st)
	}
	if st["throttled"] > 8 {
		t.Errorf("%d throttled requests retried for 4 queries: %v", st["throttled"], st)
	}
}
