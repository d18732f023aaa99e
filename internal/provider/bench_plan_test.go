package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype/realistic"
)

// planFleet is what `make bench` plans (variant R): an EC2NodeClass on one
// alias with subnet and security-group selectors, so its readiness reads
// run, and its NodePools, against the emulator serving the region-sized
// catalogue of ../shared/data (1,363 instance types). Pools: the bench's
// (three named families) and a wide one (categories and a generation,
// hundreds of admitted types), where work per admitted type shows.
type planFleet struct {
	srv     tfprotov6.ProviderServer
	schemas map[string]fuzzSchema
	class   tftypes.Value
	pools   map[string]tftypes.Value
}

// realisticFleet starts the emulator on the realistic catalogue and a
// configured server, plans the class once (its planned node_class feeds
// the pools) and returns the requests. It skips when the data are absent.
func realisticFleet(tb testing.TB) planFleet {
	tb.Helper()
	dir, err := realistic.Dir()
	if err != nil {
		tb.Skip(err)
	}
	f, err := realistic.Fixtures(dir)
	if err != nil {
		tb.Fatal(err)
	}
	url, _ := awsemutest.StartWith(tb, f)
	for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test", "AWS_EC2_METADATA_DISABLED": "true", "AWS_ENDPOINT_URL_IAM": url} {
		tb.Setenv(k, v)
	}
	srv, schemas := fuzzServer(tb, url)
	fl := planFleet{srv: srv, schemas: schemas, pools: map[string]tftypes.Value{}}
	sel := []any{map[string]any{"tags": map[string]any{"karpenter.sh/discovery": "demo"}}}
	fl.class = tfValue(tb, schemas["karpenter_ec2nodeclass"].schema.ValueType(), map[string]any{
		"name": "class-0", "role": "KarpenterNodeRole-demo",
		"ami_selector_terms":    []any{map[string]any{"alias": "al2023@v20251209"}},
		"subnet_selector_terms": sel, "security_group_selector_terms": sel,
	})
	planned := fl.plan(tb, "karpenter_ec2nodeclass", fl.class)
	var attrs map[string]tftypes.Value
	if err := planned.As(&attrs); err != nil {
		tb.Fatal(err)
	}
	ptyp := schemas["karpenter_nodepool"].schema.ValueType()
	req := func(k, op string, vs ...any) map[string]any {
		return map[string]any{"key": k, "operator": op, "values": vs}
	}
	for name, reqs := range map[string][]any{
		"families": {req("karpenter.k8s.aws/instance-family", "In", "m5", "c5", "t3")},
		"wide": {req("karpenter.k8s.aws/instance-category", "In", "c", "m", "r"), req("karpenter.k8s.aws/instance-generation", "Gt", "4"),
			req("kubernetes.io/arch", "In", "amd64")},
	} {
		v := tfValue(tb, ptyp, map[string]any{"name": "pool-" + name, "requirements": reqs})
		var m map[string]tftypes.Value
		_ = v.As(&m)
		m["node_class"] = conformObject(tb, m["node_class"].Type(), attrs["node_class"])
		fl.pools[name] = tftypes.NewValue(ptyp, m)
	}
	return fl
}

// plan sends the PlanResourceChange of a create of cfg and returns the
// planned state; an error diagnostic fails.
func (fl planFleet) plan(tb testing.TB, name string, cfg tftypes.Value) tftypes.Value {
	tb.Helper()
	resp := fl.planResponse(tb, name, cfg)
	for _, d := range resp.Diagnostics {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			tb.Fatalf("%s: %s: %s", name, d.Summary, d.Detail)
		}
	}
	planned, err := resp.PlannedState.Unmarshal(fl.schemas[name].schema.ValueType())
	if err != nil {
		tb.Fatal(err)
	}
	return planned
}

func (fl planFleet) planResponse(tb testing.TB, name string, cfg tftypes.Value) *tfprotov6.PlanResourceChangeResponse {
	tb.Helper()
	s := fl.schemas[name]
	typ := s.schema.ValueType()
	c := dynamicValue(tb, typ, cfg)
	prior := dynamicValue(tb, typ, tftypes.NewValue(typ, nil))
	prop := dynamicValue(tb, typ, proposedNewState(s.schema.Block, cfg))
	resp, err := fl.srv.PlanResourceChange(context.Background(), &tfprotov6.PlanResourceChangeRequest{TypeName: name, PriorState: &prior, ProposedNewState: &prop, Config: &c})
	if err != nil || resp.PlannedState == nil {
		tb.Fatalf("%s: %v %v", name, err, resp.Diagnostics)
	}
	return resp
}

// BenchmarkPlanRealistic is the provider's share of a real plan per
// resource (what `make bench` variant R plans, 60 times each): the
// PlanResourceChange of the class and of its pools, against the 1,363-type
// catalogue with the readiness reads, caches warm as they are from the
// second resource of a plan on. BenchmarkProtocol's fixtures have 25 types,
// where work per admitted type does not show.
//
//	go test ./internal/provider -run '^$' -bench PlanRealistic -benchmem
func BenchmarkPlanRealistic(b *testing.B) {
	fl := realisticFleet(b)
	cases := []struct{ label, name string }{{"karpenter_ec2nodeclass", "karpenter_ec2nodeclass"}, {"karpenter_nodepool_families", "karpenter_nodepool"}, {"karpenter_nodepool_wide", "karpenter_nodepool"}}
	for _, c := range cases {
		cfg := fl.class
		if c.name == "karpenter_nodepool" {
			cfg = fl.pools[c.label[len("karpenter_nodepool_"):]]
		}
		typ := fl.schemas[c.name].schema.ValueType()
		dv := dynamicValue(b, typ, cfg)
		prior := dynamicValue(b, typ, tftypes.NewValue(typ, nil))
		prop := dynamicValue(b, typ, proposedNewState(fl.schemas[c.name].schema.Block, cfg))
		fl.plan(b, c.name, cfg) // warm
		b.Run(c.label+"/PlanResourceChange", func(b *testing.B) {
			b.ReportAllocs()
			defer reportCPU(b, knownValues(cfg))()
			for b.Loop() {
				resp, err := fl.srv.PlanResourceChange(context.Background(), &tfprotov6.PlanResourceChangeRequest{TypeName: c.name, PriorState: &prior, ProposedNewState: &prop, Config: &dv})
				if err != nil || resp.PlannedState == nil {
					b.Fatal(err, resp.Diagnostics)
				}
			}
		})
	}
}
