package provider

import (
	"context"
	"maps"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/cluster"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodeclass"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodepool"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// benchServer is a configured provider server on the emulator with the
// fuzz target's valid configurations (the examples' classes and pools).
func benchServer(tb testing.TB) (url string, srv tfprotov6.ProviderServer, schemas map[string]fuzzSchema, bases map[string][]tftypes.Value) {
	url, srv, schemas, bases, _ = benchEmulator(tb)
	return url, srv, schemas, bases
}

// benchEmulator is benchServer with the emulator, for its request counts.
func benchEmulator(tb testing.TB) (url string, srv tfprotov6.ProviderServer, schemas map[string]fuzzSchema, bases map[string][]tftypes.Value, emu *awsemu.Server) {
	tb.Helper()
	url, emu = awsemutest.Start(tb)
	// The class's readiness checks read the node role from IAM, which the
	// provider block of fuzzServer does not point at the emulator.
	for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test", "AWS_EC2_METADATA_DISABLED": "true", "AWS_ENDPOINT_URL_IAM": url} {
		tb.Setenv(k, v)
	}
	srv, schemas = fuzzServer(tb, url)
	return url, srv, schemas, fuzzBases(tb, srv, schemas), emu
}

// Terraform validates every resource in a process of its own before the
// plan (and again in the plan's process): ValidateResourceConfig must
// answer from the configuration alone, so the AWS reads of a plan are made
// once, by PlanResourceChange, and a large catalogue is never read for
// validation. A configured provider with every base class and pool: no
// request reaches the emulator.
func TestValidateResourceConfigCallsNoAWS(t *testing.T) {
	_, srv, schemas, bases, emu := benchEmulator(t)
	emu.ResetStats() // the bases were planned
	ctx := context.Background()
	validated := 0
	for _, name := range []string{"karpenter_ec2nodeclass", "karpenter_nodepool"} {
		typ := schemas[name].schema.ValueType()
		for _, v := range bases[name] {
			cfg := dynamicValue(t, typ, v)
			if _, err := srv.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: name, Config: &cfg}); err != nil {
				t.Fatal(err)
			}
			validated++
		}
	}
	if validated < 4 {
		t.Fatalf("only %d configurations validated", validated)
	}
	if st := emu.Stats(); st["total"] != 0 {
		t.Errorf("ValidateResourceConfig of %d configurations sent AWS requests: %v", validated, st)
	}
}

// BenchmarkProtocol is the provider's share of a plan per resource, through
// the gRPC surface Terraform calls (the server main serves, NewProtocol6),
// with a warm AWS cache: ValidateResourceConfig, then PlanResourceChange of
// a create. The first class is an alias with kubelet and block devices, the
// first pool its general-arm64 pool with budgets. The *_framework rows are
// the same requests to the framework's own server (providerserver), which
// NewProtocol6 bypasses for these two resources.
//
//	go test ./internal/provider -run '^$' -bench Protocol -benchmem
func BenchmarkProtocol(b *testing.B) {
	url, fast, schemas, bases := benchServer(b)
	framework, _ := configuredServer(b, url, providerserver.NewProtocol6(New("test")())())
	ctx := context.Background()
	pool := bases["karpenter_nodepool"][0]
	for _, c := range []struct {
		label, name string
		srv         tfprotov6.ProviderServer
	}{
		{"karpenter_ec2nodeclass", "karpenter_ec2nodeclass", fast},
		{"karpenter_nodepool", "karpenter_nodepool", fast},
		// The same pool with node_class = { name = ... } (a class managed
		// elsewhere): what the class's facts in node_class cost the
		// conversions (the plan also skips the cross-checks that need them).
		{"karpenter_nodepool_name_only_class", "karpenter_nodepool", fast},
		{"karpenter_ec2nodeclass_framework", "karpenter_ec2nodeclass", framework},
		{"karpenter_nodepool_framework", "karpenter_nodepool", framework},
	} {
		name, s, srv := c.name, schemas[c.name], c.srv
		typ := s.schema.ValueType()
		base := bases[name][0]
		if c.label == "karpenter_nodepool_name_only_class" {
			base = nameOnlyClass(b, pool)
		}
		cfg := dynamicValue(b, typ, base)
		prior := dynamicValue(b, typ, tftypes.NewValue(typ, nil))
		prop := dynamicValue(b, typ, proposedNewState(s.schema.Block, base))
		values := knownValues(base)
		b.Run(c.label+"/ValidateResourceConfig", func(b *testing.B) {
			b.ReportAllocs()
			defer reportCPU(b, values)()
			for b.Loop() {
				resp, err := srv.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: name, Config: &cfg})
				if err != nil || len(resp.Diagnostics) > 0 {
					b.Fatal(err, resp.Diagnostics)
				}
			}
		})
		b.Run(c.label+"/PlanResourceChange", func(b *testing.B) {
			b.ReportAllocs()
			defer reportCPU(b, values)()
			for b.Loop() {
				resp, err := srv.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{TypeName: name, PriorState: &prior, ProposedNewState: &prop, Config: &cfg})
				if err != nil || resp.PlannedState == nil {
					b.Fatal(err, resp.Diagnostics)
				}
			}
		})
	}
}

// BenchmarkProtocolFloor is what reading a request costs before any
// framework or provider work: decoding the configuration Terraform sends
// (msgpack) into a tftypes value and visiting its values once. It is the
// floor a ValidateResourceConfig written against tftypes directly would
// pay, next to BenchmarkProtocol's figures through the framework.
func BenchmarkProtocolFloor(b *testing.B) {
	_, _, schemas, bases := benchServer(b)
	for _, name := range []string{"karpenter_ec2nodeclass", "karpenter_nodepool"} {
		typ := schemas[name].schema.ValueType()
		cfg := dynamicValue(b, typ, bases[name][0])
		values := knownValues(bases[name][0])
		b.Run(name+"/DecodeConfig", func(b *testing.B) {
			b.ReportAllocs()
			defer reportCPU(b, values)()
			for b.Loop() {
				v, err := cfg.Unmarshal(typ)
				if err != nil {
					b.Fatal(err)
				}
				if knownValues(v) != values {
					b.Fatal("decoded another value")
				}
			}
		})
	}
}

// nameOnlyClass is pool with node_class = { name = <its class's name> }:
// every other attribute of node_class null.
func nameOnlyClass(b *testing.B, pool tftypes.Value) tftypes.Value {
	b.Helper()
	var attrs map[string]tftypes.Value
	if err := pool.As(&attrs); err != nil {
		b.Fatal(err)
	}
	var class map[string]tftypes.Value
	if err := attrs["node_class"].As(&class); err != nil {
		b.Fatal(err)
	}
	attrs = maps.Clone(attrs) // As returns the base's own map
	ct := attrs["node_class"].Type().(tftypes.Object)
	only := map[string]tftypes.Value{}
	for k, t := range ct.AttributeTypes {
		only[k] = tftypes.NewValue(t, nil)
	}
	only["name"] = class["name"]
	attrs["node_class"] = tftypes.NewValue(ct, only)
	return tftypes.NewValue(pool.Type(), attrs)
}

// knownValues counts the known, non-null values of a configuration below
// its root: the framework converts each one's path (from the root, once per
// step) when it reads a request, so its per-request cost grows with this
// figure.
func knownValues(v tftypes.Value) int {
	n := 0
	_ = tftypes.Walk(v, func(p *tftypes.AttributePath, v tftypes.Value) (bool, error) {
		if len(p.Steps()) > 0 && v.IsKnown() && !v.IsNull() {
			n++
		}
		return true, nil
	})
	return n
}

// reportCPU adds cpu-ns/op: the process's user+system CPU time per
// operation, garbage collection (on other threads) included. On a machine
// shared with other jobs ns/op (wall time) grows with the load, CPU time
// much less, so the targets are read off this figure. It also reports
// values, the request's knownValues (after the loop: b.Loop's timer reset
// drops metrics reported before it). Use as `defer reportCPU(b, n)()`.
func reportCPU(b *testing.B, values int) func() {
	start := processCPU()
	return func() {
		if n := b.N; n > 0 {
			b.ReportMetric(float64(processCPU()-start)/float64(n), "cpu-ns/op")
			b.ReportMetric(float64(values), "values")
		}
	}
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkRenderAndValidate is manifest rendering plus the CRD validation
// (defaulting, pruning, OpenAPI schema, CEL) of one object, end to end from
// the resource's model, without the framework: for the class, its checks,
// AMI resolution from a warm cache, the plan, the YAML and the CRD; for the
// pool, its checks, the YAML and the CRD.
func BenchmarkRenderAndValidate(b *testing.B) {
	url, _, _, bases := benchServer(b)
	ctx := context.Background()
	pd := &ProviderData{
		AWS: awsclient.NewCache(awsclient.NewClients(awsclient.Config{Region: "us-east-1", MaxRetries: 0,
			Endpoints: awsclient.Endpoints{EC2: url, SSM: url, EKS: url, STS: url}})),
		Karpenter: versions.DefaultKarpenter,
		Cluster:   cluster.Settings{Name: "demo", Unknown: map[string]bool{}},
	}

	var cm ec2NodeClassModel
	getModel(b, NewEC2NodeClassResource(), bases["karpenter_ec2nodeclass"][0], &cm)
	class := classFromModel(cm)
	b.Run("EC2NodeClass", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if fs := nodeclass.Validate(class, pd.Karpenter); fs.HasErrors() {
				b.Fatal(fs)
			}
			var diags diag.Diagnostics
			res, err := resolveAMIs(ctx, pd, class.Terms, types.StringNull(), path.Empty(), &diags)
			if err != nil || diags.HasError() {
				b.Fatal(err, diags)
			}
			p := nodeclass.Plan(nodeclass.PlanInput{Class: class, AMIs: res.result, Karpenter: pd.Karpenter})
			if _, err := manifest.YAML(p.Manifest); err != nil {
				b.Fatal(err)
			}
			if fs := validateAgainstCRD(ctx, p.Manifest); len(fs) > 0 {
				b.Fatal(fs)
			}
		}
	})

	var pm nodePoolModel
	getModel(b, NewNodePoolResource(), bases["karpenter_nodepool"][0], &pm)
	pool, _ := poolFromModel(pm)
	b.Run("NodePool", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if fs := nodepool.Validate(pool, pd.Karpenter); fs.HasErrors() {
				b.Fatal(fs)
			}
			obj := nodepool.Object(pool)
			if _, err := manifest.YAML(obj); err != nil {
				b.Fatal(err)
			}
			if fs := validateAgainstCRD(ctx, obj); len(fs) > 0 {
				b.Fatal(fs)
			}
		}
	})
}

// getModel reads a configuration value into a resource's model.
func getModel(b *testing.B, r resource.Resource, v tftypes.Value, model any) {
	b.Helper()
	var sresp resource.SchemaResponse
	r.Schema(context.Background(), resource.SchemaRequest{}, &sresp)
	cfg := tfsdk.Config{Schema: sresp.Schema, Raw: v}
	if diags := cfg.Get(context.Background(), model); diags.HasError() {
		b.Fatal(diags)
	}
}
