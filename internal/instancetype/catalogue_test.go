package instancetype

import (
	"context"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
)

func clearAWSEnv(t *testing.T) {
	for _, k := range []string{"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_EC2"} {
		t.Setenv(k, "")
	}
}

func TestLoadChoosesTheSource(t *testing.T) {
	clearAWSEnv(t)
	ctx := context.Background()

	cat, err := Load(ctx, awsclient.NewCache(awsclient.NewClients(awsclient.Config{MaxRetries: -1})))
	if err != nil || cat.Source != SourceEmbedded || !strings.Contains(cat.Note, "AWS is not configured") {
		t.Fatalf("unconfigured: %v %v %q", err, cat.Source, cat.Note)
	}

	cat, err = Load(ctx, awsclient.NewCache(awsclient.NewClients(awsclient.Config{Unknown: []string{"region"}})))
	if err != nil || cat.Source != SourceEmbedded || !strings.Contains(cat.Note, "not known yet") {
		t.Fatalf("unknown config: %v %v %q", err, cat.Source, cat.Note)
	}
	if Embedded().Note != "" {
		t.Fatal("notes must not leak into the shared embedded catalogue")
	}

	url, emu := awsemutest.Start(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	cache := awsclient.NewCache(awsclient.NewClients(awsclient.Config{Region: "us-east-1", Endpoints: awsclient.Endpoints{EC2: url}, MaxRetries: 0}))
	cat, err = Load(ctx, cache)
	if err != nil || cat.Source != SourceLive {
		t.Fatalf("live: %v %v", err, cat)
	}
	if _, ok := cat.Type("g5g.xlarge"); !ok {
		t.Error("g5g.xlarge missing from the live catalogue")
	}
	again, _ := Load(ctx, cache)
	if again != cat || emu.Stats()["ec2:DescribeInstanceTypes"] == 0 {
		t.Error("the live catalogue is built once per provider cache")
	}

	// Configured but unreachable: an error, not a silent fallback.
	bad := awsclient.NewCache(awsclient.NewClients(awsclient.Config{Region: "us-east-1", Endpoints: awsclient.Endpoints{EC2: "http://127.0.0.1:1"}, MaxRetries: 0}))
	if _, err := Load(ctx, bad); err == nil {
		t.Error("an unreachable endpoint must be reported")
	}
}
