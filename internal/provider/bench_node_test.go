package provider

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
)

// nodeBenchTypes are fixture types a general-purpose AL2023 pool admits
// (amd64 and arm64, GPU, Neuron, EFA, instance stores; g4ad.xlarge
// would add a warning: the NVIDIA image for an AMD GPU).
var nodeBenchTypes = []string{"m5.large", "m5.xlarge", "c5.large", "t3.micro", "m7i-flex.large", "m6g.large", "m6g.xlarge",
	"c7g.large", "t4g.medium", "r6g.large", "x2gd.large", "g5.xlarge", "g5g.xlarge", "g4dn.xlarge",
	"p4d.24xlarge", "inf1.xlarge", "inf2.xlarge", "trn1.2xlarge", "m5.metal", "c6g.metal", "m1.small", "u7i-12tb.224xlarge"}

// offeredInEveryZone: the bench types the emulator offers in each zone of
// the class's subnets (the others are asked without a zone).
var offeredInEveryZone = map[string]bool{"m5.large": true, "m5.xlarge": true, "c5.large": true, "t3.micro": true, "m7i-flex.large": true,
	"m6g.large": true, "m6g.xlarge": true, "c7g.large": true, "t4g.medium": true, "r6g.large": true, "g5.xlarge": true, "g5g.xlarge": true,
	"g4dn.xlarge": true, "inf1.xlarge": true, "inf2.xlarge": true, "m5.metal": true, "c6g.metal": true}

// nodeBenchRequests are n data sources of one pool and class, over the
// bench types and the zones (none, then each of the class's).
func nodeBenchRequests(b *testing.B, typ fuzzSchema, n int, op int) []tfprotov6.DynamicValue {
	b.Helper()
	zones := []any{nil, "us-east-1a", "us-east-1b", "us-east-1c"}
	// A comment unique to the operation: a fresh process has checked no
	// manifest yet (the checks are remembered per process).
	pool, class := nodePoolYAML("general", "")+fmt.Sprintf("# %d\n", op), nodeClassYAML("al2023@latest", "")
	out := make([]tfprotov6.DynamicValue, 0, n)
	vt := typ.schema.ValueType()
	for i := range n {
		t, zone := nodeBenchTypes[i%len(nodeBenchTypes)], zones[(i/len(nodeBenchTypes))%len(zones)]
		if !offeredInEveryZone[t] {
			zone = nil
		}
		v := tfValue(b, vt, map[string]any{"node_pool": pool, "node_class": class, "instance_type": t, "zone": zone})
		out = append(out, dynamicValue(b, vt, v))
	}
	return out
}

// BenchmarkNodeDataSource is one karpenter_node read through the protocol
// server (the framework's conversions included) on a configured provider
// whose caches are warm: what each further data source of a plan costs.
// Plan100 is what a plan of 100 data sources (one pool and class, 23
// instance types × 4 zone choices) costs the provider process: a fresh
// configured server per operation (cold caches: the region's instance
// types, the images, subnets and offerings read once from the emulator),
// then for each data source ValidateDataResourceConfig and
// ReadDataSource, as Terraform sends them.
func BenchmarkNodeDataSource(b *testing.B) {
	url, _ := awsemutest.Start(b)
	for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test", "AWS_EC2_METADATA_DISABLED": "true"} {
		b.Setenv(k, v)
	}
	ctx := context.Background()
	srv, schemas := fuzzServer(b, url)
	reqs := nodeBenchRequests(b, schemas["karpenter_node"], 100, 0)
	read := func(b *testing.B, srv tfprotov6.ProviderServer, cfg *tfprotov6.DynamicValue) {
		resp, err := srv.ReadDataSource(ctx, &tfprotov6.ReadDataSourceRequest{TypeName: "karpenter_node", Config: cfg})
		if err != nil || resp.State == nil || hasError(resp.Diagnostics) {
			for _, d := range resp.Diagnostics {
				b.Log(d.Summary, d.Detail)
			}
			b.Fatal(err)
		}
	}
	b.Run("ReadDataSource", func(b *testing.B) {
		read(b, srv, &reqs[0]) // warm
		b.ReportAllocs()
		defer reportCPU(b, 3)()
		for b.Loop() {
			read(b, srv, &reqs[0])
		}
	})
	b.Run("ValidateDataResourceConfig", func(b *testing.B) {
		b.ReportAllocs()
		defer reportCPU(b, 3)()
		for b.Loop() {
			resp, err := srv.ValidateDataResourceConfig(ctx, &tfprotov6.ValidateDataResourceConfigRequest{TypeName: "karpenter_node", Config: &reqs[0]})
			if err != nil || len(resp.Diagnostics) > 0 {
				b.Fatal(err, resp.Diagnostics)
			}
		}
	})
	b.Run("Plan100", func(b *testing.B) {
		b.ReportAllocs()
		defer reportCPU(b, len(reqs))()
		op := 0
		for b.Loop() {
			op++
			b.StopTimer()
			reqs := nodeBenchRequests(b, schemas["karpenter_node"], 100, op)
			b.StartTimer()
			fresh, _ := fuzzServer(b, url)
			for i := range reqs {
				resp, err := fresh.ValidateDataResourceConfig(ctx, &tfprotov6.ValidateDataResourceConfigRequest{TypeName: "karpenter_node", Config: &reqs[i]})
				if err != nil || len(resp.Diagnostics) > 0 {
					b.Fatal(fmt.Sprint(i), err, resp.Diagnostics)
				}
				read(b, fresh, &reqs[i])
			}
		}
	})
}

func hasError(ds []*tfprotov6.Diagnostic) bool {
	for _, d := range ds {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			return true
		}
	}
	return false
}
