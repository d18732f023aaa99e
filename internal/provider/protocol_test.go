package provider

import (
	"context"
	"fmt"
	"maps"
	"math/rand"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
)

// Both resources are served by the fast path: a schema change it does not
// reproduce (a validator, a nested default or plan modifier, ...) turns it
// off silently, and this says so.
func TestProtocolFastPathServesBothResources(t *testing.T) {
	s, ok := NewProtocol6("test")().(*protocolServer)
	if !ok {
		t.Fatal("NewProtocol6 does not return the wrapping server")
	}
	for name, f := range map[string]func() resource.Resource{"karpenter_ec2nodeclass": NewEC2NodeClassResource, "karpenter_nodepool": NewNodePoolResource} {
		if s.fast[name] == nil {
			_, err := newFastResource(context.Background(), "karpenter", f)
			t.Errorf("%s is not on the fast path: %v", name, err)
		}
	}
}

// The fast path answers exactly as the framework would: the same
// diagnostics (rule ids, paths, text), planned state and replacement paths,
// for the base configurations and for mutations of them (null, unknown or
// another value anywhere), as a create, an update and a plan with nothing
// changed.
func TestProtocolFastPathMatchesFramework(t *testing.T) {
	url, _ := awsemutest.Start(t)
	for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test", "AWS_EC2_METADATA_DISABLED": "true", "AWS_ENDPOINT_URL_IAM": url} {
		t.Setenv(k, v)
	}
	fast, schemas := configuredServer(t, url, NewProtocol6("test")())
	framework, _ := configuredServer(t, url, providerserver.NewProtocol6(New("test")())())
	bases := fuzzBases(t, fast, schemas)
	ctx := context.Background()
	rng := rand.New(rand.NewSource(18))
	compared := map[string]int{}
	for _, name := range []string{"karpenter_ec2nodeclass", "karpenter_nodepool"} {
		s := schemas[name]
		typ := s.schema.ValueType()
		var cfgs []tftypes.Value
		for _, b := range bases[name] {
			cfgs = append(cfgs, b)
			for range 40 {
				data := make([]byte, 24)
				rng.Read(data)
				cfgs = append(cfgs, (&valueGen{b: data}).mutate(b, s.schema.Block))
			}
		}
		for range 20 {
			data := make([]byte, 64)
			rng.Read(data)
			cfgs = append(cfgs, (&valueGen{b: data}).block(s.schema.Block))
		}
		for i, cfg := range cfgs {
			at := fmt.Sprintf("%s config %d", name, i)
			cfgDV := dynamicValue(t, typ, cfg)
			vreq := &tfprotov6.ValidateResourceConfigRequest{TypeName: name, Config: &cfgDV}
			vf, errF := fast.ValidateResourceConfig(ctx, vreq)
			vw, errW := framework.ValidateResourceConfig(ctx, vreq)
			if errF != nil || errW != nil {
				t.Fatalf("%s: %v %v", at, errF, errW)
			}
			sameDiags(t, at+" validate", vf.Diagnostics, vw.Diagnostics)
			compared["validate"]++

			null := tftypes.NewValue(typ, nil)
			created := samePlan(t, at+" create", fast, framework, name, typ, null, cfg, proposedNewState(s.schema.Block, cfg))
			compared["create"]++
			if created.IsNull() {
				continue
			}
			// The created state as an apply stores it, then an update to
			// another configuration and a plan with nothing changed.
			prior := knownOnly(created)
			other := cfgs[rng.Intn(len(cfgs))]
			samePlan(t, at+" update", fast, framework, name, typ, prior, other, proposedUpdate(s.schema.Block, prior, other))
			samePlan(t, at+" unchanged", fast, framework, name, typ, prior, cfg, proposedUpdate(s.schema.Block, prior, cfg))
			compared["update"]++
		}
	}
	served := fast.(*protocolServer).served.Load()
	t.Logf("compared: %v; the fast path answered %d requests", compared, served)
	if total := compared["validate"] + compared["create"] + 2*compared["update"]; served < int64(total)/2 {
		t.Errorf("the fast path answered %d of %d requests: most went to the framework", served, total)
	}
	if compared["update"] < 20 {
		t.Errorf("only %d updates compared: %v", compared["update"], compared)
	}
}

// samePlan sends one PlanResourceChange to both servers, compares their
// answers and returns the planned state (null when the plan failed).
func samePlan(t *testing.T, at string, fast, framework tfprotov6.ProviderServer, name string, typ tftypes.Type, prior, cfg, proposed tftypes.Value) tftypes.Value {
	t.Helper()
	ctx := context.Background()
	priorDV, cfgDV, propDV := dynamicValue(t, typ, prior), dynamicValue(t, typ, cfg), dynamicValue(t, typ, proposed)
	req := &tfprotov6.PlanResourceChangeRequest{TypeName: name, PriorState: &priorDV, ProposedNewState: &propDV, Config: &cfgDV}
	pf, errF := fast.PlanResourceChange(ctx, req)
	pw, errW := framework.PlanResourceChange(ctx, req)
	if errF != nil || errW != nil {
		t.Fatalf("%s: %v %v", at, errF, errW)
	}
	sameDiags(t, at, pf.Diagnostics, pw.Diagnostics)
	if (pf.PlannedState == nil) != (pw.PlannedState == nil) {
		t.Fatalf("%s: planned state %v, framework %v", at, pf.PlannedState, pw.PlannedState)
	}
	if fmt.Sprint(pf.RequiresReplace) != fmt.Sprint(pw.RequiresReplace) || string(pf.PlannedPrivate) != string(pw.PlannedPrivate) || (pf.Deferred == nil) != (pw.Deferred == nil) {
		t.Errorf("%s: replace %v private %q deferred %v; framework %v %q %v", at, pf.RequiresReplace, pf.PlannedPrivate, pf.Deferred,
			pw.RequiresReplace, pw.PlannedPrivate, pw.Deferred)
	}
	if pf.PlannedState == nil {
		return tftypes.NewValue(typ, nil)
	}
	vf, err := pf.PlannedState.Unmarshal(typ)
	if err != nil {
		t.Fatalf("%s: %v", at, err)
	}
	vw, err := pw.PlannedState.Unmarshal(typ)
	if err != nil {
		t.Fatalf("%s: %v", at, err)
	}
	if !vf.Equal(vw) {
		diffs, _ := vf.Diff(vw)
		t.Errorf("%s: planned states differ: %v", at, diffs)
	}
	for _, d := range pf.Diagnostics {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			return tftypes.NewValue(typ, nil)
		}
	}
	return vf
}

// sameDiags compares diagnostics as sets: the framework reports its schema
// checks in map order. A value its type cannot hold (a fraction for an
// integer) is reported by the framework's reflection, which stops at the
// first such value in map order, so those diagnostics vary between two
// calls of the framework itself: only their presence is compared (the fast
// path hands those requests to the framework).
func sameDiags(t *testing.T, at string, got, want []*tfprotov6.Diagnostic) {
	t.Helper()
	key := func(ds []*tfprotov6.Diagnostic) ([]string, bool) {
		out := make([]string, 0, len(ds))
		conversion := false
		for _, d := range ds {
			if strings.Contains(d.Summary, "Conversion Error") || strings.Contains(d.Summary, "Read Error") {
				conversion = true
				continue
			}
			// The emulator numbers its answers.
			detail := requestID.ReplaceAllString(d.Detail, "RequestID: *")
			out = append(out, fmt.Sprintf("%v|%s|%s|%s", d.Severity, d.Attribute, d.Summary, detail))
		}
		slices.Sort(out)
		return out, conversion
	}
	g, gc := key(got)
	w, wc := key(want)
	if gc != wc || (!gc && !slices.Equal(g, w)) {
		t.Errorf("%s: diagnostics differ:\nfast path:\n  %s\nframework:\n  %s", at, strings.Join(g, "\n  "), strings.Join(w, "\n  "))
	}
}

var requestID = regexp.MustCompile(`RequestID: [0-9a-f-]+`)

// knownOnly is v with every unknown value null, as a state after apply
// never holds unknowns.
func knownOnly(v tftypes.Value) tftypes.Value {
	out, _ := tftypes.Transform(v, func(_ *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if !v.IsKnown() {
			return tftypes.NewValue(v.Type(), nil), nil
		}
		return v, nil
	})
	return out
}

// proposedUpdate is Terraform's proposed new state of an update, as far as
// these schemas need: the configuration, with the prior state's value for a
// computed attribute the configuration leaves null (at the root and one
// level into nested attributes).
func proposedUpdate(b *tfprotov6.SchemaBlock, prior, cfg tftypes.Value) tftypes.Value {
	prop := proposedNewState(b, cfg)
	if prop.IsNull() || !prop.IsKnown() {
		return prop
	}
	return mergeComputed(b.Attributes, prior, prop)
}

func mergeComputed(attrs []*tfprotov6.SchemaAttribute, prior, prop tftypes.Value) tftypes.Value {
	if prior.IsNull() || !prior.IsKnown() || prop.IsNull() || !prop.IsKnown() {
		return prop
	}
	var pa, na map[string]tftypes.Value
	if prior.As(&pa) != nil || prop.As(&na) != nil {
		return prop
	}
	na = maps.Clone(na) // As returns the value's own map
	for _, a := range attrs {
		switch {
		case a.Computed && na[a.Name].IsNull():
			na[a.Name] = pa[a.Name]
		case a.NestedType != nil && a.NestedType.Nesting == tfprotov6.SchemaObjectNestingModeSingle:
			na[a.Name] = mergeComputed(a.NestedType.Attributes, pa[a.Name], na[a.Name])
		}
	}
	return tftypes.NewValue(prop.Type(), na)
}

// tf6server finds list resources, actions and state stores by asserting
// the server's type: the wrapper must answer to each assertion as the
// framework's server does, or Terraform would be told they are unsupported.
func TestProtocolServerKeepsTheFrameworksOptionalRPCs(t *testing.T) {
	fw := providerserver.NewProtocol6(New("test")())()
	s := NewProtocol6("test")()
	for name, has := range map[string]func(any) bool{
		"list resources": func(v any) bool { _, ok := v.(tfprotov6.ListResourceServer); return ok },
		"actions":        func(v any) bool { _, ok := v.(tfprotov6.ActionServer); return ok },
		"state stores":   func(v any) bool { _, ok := v.(tfprotov6.StateStoreServer); return ok },
	} {
		if has(fw) != has(s) {
			t.Errorf("%s: framework server %v, NewProtocol6 %v", name, has(fw), has(s))
		}
	}
}
