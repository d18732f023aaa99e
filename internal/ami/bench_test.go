package ami

import (
	"context"
	"testing"
	"time"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
)

// BenchmarkResolveWarmCache is the cost of one resource's AMI resolution
// once the process has asked AWS: every SSM parameter and DescribeImages
// query is in the cache, so this is SSM path building, cache lookups,
// Karpenter's ranking and the skip reasons. It fails if a lookup reaches
// the emulator.
//
//	go test ./internal/ami -run '^$' -bench . -benchmem
func BenchmarkResolveWarmCache(b *testing.B) {
	url, srv := awsemutest.Start(b)
	awsemutest.Setenv(b, url)
	cache := awsclient.NewCache(awsclient.NewClients(awsclient.Config{Region: "us-east-1", MaxRetries: 0}))
	r := &Resolver{Source: cache, Now: func() time.Time { return fixtureNow }}
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		terms []Term
	}{
		{"alias al2023", []Term{{Alias: "al2023@v20251209"}}},
		{"alias bottlerocket", []Term{{Alias: "bottlerocket@latest"}}},
		{"name self", []Term{{Name: "team-eks-node-al2023-*", Owner: "self"}}},
		{"tags and ids", []Term{{Tags: map[string]string{"team": "platform"}}, {ID: "ami-0aaf333b614a08570"}}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			req := Request{Terms: tc.terms, Kubernetes: k8s("1.32"), Karpenter: kv("1.14")}
			if _, err := r.Resolve(ctx, req); err != nil {
				b.Fatal(err)
			}
			before := srv.Stats()["total"]
			b.ReportAllocs()
			for b.Loop() {
				res, err := r.Resolve(ctx, req)
				if err != nil || len(res.AMIs) == 0 {
					b.Fatal(err, res.Findings)
				}
			}
			if after := srv.Stats()["total"]; after != before {
				b.Fatalf("%d AWS requests with a warm cache", after-before)
			}
		})
	}
}
