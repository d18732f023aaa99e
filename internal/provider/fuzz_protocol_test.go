package provider

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"sort"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
)

// FuzzProtocol sends random configurations through the provider's gRPC
// surface as Terraform would: ValidateResourceConfig then, when valid,
// PlanResourceChange (create) of both resources, and ValidateDataResourceConfig
// then ReadDataSource of the data sources. Values are built from each
// schema with bytes of the input choosing null, unknown or a value per
// attribute (strings from a dictionary of Karpenter-shaped values, or raw).
// AWS is the in-process emulator. The provider must answer with
// diagnostics, never panic or fail at the protocol level, and a plan
// without errors must keep every configured top-level argument as written
// (Terraform rejects "Provider produced invalid plan" otherwise).
//
//	go test ./internal/provider -run '^$' -fuzz FuzzProtocol -fuzztime 60s
func FuzzProtocol(f *testing.F) {
	url, _ := awsemutest.Start(f)
	for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test", "AWS_EC2_METADATA_DISABLED": "true"} {
		f.Setenv(k, v)
	}
	ctx := context.Background()
	srv, schemas := fuzzServer(f, url)
	bases := fuzzBases(f, srv, schemas)
	names := make([]string, 0, len(schemas))
	for n := range schemas {
		names = append(names, n)
	}
	sort.Strings(names)

	for i := range names {
		f.Add(uint8(i), []byte{})                                                    // the first base, a value nulled
		f.Add(uint8(i), []byte{0, 1, 2, 3, 17, 40, 99})                              // the second base, mutated
		f.Add(uint8(i), []byte{7, 200, 3, 1, 9, 14, 2, 255, 8, 0, 5, 15, 10, 4, 11}) // mutations
		f.Add(uint8(i), []byte{255, 7, 200, 3, 1, 9, 14, 2, 255, 8, 0, 5, 15, 10})   // from the schema
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		name := names[int(which)%len(names)]
		s := schemas[name]
		g := &valueGen{b: data}
		var cfg tftypes.Value
		if mode := g.next(); mode < 192 && len(bases[name]) > 0 {
			cfg = g.mutate(bases[name][g.intn(len(bases[name]))], s.schema.Block)
		} else {
			cfg = g.block(s.schema.Block)
		}
		proposed := proposedNewState(s.schema.Block, cfg)
		typ := s.schema.ValueType()
		cfgDV := dynamicValue(t, typ, cfg)
		if s.resource {
			vresp, err := srv.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: name, Config: &cfgDV})
			if err != nil {
				t.Fatalf("ValidateResourceConfig: %v", err)
			}
			if checkDiags(t, vresp.Diagnostics) {
				return
			}
			prior := dynamicValue(t, typ, tftypes.NewValue(typ, nil))
			propDV := dynamicValue(t, typ, proposed)
			presp, err := srv.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
				TypeName: name, PriorState: &prior, ProposedNewState: &propDV, Config: &cfgDV,
			})
			if err != nil {
				t.Fatalf("PlanResourceChange: %v", err)
			}
			if checkDiags(t, presp.Diagnostics) {
				return
			}
			if presp.PlannedState == nil {
				t.Fatal("no planned state and no error")
			}
			planned, err := presp.PlannedState.Unmarshal(typ)
			if err != nil {
				t.Fatalf("planned state: %v", err)
			}
			checkPlanKeepsConfig(t, s.schema.Block, cfg, planned)
			return
		}
		vresp, err := srv.ValidateDataResourceConfig(ctx, &tfprotov6.ValidateDataResourceConfigRequest{TypeName: name, Config: &cfgDV})
		if err != nil {
			t.Fatalf("ValidateDataResourceConfig: %v", err)
		}
		if checkDiags(t, vresp.Diagnostics) || !cfg.IsFullyKnown() {
			return // Terraform reads data sources with unknowns at apply
		}
		rresp, err := srv.ReadDataSource(ctx, &tfprotov6.ReadDataSourceRequest{TypeName: name, Config: &cfgDV})
		if err != nil {
			t.Fatalf("ReadDataSource: %v", err)
		}
		if checkDiags(t, rresp.Diagnostics) {
			return
		}
		if rresp.State == nil {
			t.Fatal("no state and no error")
		}
		if _, err := rresp.State.Unmarshal(typ); err != nil {
			t.Fatalf("state: %v", err)
		}
	})
}

type fuzzSchema struct {
	schema   *tfprotov6.Schema
	resource bool
}

// fuzzServer returns a configured provider server pointed at the emulator
// (the one main serves: NewProtocol6), and the schemas of its resources and
// data sources.
func fuzzServer(tb testing.TB, url string) (tfprotov6.ProviderServer, map[string]fuzzSchema) {
	tb.Helper()
	return configuredServer(tb, url, NewProtocol6("test")())
}

// configuredServer configures srv as fuzzServer does.
func configuredServer(tb testing.TB, url string, srv tfprotov6.ProviderServer) (tfprotov6.ProviderServer, map[string]fuzzSchema) {
	tb.Helper()
	ctx := context.Background()
	sresp, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil || len(sresp.Diagnostics) > 0 {
		tb.Fatalf("GetProviderSchema: %v %v", err, sresp.Diagnostics)
	}
	ptyp := sresp.Provider.ValueType()
	pcfg := tfValue(tb, ptyp, map[string]any{
		"region": "us-east-1", "max_retries": 0, "cluster": map[string]any{"name": "demo"},
		"endpoints": map[string]any{"ec2": url, "ssm": url, "eks": url, "sts": url, "iam": url},
	})
	dv := dynamicValue(tb, ptyp, pcfg)
	cresp, err := srv.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{Config: &dv, TerraformVersion: "1.11.4"})
	if err != nil || len(cresp.Diagnostics) > 0 {
		tb.Fatalf("ConfigureProvider: %v %v", err, cresp.Diagnostics)
	}
	out := map[string]fuzzSchema{}
	for n, s := range sresp.ResourceSchemas {
		out[n] = fuzzSchema{schema: s, resource: true}
	}
	for n, s := range sresp.DataSourceSchemas {
		out[n] = fuzzSchema{schema: s}
	}
	if len(out) < 5 {
		tb.Fatalf("only %d resources and data sources", len(out))
	}
	return srv, out
}

func dynamicValue(tb testing.TB, typ tftypes.Type, v tftypes.Value) tfprotov6.DynamicValue {
	tb.Helper()
	dv, err := tfprotov6.NewDynamicValue(typ, v)
	if err != nil {
		tb.Fatalf("NewDynamicValue: %v", err)
	}
	return dv
}

// checkDiags fails on diagnostics Terraform could not print and reports
// whether there is an error.
func checkDiags(t *testing.T, ds []*tfprotov6.Diagnostic) bool {
	t.Helper()
	hasErr := false
	for _, d := range ds {
		if d == nil || d.Summary == "" {
			t.Fatalf("diagnostic without summary: %+v", d)
		}
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			hasErr = true
		}
	}
	return hasErr
}

// checkPlanKeepsConfig applies Terraform's plan validity rule
// (objchange.AssertPlanValid): a configured value is planned as written, an
// unconfigured non-computed one stays null, nested attributes and blocks
// recursively.
func checkPlanKeepsConfig(t *testing.T, b *tfprotov6.SchemaBlock, cfg, planned tftypes.Value) {
	t.Helper()
	checkBlock(t, b, cfg, planned, "")
}

// checkBlock checks a block's attributes and, as Terraform does, its nested
// blocks: the same number of blocks, each kept as configured.
func checkBlock(t *testing.T, b *tfprotov6.SchemaBlock, cfg, planned tftypes.Value, at string) {
	t.Helper()
	checkObject(t, b.Attributes, cfg, planned, at)
	if cfg.IsNull() || !cfg.IsKnown() {
		return
	}
	var c, p map[string]tftypes.Value
	_ = cfg.As(&c)
	_ = planned.As(&p)
	for _, nb := range b.BlockTypes {
		cv, pv, bat := c[nb.TypeName], p[nb.TypeName], at+"."+nb.TypeName
		switch {
		case !cv.IsKnown():
			if pv.IsKnown() {
				t.Fatalf("%s: configured unknown, planned %v", bat, pv)
			}
			continue
		case nb.Nesting != tfprotov6.SchemaNestedBlockNestingModeList && nb.Nesting != tfprotov6.SchemaNestedBlockNestingModeSet:
			checkBlock(t, nb.Block, cv, pv, bat)
			continue
		}
		checkElements(t, cv, pv, bat, "blocks", func(c, p tftypes.Value, at string) { checkBlock(t, nb.Block, c, p, at) })
	}
}

// checkElements checks a configured list element by element against the
// planned one, which must have as many.
func checkElements(t *testing.T, cfg, planned tftypes.Value, at, what string, check func(c, p tftypes.Value, at string)) {
	t.Helper()
	var c, p []tftypes.Value
	_ = cfg.As(&c)
	_ = planned.As(&p)
	if len(c) != len(p) {
		t.Fatalf("%s: %d %s configured, %d planned", at, len(c), what, len(p))
	}
	for i := range c {
		check(c[i], p[i], fmt.Sprintf("%s[%d]", at, i))
	}
}

func checkObject(t *testing.T, attrs []*tfprotov6.SchemaAttribute, cfg, planned tftypes.Value, at string) {
	t.Helper()
	switch {
	case !cfg.IsKnown(): // an unknown element of a nested list or map
		if planned.IsKnown() {
			t.Fatalf("%s: configured unknown, planned %v", at, planned)
		}
		return
	case cfg.IsNull():
		if !planned.IsNull() {
			t.Fatalf("%s: configured null, planned %v", at, planned)
		}
		return
	}
	var c, p map[string]tftypes.Value
	if err := cfg.As(&c); err != nil {
		t.Fatalf("%s: %v", at, err)
	}
	if err := planned.As(&p); err != nil {
		t.Fatalf("%s: %v", at, err)
	}
	for _, a := range attrs {
		checkAttr(t, a, c[a.Name], p[a.Name], at+"."+a.Name)
	}
}

func checkAttr(t *testing.T, a *tfprotov6.SchemaAttribute, cfg, planned tftypes.Value, at string) {
	t.Helper()
	switch {
	case cfg.IsNull():
		if !a.Computed && !planned.IsNull() {
			t.Fatalf("%s: not configured, not computed, planned %v", at, planned)
		}
		return
	case !cfg.IsKnown():
		if planned.IsKnown() {
			t.Fatalf("%s: configured unknown, planned %v", at, planned)
		}
		return
	case a.NestedType == nil:
		if !cfg.Equal(planned) {
			t.Fatalf("%s: configured %v, planned %v", at, cfg, planned)
		}
		return
	}
	if planned.IsNull() || !planned.IsKnown() {
		t.Fatalf("%s: configured %v, planned %v", at, cfg, planned)
	}
	switch a.NestedType.Nesting {
	case tfprotov6.SchemaObjectNestingModeSingle:
		checkObject(t, a.NestedType.Attributes, cfg, planned, at)
	case tfprotov6.SchemaObjectNestingModeList:
		checkElements(t, cfg, planned, at, "elements", func(c, p tftypes.Value, at string) { checkObject(t, a.NestedType.Attributes, c, p, at) })
	case tfprotov6.SchemaObjectNestingModeMap:
		var c, p map[string]tftypes.Value
		_ = cfg.As(&c)
		_ = planned.As(&p)
		if len(c) != len(p) {
			t.Fatalf("%s: %d elements configured, %d planned", at, len(c), len(p))
		}
		for k := range c {
			checkObject(t, a.NestedType.Attributes, c[k], p[k], fmt.Sprintf("%s[%q]", at, k))
		}
	}
}

// valueGen builds values from a byte string: each byte is one choice; an
// exhausted input chooses 0 (null for optional attributes, the first
// dictionary entry for required ones), so every input terminates.
type valueGen struct{ b []byte }

func (g *valueGen) next() byte {
	if len(g.b) == 0 {
		return 0
	}
	c := g.b[0]
	g.b = g.b[1:]
	return c
}

func (g *valueGen) intn(n int) int { return int(g.next()) % n }

// fuzzStrings are values the checks care about, plus shell, YAML and TOML
// metacharacters for the renderers.
var fuzzStrings = []string{
	"default", "al2023@latest", "al2023@v20251209", "al2@latest", "bottlerocket@latest", "windows2022@latest",
	"AL2023", "AL2", "Bottlerocket", "Custom", "Windows2022", "KarpenterNodeRole-demo", "demo",
	"karpenter.k8s.aws/instance-family", "kubernetes.io/arch", "karpenter.sh/capacity-type", "node.kubernetes.io/instance-type",
	"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "m5", "g5g", "inf2", "amd64", "arm64", "spot", "on-demand",
	"NoSchedule", "NoExecute", "PreferNoSchedule", "team-eks-node-*", "self", "amazon", "ami-0aaf333b614a08570",
	"karpenter.sh/discovery", "nodeadm", "bootstrap.sh", "toml", "powershell", "/dev/xvda", "30Gi", "gp3", "1h", "Never",
	"WhenEmpty", "WhenEmptyOrUnderutilized", "10%", "5", "0 9 * * mon-fri", "RAID0", "1.32", "1.14",
	"#!/bin/bash\n/etc/eks/bootstrap.sh demo --kubelet-extra-args '--register-with-taints=a=b:NoSchedule'\n",
	"apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    flags: [--node-labels=a=b]\n",
	"[settings.kubernetes]\nmax-pods = 110\n", "<powershell>\nexit 0\n</powershell>\n",
	"MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"//\"\n\n--//\n", "$(id)", "`id`", "'; reboot; '",
	"a\nb", "\"", "\\", "${x}", "%{x}", "x: [", "=", ":", "", " ", "-", "https://example.com", "arn:aws:ssm:us-east-1:123456789012:parameter/x",
	"/aws/service/eks/optimized-ami/1.32/amazon-linux-2023/x86_64/standard/recommended/image_id", "g5g.xlarge", "m5.large",
}

func (g *valueGen) str() string {
	c := g.next()
	if c < 224 {
		return fuzzStrings[int(c)%len(fuzzStrings)]
	}
	n := g.intn(48)
	n = min(n, len(g.b))
	s := string(g.b[:n])
	g.b = g.b[n:]
	return s
}

var fuzzNumbers = []*big.Float{
	big.NewFloat(0), big.NewFloat(1), big.NewFloat(-1), big.NewFloat(20), big.NewFloat(110), big.NewFloat(3.5),
	big.NewFloat(1e10), big.NewFloat(math.MaxInt32), new(big.Float).SetInt64(math.MaxInt64), big.NewFloat(-1e300),
}

// block returns a configuration of b built from the schema alone.
func (g *valueGen) block(b *tfprotov6.SchemaBlock) tftypes.Value {
	c := map[string]tftypes.Value{}
	for _, a := range b.Attributes {
		c[a.Name] = g.attr(a)
	}
	for _, nb := range b.BlockTypes {
		c[nb.TypeName] = g.nestedBlock(nb)
	}
	return tftypes.NewValue(b.ValueType(), c)
}

// nestedBlock is what Terraform sends for a block type: for a list, the
// blocks written (an empty list for none), unknown when a dynamic block
// iterates over an unknown value; for a single block, null when it is
// absent (HCL gives a dynamic one over an unknown value as a block of
// unknown arguments, never as an unknown object).
func (g *valueGen) nestedBlock(nb *tfprotov6.SchemaNestedBlock) tftypes.Value {
	typ := nb.ValueType()
	c := g.intn(16)
	switch nb.Nesting {
	case tfprotov6.SchemaNestedBlockNestingModeList, tfprotov6.SchemaNestedBlockNestingModeSet:
		if c == 15 {
			return tftypes.NewValue(typ, tftypes.UnknownValue)
		}
		es := []tftypes.Value{}
		for range c % 4 {
			es = append(es, g.block(nb.Block))
		}
		return tftypes.NewValue(typ, es)
	default:
		if c < 6 {
			return tftypes.NewValue(typ, nil)
		}
		return g.block(nb.Block)
	}
}

func (g *valueGen) attr(a *tfprotov6.SchemaAttribute) tftypes.Value {
	typ := a.ValueType()
	switch c := g.intn(16); {
	case a.Computed && !a.Optional, a.Optional && c < 6, a.Required && c == 7:
		return tftypes.NewValue(typ, nil) // the last one is invalid: validation must say so
	case c == 6:
		return tftypes.NewValue(typ, tftypes.UnknownValue)
	}
	if a.NestedType != nil {
		return g.nested(a.NestedType)
	}
	return g.value(typ, 0)
}

func (g *valueGen) nested(o *tfprotov6.SchemaObject) tftypes.Value {
	typ := o.ValueType()
	obj := func() tftypes.Value {
		c := map[string]tftypes.Value{}
		for _, a := range o.Attributes {
			c[a.Name] = g.attr(a)
		}
		ot := typ
		switch t := typ.(type) {
		case tftypes.List:
			ot = t.ElementType
		case tftypes.Set:
			ot = t.ElementType
		case tftypes.Map:
			ot = t.ElementType
		}
		return tftypes.NewValue(ot, c)
	}
	switch o.Nesting {
	case tfprotov6.SchemaObjectNestingModeSingle:
		return obj()
	case tfprotov6.SchemaObjectNestingModeMap:
		c := map[string]tftypes.Value{}
		for i := range g.intn(4) {
			c[fmt.Sprintf("%s%d", g.str(), i)] = obj()
		}
		return tftypes.NewValue(typ, c)
	default: // list, set
		var c []tftypes.Value
		for range g.intn(4) {
			c = append(c, obj())
		}
		return tftypes.NewValue(typ, c)
	}
}

// mutate replaces 1 to 3 values of base, anywhere but in computed-only
// attributes (Terraform never sends those), with null, unknown or another
// value of the same type.
func (g *valueGen) mutate(base tftypes.Value, b *tfprotov6.SchemaBlock) tftypes.Value {
	v := base
	for range 1 + g.intn(3) {
		var paths []*tftypes.AttributePath
		_ = tftypes.Walk(v, func(p *tftypes.AttributePath, _ tftypes.Value) (bool, error) {
			if len(p.Steps()) > 0 && !computedOnly(b, p) {
				paths = append(paths, p)
			}
			return true, nil
		})
		if len(paths) == 0 {
			return v
		}
		target := paths[g.intn(len(paths))]
		choice := g.intn(8)
		switch blockAt(b, target) {
		case "element":
			if choice < 2 {
				choice += 2
			}
		case "single":
			if choice == 1 {
				choice = 0
			}
		}
		v, _ = tftypes.Transform(v, func(p *tftypes.AttributePath, old tftypes.Value) (tftypes.Value, error) {
			if !p.Equal(target) {
				return old, nil
			}
			switch choice {
			case 0:
				return tftypes.NewValue(old.Type(), nil), nil
			case 1:
				return tftypes.NewValue(old.Type(), tftypes.UnknownValue), nil
			}
			return g.value(old.Type(), 0), nil
		})
	}
	return v
}

// blockAt says what p designates among the schema's blocks: "element" for
// one block of a list of them (HCL never writes a null or unknown one),
// "single" for a single block (null when absent, never unknown), or "".
func blockAt(b *tfprotov6.SchemaBlock, p *tftypes.AttributePath) string {
	steps := p.Steps()
	for len(steps) > 0 {
		name, ok := steps[0].(tftypes.AttributeName)
		if !ok {
			return ""
		}
		var nb *tfprotov6.SchemaNestedBlock
		for _, candidate := range b.BlockTypes {
			if candidate.TypeName == string(name) {
				nb = candidate
			}
		}
		list := nb != nil && (nb.Nesting == tfprotov6.SchemaNestedBlockNestingModeList || nb.Nesting == tfprotov6.SchemaNestedBlockNestingModeSet)
		switch {
		case nb == nil:
			return "" // an attribute: nothing below it is a block
		case !list && len(steps) == 1:
			return "single"
		case !list:
			steps = steps[1:]
		case len(steps) == 1:
			return "" // the whole list: null or unknown from a dynamic block
		case len(steps) == 2:
			return "element"
		default:
			steps = steps[2:]
		}
		b = nb.Block
	}
	return ""
}

// computedOnly reports whether p is in an attribute the configuration
// cannot set.
func computedOnly(b *tfprotov6.SchemaBlock, p *tftypes.AttributePath) bool {
	attrs := b.Attributes
	for _, st := range p.Steps() {
		name, ok := st.(tftypes.AttributeName)
		if !ok {
			continue // an element of a nested list or map
		}
		var found *tfprotov6.SchemaAttribute
		for _, a := range attrs {
			if a.Name == string(name) {
				found = a
			}
		}
		if found == nil {
			return false
		}
		if found.Computed && !found.Optional {
			return true
		}
		if found.NestedType == nil {
			return false // inside a plain attribute: its own type
		}
		attrs = found.NestedType.Attributes
	}
	return false
}

// proposedNewState is what Terraform proposes for a create: the
// configuration with unconfigured computed attributes unknown.
func proposedNewState(b *tfprotov6.SchemaBlock, cfg tftypes.Value) tftypes.Value {
	return proposedObject(b.Attributes, cfg)
}

func proposedObject(attrs []*tfprotov6.SchemaAttribute, cfg tftypes.Value) tftypes.Value {
	if cfg.IsNull() || !cfg.IsKnown() {
		return cfg
	}
	var m map[string]tftypes.Value
	if err := cfg.As(&m); err != nil {
		return cfg
	}
	out := make(map[string]tftypes.Value, len(m))
	for k, v := range m {
		out[k] = v
	}
	for _, a := range attrs {
		v := m[a.Name]
		switch {
		case v.IsNull() && a.Computed:
			out[a.Name] = tftypes.NewValue(v.Type(), tftypes.UnknownValue)
		case a.NestedType != nil && !v.IsNull() && v.IsKnown():
			out[a.Name] = proposedNested(a.NestedType, v)
		}
	}
	return tftypes.NewValue(cfg.Type(), out)
}

func proposedNested(o *tfprotov6.SchemaObject, v tftypes.Value) tftypes.Value {
	switch o.Nesting {
	case tfprotov6.SchemaObjectNestingModeSingle:
		return proposedObject(o.Attributes, v)
	case tfprotov6.SchemaObjectNestingModeMap:
		var m map[string]tftypes.Value
		_ = v.As(&m)
		out := map[string]tftypes.Value{}
		for k, e := range m {
			out[k] = proposedObject(o.Attributes, e)
		}
		return tftypes.NewValue(v.Type(), out)
	default:
		var es []tftypes.Value
		_ = v.As(&es)
		out := make([]tftypes.Value, len(es))
		for i, e := range es {
			out[i] = proposedObject(o.Attributes, e)
		}
		return tftypes.NewValue(v.Type(), out)
	}
}

// value builds a value of a plain (non-nested-attribute) type; nested
// elements are sometimes null or unknown, as HCL allows.
func (g *valueGen) value(typ tftypes.Type, depth int) tftypes.Value {
	if depth > 0 {
		switch g.intn(32) {
		case 0:
			return tftypes.NewValue(typ, nil)
		case 1:
			return tftypes.NewValue(typ, tftypes.UnknownValue)
		}
	}
	switch t := typ.(type) {
	case tftypes.List:
		var es []tftypes.Value
		for range g.intn(4) {
			es = append(es, g.value(t.ElementType, depth+1))
		}
		return tftypes.NewValue(typ, es)
	case tftypes.Set:
		var es []tftypes.Value
		seen := map[string]bool{}
		for range g.intn(4) {
			e := g.value(t.ElementType, depth+1)
			if k := e.String(); !seen[k] {
				seen[k] = true
				es = append(es, e)
			}
		}
		return tftypes.NewValue(typ, es)
	case tftypes.Map:
		m := map[string]tftypes.Value{}
		for range g.intn(4) {
			m[g.str()] = g.value(t.ElementType, depth+1)
		}
		return tftypes.NewValue(typ, m)
	case tftypes.Object:
		m := map[string]tftypes.Value{}
		for n, at := range t.AttributeTypes {
			m[n] = g.value(at, depth+1)
		}
		return tftypes.NewValue(typ, m)
	}
	switch {
	case typ.Is(tftypes.String):
		return tftypes.NewValue(typ, g.str())
	case typ.Is(tftypes.Number):
		return tftypes.NewValue(typ, fuzzNumbers[g.intn(len(fuzzNumbers))])
	case typ.Is(tftypes.Bool):
		return tftypes.NewValue(typ, g.intn(2) == 1)
	}
	return tftypes.NewValue(typ, nil) // DynamicPseudoType: none in the schemas
}

// fuzzBases are valid configurations the mutations start from, written as
// the examples are; the pools take node_class from a planned class.
func fuzzBases(tb testing.TB, srv tfprotov6.ProviderServer, schemas map[string]fuzzSchema) map[string][]tftypes.Value {
	tb.Helper()
	ctx := context.Background()
	sel := []any{map[string]any{"tags": map[string]any{"karpenter.sh/discovery": "demo"}}}
	class := func(extra map[string]any) map[string]any {
		m := map[string]any{"name": "default", "role": "KarpenterNodeRole-demo", "subnet_selector_terms": sel, "security_group_selector_terms": sel}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	classes := []map[string]any{
		class(map[string]any{
			"ami_selector_terms": []any{map[string]any{"alias": "al2023@v20251209"}},
			"block_device_mappings": []any{map[string]any{"device_name": "/dev/xvda", "root_volume": true,
				"ebs": map[string]any{"volume_size": "100Gi", "volume_type": "gp3", "encrypted": true}}},
			"kubelet": map[string]any{"max_pods": 110, "eviction_hard": map[string]any{"memory.available": "5%"},
				"eviction_soft": map[string]any{"memory.available": "10%"}, "eviction_soft_grace_period": map[string]any{"memory.available": "1m"}},
			"tags": map[string]any{"team": "platform"},
		}),
		class(map[string]any{
			"ami_family":         "Custom",
			"ami_selector_terms": []any{map[string]any{"name": "team-eks-node-al2023-*", "owner": "self"}},
			"block_device_mappings": []any{map[string]any{"device_name": "/dev/xvda", "root_volume": true,
				"ebs": map[string]any{"volume_size": "50Gi", "volume_type": "gp3"}}},
			"bootstrap": map[string]any{"format": "nodeadm",
				"register_with_taints": []any{map[string]any{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}},
				"node_labels":          map[string]any{"team": "ml"}, "pre_bootstrap_script": "sysctl --system"},
		}),
		class(map[string]any{
			"ami_selector_terms": []any{map[string]any{"alias": "bottlerocket@1.51.0"}},
			"user_data":          "[settings.kubernetes]\nallowed-unsafe-sysctls = [\"net.core.somaxconn\"]\n",
		}),
		class(map[string]any{
			"ami_selector_terms": []any{map[string]any{"alias": "al2@latest"}},
			"user_data":          "#!/bin/bash\necho hello\n",
		}),
	}
	out := map[string][]tftypes.Value{}
	ctyp := schemas["karpenter_ec2nodeclass"].schema.ValueType()
	var nodeClasses []tftypes.Value
	for _, c := range classes {
		cfg := tfValue(tb, ctyp, c)
		out["karpenter_ec2nodeclass"] = append(out["karpenter_ec2nodeclass"], cfg)
		cdv := dynamicValue(tb, ctyp, cfg)
		prior := dynamicValue(tb, ctyp, tftypes.NewValue(ctyp, nil))
		prop := dynamicValue(tb, ctyp, proposedNewState(schemas["karpenter_ec2nodeclass"].schema.Block, cfg))
		resp, err := srv.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{TypeName: "karpenter_ec2nodeclass", PriorState: &prior, ProposedNewState: &prop, Config: &cdv})
		if err != nil || resp.PlannedState == nil {
			tb.Fatalf("base class %v: %v %v", c, err, resp.Diagnostics)
		}
		for _, d := range resp.Diagnostics {
			if d.Severity == tfprotov6.DiagnosticSeverityError {
				tb.Fatalf("base class %v: %s: %s", c, d.Summary, d.Detail)
			}
		}
		planned, err := resp.PlannedState.Unmarshal(ctyp)
		if err != nil {
			tb.Fatal(err)
		}
		var m map[string]tftypes.Value
		_ = planned.As(&m)
		nodeClasses = append(nodeClasses, m["node_class"])
	}

	ptyp := schemas["karpenter_nodepool"].schema.ValueType()
	req := func(k, op string, vs ...string) map[string]any {
		values := make([]any, len(vs))
		for i, v := range vs {
			values[i] = v
		}
		return map[string]any{"key": k, "operator": op, "values": values}
	}
	pools := []map[string]any{
		{"name": "general-arm64", "weight": 50,
			"requirements": []any{req("kubernetes.io/arch", "In", "arm64"), req("karpenter.k8s.aws/instance-category", "In", "c", "m", "r"),
				req("karpenter.k8s.aws/instance-generation", "Gt", "5"), req("karpenter.sh/capacity-type", "In", "spot", "on-demand")},
			"limits": map[string]any{"cpu": "1000", "memory": "4000Gi"},
			"disruption": map[string]any{"consolidation_policy": "WhenEmptyOrUnderutilized", "consolidate_after": "1m",
				"budgets": []any{map[string]any{"nodes": "10%"}, map[string]any{"nodes": "0", "schedule": "0 9 * * mon-fri", "duration": "8h", "reasons": []any{"Drifted"}}}}},
		{"name": "gpu", "requirements": []any{req("karpenter.k8s.aws/instance-family", "In", "g5", "g5g", "m5")},
			"taints":         []any{map[string]any{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}},
			"startup_taints": []any{map[string]any{"key": "node.cilium.io/agent-not-ready", "value": "true", "effect": "NoExecute"}},
			"expire_after":   "720h"},
	}
	for i, nc := range nodeClasses {
		for _, p := range pools {
			v := tfValue(tb, ptyp, p)
			var m map[string]tftypes.Value
			_ = v.As(&m)
			m["node_class"] = conformObject(tb, m["node_class"].Type(), nc)
			if i == 0 && p["name"] == "gpu" {
				// a class managed elsewhere: only its name is known
				m["node_class"] = tfValue(tb, m["node_class"].Type(), map[string]any{"name": "shared-default"})
			}
			out["karpenter_nodepool"] = append(out["karpenter_nodepool"], tftypes.NewValue(ptyp, m))
		}
	}

	data := map[string][]map[string]any{
		"karpenter_amis": {
			{"ami_selector_terms": []any{map[string]any{"alias": "al2023@latest"}}},
			{"ami_family": "AL2023", "ami_selector_terms": []any{map[string]any{"name": "team-eks-node-al2023-*", "owner": "self"}}},
		},
		"karpenter_ami": {
			{"ami_selector_terms": []any{map[string]any{"alias": "al2023@latest"}}, "instance_type": "g5g.xlarge"},
		},
		"karpenter_instance_types": {
			{"requirements": []any{req("karpenter.k8s.aws/instance-family", "In", "m5", "g5g")}},
		},
	}
	for name, cfgs := range data {
		s, ok := schemas[name]
		if !ok {
			tb.Fatalf("no data source %s", name)
		}
		for _, c := range cfgs {
			out[name] = append(out[name], tfValue(tb, s.schema.ValueType(), c))
		}
	}
	return out
}

// conformObject converts object value v to the object type t as Terraform
// does when an expression's object is assigned to a nested attribute: the
// attributes t has and v lacks (the pool's node_class.group and kind, which
// the class's node_class leaves out) are null.
func conformObject(tb testing.TB, t tftypes.Type, v tftypes.Value) tftypes.Value {
	tb.Helper()
	ot, ok := t.(tftypes.Object)
	if !ok || !v.IsKnown() || v.IsNull() {
		return v
	}
	var attrs map[string]tftypes.Value
	if err := v.As(&attrs); err != nil {
		tb.Fatal(err)
	}
	out := map[string]tftypes.Value{}
	for name, at := range ot.AttributeTypes {
		if a, ok := attrs[name]; ok {
			out[name] = a
		} else {
			out[name] = tftypes.NewValue(at, nil)
		}
	}
	return tftypes.NewValue(t, out)
}
