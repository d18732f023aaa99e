package nodepool

import (
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/requirements"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules/rulestest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// This file decodes the docs examples (HCL of the karpenter_nodepool
// interface) into Pools, the way the resource's adapter does, so that every
// rule's Bad example is proven to trigger it and its Good example not to.
// Configuration objects are blocks: list blocks arrive in order, dynamic
// blocks expanded as Terraform expands them.

// decodedExample is one docs example.
type decodedExample struct {
	pool      Pool
	karpenter versions.Karpenter
	className string // karpenter_ec2nodeclass.<className>.node_class, "" for a literal
	offline   bool   // a provider block without region: the embedded catalogue
}

func decodeExample(t testing.TB, src string) decodedExample {
	t.Helper()
	f, diags := hclsyntax.ParseConfig([]byte(src), "example.tf", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("parse: %s\n%s", diags.Error(), src)
	}
	body := f.Body.(*hclsyntax.Body)
	ex := decodedExample{karpenter: versions.DefaultKarpenter}
	ctx := &hcl.EvalContext{Functions: map[string]function.Function{"range": stdlib.RangeFunc}}
	var res *hclsyntax.Block
	for _, b := range body.Blocks {
		switch {
		case b.Type == "provider":
			if a, ok := b.Body.Attributes["karpenter_version"]; ok {
				ex.karpenter = kv(evalString(t, a.Expr, ctx))
			}
			_, hasRegion := b.Body.Attributes["region"]
			ex.offline = !hasRegion
		case b.Type == "resource" && b.Labels[0] == "karpenter_nodepool":
			res = b
		}
	}
	if res == nil {
		t.Fatalf("no karpenter_nodepool in\n%s", src)
	}
	p := Pool{Unknown: rules.Unknowns{}, Empty: PathSet{}}
	for name, a := range res.Body.Attributes {
		if name == "node_class" {
			ex.className = decodeNodeClass(t, a.Expr, ctx, &p)
			continue
		}
		v, d := a.Expr.Value(ctx)
		if d.HasErrors() {
			t.Fatalf("%s: %s", name, d.Error())
		}
		decodeAttr(t, name, v, &p)
	}
	decodeBlocks(t, expandBlocks(t, res.Body.Blocks, ctx), &p)
	return ex.withPool(p)
}

func (ex decodedExample) withPool(p Pool) decodedExample { ex.pool = p; return ex }

// block is a decoded block: its arguments' values and its nested blocks.
type block struct {
	typ    string
	attrs  map[string]cty.Value
	blocks []block
}

// expandBlocks evaluates blocks in order; a dynamic "x" block becomes one
// x block per element of its for_each, its content evaluated with x.key
// and x.value, as Terraform does before the provider sees the blocks.
func expandBlocks(t testing.TB, bs hclsyntax.Blocks, ctx *hcl.EvalContext) []block {
	t.Helper()
	var out []block
	for _, b := range bs {
		if b.Type != "dynamic" {
			out = append(out, evalBlock(t, b.Type, b.Body, ctx))
			continue
		}
		name := b.Labels[0]
		forEach, ok := b.Body.Attributes["for_each"]
		if !ok || len(b.Body.Blocks) != 1 || b.Body.Blocks[0].Type != "content" || len(b.Body.Attributes) != 1 {
			t.Fatalf("dynamic %q: the decoder knows for_each and one content block only", name)
		}
		v, d := forEach.Expr.Value(ctx)
		if d.HasErrors() {
			t.Fatalf("dynamic %q for_each: %s", name, d.Error())
		}
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			child := ctx.NewChild()
			child.Variables = map[string]cty.Value{name: cty.ObjectVal(map[string]cty.Value{"key": k, "value": e})}
			out = append(out, evalBlock(t, name, b.Body.Blocks[0].Body, child))
		}
	}
	return out
}

func evalBlock(t testing.TB, typ string, body *hclsyntax.Body, ctx *hcl.EvalContext) block {
	t.Helper()
	out := block{typ: typ, attrs: map[string]cty.Value{}}
	for name, a := range body.Attributes {
		v, d := a.Expr.Value(ctx)
		if d.HasErrors() {
			t.Fatalf("%s.%s: %s", typ, name, d.Error())
		}
		out.attrs[name] = v
	}
	out.blocks = expandBlocks(t, body.Blocks, ctx)
	return out
}

// str returns the argument's string, "" when it is not set.
func (b block) str(name string) string {
	if v, ok := b.attrs[name]; ok {
		return v.AsString()
	}
	return ""
}

// strPtr is str for optional arguments.
func (b block) strPtr(name string) *string {
	if v, ok := b.attrs[name]; ok {
		s := v.AsString()
		return &s
	}
	return nil
}

// only fails unless the block has no other arguments or nested blocks.
func (b block) only(t testing.TB, attrs ...string) {
	t.Helper()
	known := map[string]bool{}
	for _, a := range attrs {
		known[a] = true
	}
	for name := range b.attrs {
		if !known[name] {
			t.Fatalf("example uses %s.%s, which the decoder does not know", b.typ, name)
		}
	}
	for _, c := range b.blocks {
		if !known[c.typ] {
			t.Fatalf("example uses a %s block in %s, which the decoder does not know", c.typ, b.typ)
		}
	}
}

func evalString(t testing.TB, e hcl.Expression, ctx *hcl.EvalContext) string {
	v, d := e.Value(ctx)
	if d.HasErrors() || v.Type() != cty.String {
		t.Fatalf("not a string: %s", d.Error())
	}
	return v.AsString()
}

// decodeNodeClass: a reference karpenter_ec2nodeclass.<n>.node_class names
// a fixture class; a literal object is decoded as written.
func decodeNodeClass(t testing.TB, e hcl.Expression, ctx *hcl.EvalContext, p *Pool) string {
	if tr, ok := e.(*hclsyntax.ScopeTraversalExpr); ok {
		parts := tr.Traversal
		if len(parts) != 3 || parts.RootName() != "karpenter_ec2nodeclass" {
			t.Fatalf("unexpected node_class reference %v", parts)
		}
		name := parts[1].(hcl.TraverseAttr).Name
		// The class's own name is its resource's name attribute; the
		// fixtures use the label with dashes.
		p.Manifest.Spec.Template.Spec.NodeClassRef = NodeClassRef(nil, nil, strings.ReplaceAll(name, "_", "-"))
		return name
	}
	v, d := e.Value(ctx)
	if d.HasErrors() {
		t.Fatalf("node_class: %s", d.Error())
	}
	get := func(k string) *string {
		if !v.Type().HasAttribute(k) || v.GetAttr(k).IsNull() {
			return nil
		}
		s := v.GetAttr(k).AsString()
		return &s
	}
	name := ""
	if n := get("name"); n != nil {
		name = *n
	}
	p.Manifest.Spec.Template.Spec.NodeClassRef = NodeClassRef(get("group"), get("kind"), name)
	if f := get("ami_family"); f != nil {
		p.Class.Family = amifamily.Family(*f)
	}
	return ""
}

func str(v cty.Value) string { return v.AsString() }

func num(t testing.TB, v cty.Value) int64 {
	bf := v.AsBigFloat()
	i, acc := bf.Int64()
	if acc != big.Exact {
		t.Fatalf("not an integer: %v", bf)
	}
	return i
}

// decodeAttr decodes the resource's arguments.
func decodeAttr(t testing.TB, name string, v cty.Value, p *Pool) {
	spec := &p.Manifest.Spec
	tmpl := &spec.Template.Spec
	switch name {
	case "name":
		p.Manifest.Metadata.Name = str(v)
	case "labels":
		spec.Template.Metadata = &manifest.TemplateMeta{Labels: strMap(v)}
	case "expire_after":
		tmpl.ExpireAfter = str(v)
		if tmpl.ExpireAfter == "" {
			p.Empty.Add(pathExpireAfter)
		}
	case "termination_grace_period":
		tmpl.TerminationGracePeriod = str(v)
		if tmpl.TerminationGracePeriod == "" {
			p.Empty.Add(pathTerminationGracePeriod)
		}
	case "limits":
		spec.Limits = strMap(v)
	case "weight":
		w := int32(num(t, v))
		spec.Weight = &w
	case "replicas":
		r := num(t, v)
		spec.Replicas = &r
	default:
		t.Fatalf("example uses an argument the decoder does not know: %s", name)
	}
}

// decodeBlocks decodes the resource's blocks: requirements, taints and
// startup_taints (list blocks, in order) and disruption (one block, with
// its budgets list blocks).
func decodeBlocks(t testing.TB, bs []block, p *Pool) {
	spec := &p.Manifest.Spec
	tmpl := &spec.Template.Spec
	index := map[string]int{}
	for _, b := range bs {
		i := index[b.typ]
		index[b.typ]++
		switch b.typ {
		case "requirements":
			b.only(t, "key", "operator", "values", "min_values")
			r := manifest.Requirement{Key: b.str("key"), Operator: b.str("operator")}
			if v, ok := b.attrs["values"]; ok {
				r.Values = strList(v)
			}
			if v, ok := b.attrs["min_values"]; ok {
				n := int(num(t, v))
				r.MinValues = &n
			}
			tmpl.Requirements = append(tmpl.Requirements, r)
		case "taints", "startup_taints":
			b.only(t, "key", "value", "effect")
			tt := manifest.Taint{Key: b.str("key"), Value: b.str("value"), Effect: b.str("effect")}
			if v := b.strPtr("value"); v != nil && *v == "" {
				p.Empty.Add(rules.Root(b.typ).Index(i).Attr("value"))
			}
			if b.typ == "taints" {
				tmpl.Taints = append(tmpl.Taints, tt)
			} else {
				tmpl.StartupTaints = append(tmpl.StartupTaints, tt)
			}
		case "disruption":
			if i > 0 {
				t.Fatal("disruption is a single block")
			}
			b.only(t, "consolidation_policy", "consolidate_after", "budgets")
			d := &manifest.Disruption{ConsolidationPolicy: b.str("consolidation_policy"), ConsolidateAfter: b.strPtr("consolidate_after")}
			for _, bb := range b.blocks {
				bb.only(t, "nodes", "schedule", "duration", "reasons")
				budget := manifest.Budget{Nodes: bb.str("nodes"), Schedule: bb.strPtr("schedule"), Duration: bb.strPtr("duration")}
				if v, ok := bb.attrs["reasons"]; ok {
					budget.Reasons = strList(v)
				}
				d.Budgets = append(d.Budgets, budget)
			}
			spec.Disruption = d
		default:
			t.Fatalf("example uses a block the decoder does not know: %s", b.typ)
		}
	}
}

func strMap(v cty.Value) map[string]string {
	out := map[string]string{}
	for it := v.ElementIterator(); it.Next(); {
		k, e := it.Element()
		out[k.AsString()] = e.AsString()
	}
	return out
}

func strList(v cty.Value) []string {
	var out []string
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		out = append(out, e.AsString())
	}
	return out
}

// run applies what the resource applies: Validate, then (when it passes,
// as Terraform stops at validation errors) Check with the live catalogue.
func (e env) run(t testing.TB, ex decodedExample) rules.Findings {
	t.Helper()
	p := ex.pool
	if ex.className != "" {
		p.Class = e.namedClass(t, ex.className, ex.karpenter)
	}
	fs := Validate(p, ex.karpenter)
	if !CrossChecksApply(fs) {
		return fs
	}
	cat := e.live
	if ex.offline {
		cat = instancetype.Embedded()
	}
	return append(fs, Check(p, cat, ex.karpenter).Findings...)
}

func ourRules() []*rules.Rule {
	var out []*rules.Rule
	for _, r := range rules.All() {
		if r.Category == Category || r.Category == ClassCategory || r.Category == requirements.Category {
			out = append(out, r)
		}
	}
	return out
}

// TestDocsExamples: every rule of this package, and of requirements and
// instancetype (which a NodePool reports), has HCL examples of the resource
// interface; Bad triggers the rule, Good neither triggers it nor fails the
// plan.
func TestDocsExamples(t *testing.T) {
	e := newEnv(t)
	rs := ourRules()
	if len(rs) < 30 {
		t.Fatalf("only %d rules", len(rs))
	}
	for _, r := range rs {
		t.Run(r.ID, func(t *testing.T) {
			if !strings.Contains(r.Bad, `resource "karpenter_nodepool"`) || !strings.Contains(r.Good, `resource "karpenter_nodepool"`) {
				t.Fatalf("examples must be karpenter_nodepool resources")
			}
			bad := e.run(t, decodeExample(t, r.Bad))
			if len(bad.ByRule(r.ID)) == 0 {
				t.Errorf("Bad example does not trigger %s (got %v):\n%s", r.ID, ruleIDs(bad), r.Bad)
			}
			good := e.run(t, decodeExample(t, r.Good))
			if len(good.ByRule(r.ID)) > 0 || good.HasErrors() {
				t.Errorf("Good example of %s has findings %v:\n%s", r.ID, good, r.Good)
			}
		})
	}
}

// The reused rules' examples belong to their packages; here each is shown
// to be reachable from a NodePool.
func TestReusedRulesAreReported(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		id, src string
	}{
		{ruleArm64GPU.ID, exampleOn("al2", families("g5g"))},
		{ruleNonAliasGPU.ID, exampleOn("custom_images", families("g5"))},
		{ruleAMDGPU.ID, exampleOn("al2023", families("g4ad"))},
		{ruleVariantSwap.ID, atVersion("1.0.1", exampleOn("al2023", families("g5")))},
		{ruleFirstMatch.ID, atVersion("1.3", exampleOn("al2023", families("m5", "g5", "inf2")))},
		{ruleUnregistered.ID, exampleOn("custom_bare", families("m5"))},
		{instancetype.RuleUnknownName.ID, example(reqs(req("node.kubernetes.io/instance-type", "In", "g5g.medium", "g5g.xlarge")))},
		{"requirements-admit-no-instance-type", example(reqs(req("kubernetes.io/arch", "In", "arm64"), req("karpenter.k8s.aws/instance-gpu-manufacturer", "In", "amd")))},
		{"requirement-key-karpenter-domain", example(`labels = { "notkarpenter.sh/team" = "a" }`)},
		{"requirement-key-kubernetes-domain", atVersion("1.8", example(`labels = { "node-role.kubernetes.io/worker" = "true" }`))},
		{"requirement-key-aws-domain", example(`labels = { "karpenter.k8s.aws/instance-pods" = "10" }`)},
		{"requirement-key-hostname", example(`labels = { "kubernetes.io/hostname" = "a" }`)},
		{"requirement-key-ec2nodeclass", example(`labels = { "karpenter.k8s.aws/ec2nodeclass" = "default" }`)},
		{"requirement-operator-unknown", example(reqs(req("kubernetes.io/arch", "in", "arm64")))},
	}
	for _, c := range cases {
		t.Run(c.id, func(t *testing.T) {
			ex := decodeExample(t, c.src)
			if ex.className == "custom_bare" {
				ex.className = ""
				ex.pool.Class = e.namedClass(t, "custom", ex.karpenter)
				ex.pool.Class.RegisteredTaints = nil
			}
			fs := e.run(t, ex)
			if len(fs.ByRule(c.id)) == 0 {
				t.Errorf("%s not reported: %v", c.id, fs)
			}
		})
	}
}

func ExampleValidate() {
	p := Pool{Unknown: rules.Unknowns{}, Empty: PathSet{}}
	p.Manifest.Metadata.Name = "gpu"
	p.Manifest.Spec.Template.Spec.NodeClassRef = NodeClassRef(nil, nil, "al2")
	p.Manifest.Spec.Template.Spec.Requirements = []manifest.Requirement{{Key: "karpenter.k8s.aws/instance-family", Operator: "In", Values: []string{"g5g"}}}
	p.Class.Family = amifamily.AL2 // node_class = { name = "al2", ami_family = "AL2" }
	for _, f := range Validate(p, versions.DefaultKarpenter) {
		fmt.Println(f.Severity, f.Summary(), "at", f.Path)
	}
	// Output: error arm64-gpu-no-image: the AMI family has no arm64 GPU image at requirements
}

// TestExamplesAreFormattedBlocks: the examples are what a reader copies, so
// they must be `terraform fmt`-clean and write configuration objects as
// blocks, as the provider's schema declares them.
func TestExamplesAreFormattedBlocks(t *testing.T) {
	if n := rulestest.CheckExamples(t, Category, ClassCategory); n < 30 {
		t.Fatalf("only %d rules checked", n)
	}
}
