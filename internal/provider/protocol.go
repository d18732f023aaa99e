package provider

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"sync/atomic"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// NewProtocol6 serves the provider as providerserver.NewProtocol6 does, but
// answers ValidateResourceConfig and PlanResourceChange of
// karpenter_ec2nodeclass and karpenter_nodepool itself. The framework's
// generic passes (emptied blocks to null, schema validation, computed
// values marked unknown, attribute plan modifiers) look every
// value's attribute up from the root of the schema, one lookup per path
// step, and cost several times the resources' own checks; here each is one
// walk of the value beside the schema. The resources' ValidateConfig and
// ModifyPlan run unchanged, so every check and diagnostic is kept;
// TestProtocolFastPathMatchesFramework compares both servers' answers.
func NewProtocol6(version string) func() tfprotov6.ProviderServer {
	return func() tfprotov6.ProviderServer { return newProtocolServer(New(version)()) }
}

// newProtocolServer wraps the framework's server of p. A resource whose
// schema uses a feature the fast path does not reproduce (validators,
// defaults, nested plan modifiers, write-only or deprecated attributes,
// custom types) keeps the framework's path.
func newProtocolServer(p provider.Provider) tfprotov6.ProviderServer {
	fw := providerserver.NewProtocol6(p)()
	full, ok := fw.(frameworkServer)
	kp, isOurs := p.(*karpenterProvider)
	if !ok || !isOurs {
		return fw
	}
	s := &protocolServer{frameworkServer: full, fast: map[string]*fastResource{}}
	s.provider = kp
	ctx := context.Background()
	var meta provider.MetadataResponse
	p.Metadata(ctx, provider.MetadataRequest{}, &meta)
	for _, f := range []func() resource.Resource{NewEC2NodeClassResource, NewNodePoolResource} {
		if fr, err := newFastResource(ctx, meta.TypeName, f); err == nil {
			s.fast[fr.typeName] = fr
		}
	}
	return s
}

// frameworkServer is every RPC interface the framework's server
// implements: tf6server finds the optional ones (list resources, actions,
// state stores) by type assertion, so the wrapper embeds them all.
type frameworkServer interface {
	tfprotov6.ProviderServer
	tfprotov6.ListResourceServer
	tfprotov6.ActionServer
	tfprotov6.StateStoreServer
}

type protocolServer struct {
	frameworkServer
	provider *karpenterProvider
	fast     map[string]*fastResource
	// served counts the requests the fast path answered (for tests).
	served atomic.Int64
}

// fastResource is what the fast path needs of one resource, built once.
type fastResource struct {
	typeName string
	factory  func() resource.Resource
	schema   schema.Schema
	typ      tftypes.Object
	root     *fastBlock
	// modifiers are the top-level attributes with plan modifiers.
	modifiers []fastModifier
}

// fastBlock is a block (or the root, or a single nested attribute's object)
// as the passes need it.
type fastBlock struct {
	attrs  map[string]*fastAttr
	blocks map[string]*fastNestedBlock
}

type fastAttr struct {
	required, computed, optional bool
	// nested is a single nested attribute's object.
	nested *fastBlock
}

type fastNestedBlock struct {
	list   bool // list or set of blocks; otherwise a single block
	object *fastBlock
}

type fastModifier struct {
	name    string
	strings []planmodifier.String
	int64s  []planmodifier.Int64
}

func newFastResource(ctx context.Context, providerType string, factory func() resource.Resource) (*fastResource, error) {
	r := factory()
	var meta resource.MetadataResponse
	r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: providerType}, &meta)
	if _, ok := r.(resource.ResourceWithConfigValidators); ok {
		return nil, fmt.Errorf("%s has config validators", meta.TypeName)
	}
	if _, ok := r.(resource.ResourceWithIdentity); ok {
		return nil, fmt.Errorf("%s has an identity", meta.TypeName)
	}
	var sr resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &sr)
	if sr.Diagnostics.HasError() || sr.Schema.DeprecationMessage != "" {
		return nil, fmt.Errorf("%s: schema diagnostics or deprecation", meta.TypeName)
	}
	typ, ok := sr.Schema.Type().TerraformType(ctx).(tftypes.Object)
	if !ok {
		return nil, fmt.Errorf("%s: schema type is not an object", meta.TypeName)
	}
	fr := &fastResource{typeName: meta.TypeName, factory: factory, schema: sr.Schema, typ: typ}
	root, err := fastBlockOf(sr.Schema.Attributes, sr.Schema.Blocks, 0, false)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", meta.TypeName, err)
	}
	fr.root = root
	for name, a := range sr.Schema.Attributes {
		m := fastModifier{name: name}
		switch a := a.(type) {
		case schema.StringAttribute:
			m.strings = a.PlanModifiers
		case schema.Int64Attribute:
			m.int64s = a.PlanModifiers
		default:
			if nonZeroField(a, "PlanModifiers") {
				return nil, fmt.Errorf("%s: plan modifiers on %s (%T)", meta.TypeName, name, a)
			}
		}
		if len(m.strings)+len(m.int64s) > 0 {
			fr.modifiers = append(fr.modifiers, m)
		}
	}
	sort.Slice(fr.modifiers, func(i, j int) bool { return fr.modifiers[i].name < fr.modifiers[j].name })
	return fr, nil
}

// fastBlockOf checks that the attributes use only what the fast path
// reproduces and records what the passes need. depth is 0 at the root;
// underComputed is true below a computed-only attribute, whose value the
// plan marks unknown as a whole.
func fastBlockOf(attrs map[string]schema.Attribute, blocks map[string]schema.Block, depth int, underComputed bool) (*fastBlock, error) {
	b := &fastBlock{attrs: map[string]*fastAttr{}, blocks: map[string]*fastNestedBlock{}}
	for name, a := range attrs {
		// Sensitive is not among them: it changes nothing the provider
		// answers (Terraform hides the value). A Default would need the
		// framework's TransformDefaults, which no attribute needs.
		for _, f := range []string{"Validators", "CustomType", "DeprecationMessage", "WriteOnly", "Default"} {
			if nonZeroField(a, f) {
				return nil, fmt.Errorf("%s sets %s", name, f)
			}
		}
		if _, dynamic := a.(schema.DynamicAttribute); dynamic {
			return nil, fmt.Errorf("%s is dynamic", name)
		}
		fa := &fastAttr{required: a.IsRequired(), computed: a.IsComputed(), optional: a.IsOptional()}
		if depth > 0 && nonZeroField(a, "PlanModifiers") {
			return nil, fmt.Errorf("%s: nested plan modifiers", name)
		}
		// A computed value is marked unknown by the framework wherever it
		// is; the fast path does so at the root, and below a computed-only
		// root attribute (unknown as a whole).
		if depth > 0 && fa.computed && !underComputed {
			return nil, fmt.Errorf("%s: computed below the root", name)
		}
		if na, ok := a.(schema.NestedAttribute); ok {
			obj, ok := na.GetNestedObject().(schema.NestedAttributeObject)
			if !ok || nonZeroField(obj, "Validators") || nonZeroField(obj, "PlanModifiers") || nonZeroField(obj, "CustomType") {
				return nil, fmt.Errorf("%s: nested object features", name)
			}
			sub := underComputed || (fa.computed && !fa.optional)
			if na.GetNestingMode() != 1 /* single */ && !sub {
				return nil, fmt.Errorf("%s: configurable nested collection", name)
			}
			nb, err := fastBlockOf(obj.Attributes, nil, depth+1, sub)
			if err != nil {
				return nil, err
			}
			if _, single := a.(schema.SingleNestedAttribute); single {
				fa.nested = nb
			}
		}
		b.attrs[name] = fa
	}
	for name, bl := range blocks {
		for _, f := range []string{"Validators", "CustomType", "DeprecationMessage", "PlanModifiers"} {
			if nonZeroField(bl, f) {
				return nil, fmt.Errorf("block %s sets %s", name, f)
			}
		}
		obj, ok := bl.GetNestedObject().(schema.NestedBlockObject)
		if !ok || nonZeroField(obj, "Validators") || nonZeroField(obj, "PlanModifiers") || nonZeroField(obj, "CustomType") {
			return nil, fmt.Errorf("block %s: nested object features", name)
		}
		nb, err := fastBlockOf(obj.Attributes, obj.Blocks, depth+2, underComputed)
		if err != nil {
			return nil, err
		}
		switch bl.(type) {
		case schema.ListNestedBlock, schema.SetNestedBlock:
			b.blocks[name] = &fastNestedBlock{list: true, object: nb}
		case schema.SingleNestedBlock:
			b.blocks[name] = &fastNestedBlock{object: nb}
		default:
			return nil, fmt.Errorf("block %s: %T", name, bl)
		}
	}
	return b, nil
}

func nonZeroField(v any, name string) bool {
	rv := reflect.Indirect(reflect.ValueOf(v))
	if rv.Kind() != reflect.Struct {
		return false
	}
	f := rv.FieldByName(name)
	return f.IsValid() && !f.IsZero()
}

// ValidateResourceConfig: the configuration decoded once, emptied blocks
// made null, the schema's own checks (a required value null, a computed-only
// one set) looked for in one walk, then the resource's ValidateConfig. When
// the schema check finds something, the framework answers, with its own
// wording: Terraform rejects those configurations before asking, so this
// costs nothing in practice.
func (s *protocolServer) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	fr := s.fast[req.TypeName]
	if fr == nil || req.Config == nil {
		return s.frameworkServer.ValidateResourceConfig(ctx, req)
	}
	cfg, err := req.Config.Unmarshal(fr.typ)
	if err != nil {
		return s.frameworkServer.ValidateResourceConfig(ctx, req)
	}
	cfg = fr.root.nullifyBlocks(cfg)
	if !fr.root.schemaValid(cfg, false) {
		return s.frameworkServer.ValidateResourceConfig(ctx, req)
	}
	r := fr.factory()
	if rc, ok := r.(resource.ResourceWithConfigure); ok {
		var cresp resource.ConfigureResponse
		rc.Configure(ctx, resource.ConfigureRequest{ProviderData: s.configured()}, &cresp)
		if cresp.Diagnostics.HasError() {
			return &tfprotov6.ValidateResourceConfigResponse{Diagnostics: protoDiagnostics(ctx, cresp.Diagnostics)}, nil
		}
	}
	var resp resource.ValidateConfigResponse
	if rv, ok := r.(resource.ResourceWithValidateConfig); ok {
		vreq := resource.ValidateConfigRequest{Config: tfsdk.Config{Raw: cfg, Schema: fr.schema}}
		if req.ClientCapabilities != nil {
			vreq.ClientCapabilities.WriteOnlyAttributesAllowed = req.ClientCapabilities.WriteOnlyAttributesAllowed
		}
		rv.ValidateConfig(ctx, vreq, &resp)
	}
	if conversionFailed(resp.Diagnostics) {
		// A value the attribute's type cannot hold (a fraction for an
		// integer): the framework reports it at each place it reads it.
		return s.frameworkServer.ValidateResourceConfig(ctx, req)
	}
	s.served.Add(1)
	return &tfprotov6.ValidateResourceConfigResponse{Diagnostics: protoDiagnostics(ctx, resp.Diagnostics)}, nil
}

// configured is the provider data ConfigureProvider produced, as the
// framework hands it to resources (nil before).
func (s *protocolServer) configured() any {
	if s.provider == nil {
		return nil
	}
	if pd := s.provider.configured.Load(); pd != nil {
		return pd
	}
	return nil
}

// nullifyBlocks makes each known, empty list of blocks null, at any depth,
// as the framework does to every configuration, plan and state it reads
// (Terraform sends an empty list for blocks not written).
func (b *fastBlock) nullifyBlocks(v tftypes.Value) tftypes.Value {
	out, _ := b.rewriteBlockLists(v, func(l tftypes.Value) (tftypes.Value, bool) {
		var elems []tftypes.Value
		if l.IsNull() || l.As(&elems) != nil || len(elems) > 0 {
			return l, false
		}
		return tftypes.NewValue(l.Type(), nil), true
	})
	return out
}

// reifyBlocks makes each null list of blocks an empty list, at any depth,
// as the framework does to every value it sends.
func (b *fastBlock) reifyBlocks(v tftypes.Value) tftypes.Value {
	out, _ := b.rewriteBlockLists(v, func(l tftypes.Value) (tftypes.Value, bool) {
		if !l.IsNull() {
			return l, false
		}
		return tftypes.NewValue(l.Type(), []tftypes.Value{}), true
	})
	return out
}

// rewriteBlockLists replaces each known list of blocks below v, at any
// depth, with f's answer (f says whether it changed it), rebuilding only
// the objects on the way to a change.
func (b *fastBlock) rewriteBlockLists(v tftypes.Value, f func(tftypes.Value) (tftypes.Value, bool)) (tftypes.Value, bool) {
	if len(b.blocks) == 0 || v.IsNull() || !v.IsKnown() {
		return v, false
	}
	var attrs map[string]tftypes.Value
	if err := v.As(&attrs); err != nil {
		return v, false
	}
	changed := false
	for name, nb := range b.blocks {
		bv, ok := attrs[name]
		if !ok || !bv.IsKnown() {
			continue
		}
		var nv tftypes.Value
		var c bool
		if nb.list {
			nv, c = f(bv)
			if ec := false; !nv.IsNull() && len(nb.object.blocks) > 0 {
				nv, ec = nb.object.rewriteElements(nv, f)
				c = c || ec
			}
		} else {
			nv, c = nb.object.rewriteBlockLists(bv, f)
		}
		if c {
			if !changed {
				attrs = maps.Clone(attrs) // As returns the value's own map
			}
			attrs[name], changed = nv, true
		}
	}
	if !changed {
		return v, false
	}
	return tftypes.NewValue(v.Type(), attrs), true
}

// rewriteElements applies rewriteBlockLists to each block of a list.
func (b *fastBlock) rewriteElements(l tftypes.Value, f func(tftypes.Value) (tftypes.Value, bool)) (tftypes.Value, bool) {
	var elems []tftypes.Value
	if !l.IsKnown() || l.As(&elems) != nil {
		return l, false
	}
	changed := false
	for i, e := range elems {
		if ne, c := b.rewriteBlockLists(e, f); c {
			if !changed {
				elems = slices.Clone(elems) // As returns the value's own slice
			}
			elems[i], changed = ne, true
		}
	}
	if !changed {
		return l, false
	}
	return tftypes.NewValue(l.Type(), elems), true
}

// oddElements reports a null or unknown block in a list of blocks, which
// HCL never sends (a dynamic block over an unknown value makes the whole
// list unknown): the framework plans such an element as an object of null
// or unknown attributes, which the fast path leaves to it.
func (b *fastBlock) oddElements(v tftypes.Value) bool {
	if len(b.blocks) == 0 || v.IsNull() || !v.IsKnown() {
		return false
	}
	var attrs map[string]tftypes.Value
	if err := v.As(&attrs); err != nil {
		return true
	}
	return !b.allBlocks(attrs, func(o *fastBlock, e tftypes.Value, inList bool) bool {
		odd := inList && (e.IsNull() || !e.IsKnown())
		return !odd && !o.oddElements(e)
	})
}

// allBlocks reports whether ok holds for each block below attrs: a single
// block's value, and each element of a known list of blocks.
func (b *fastBlock) allBlocks(attrs map[string]tftypes.Value, ok func(object *fastBlock, v tftypes.Value, inList bool) bool) bool {
	for name, nb := range b.blocks {
		bv := attrs[name]
		if !nb.list {
			if !ok(nb.object, bv, false) {
				return false
			}
			continue
		}
		if bv.IsNull() || !bv.IsKnown() {
			continue
		}
		var elems []tftypes.Value
		if bv.As(&elems) != nil {
			return false
		}
		for _, e := range elems {
			if !ok(nb.object, e, true) {
				return false
			}
		}
	}
	return true
}

// conversionFailed reports a value the framework could not convert to its
// attribute's type.
func conversionFailed(diags diag.Diagnostics) bool {
	for _, d := range diags {
		switch d.Summary() {
		case "Value Conversion Error", "Configuration Read Error", "Plan Read Error", "State Read Error":
			return true
		}
	}
	return false
}

// schemaValid reports whether the framework's schema validation would find
// nothing: no required attribute null, no computed-only attribute set. The
// framework reads a block's attributes from the root, and below a null or
// unknown block every attribute reads as null; it does not look inside a
// null or unknown nested attribute.
func (b *fastBlock) schemaValid(v tftypes.Value, parentNull bool) bool {
	absent := parentNull || v.IsNull() || !v.IsKnown()
	var attrs map[string]tftypes.Value
	if !absent {
		if err := v.As(&attrs); err != nil {
			return false
		}
	}
	for name, a := range b.attrs {
		av, present := attrs[name]
		isNull := absent || !present || av.IsNull()
		if a.required && isNull {
			return false
		}
		if isNull {
			continue
		}
		if a.computed && !a.optional {
			return false
		}
		if a.nested != nil && av.IsKnown() && !a.nested.schemaValid(av, false) {
			return false
		}
	}
	if absent {
		for _, nb := range b.blocks {
			// A list below an absent block has no elements.
			if !nb.list && !nb.object.schemaValid(tftypes.Value{}, true) {
				return false
			}
		}
		return true
	}
	return b.allBlocks(attrs, func(o *fastBlock, e tftypes.Value, _ bool) bool { return o.schemaValid(e, false) })
}

// PlanResourceChange of a create or update (a destroy, or a request with
// private state, goes to the framework): the framework's passes in one walk
// each, then the resource's ModifyPlan.
func (s *protocolServer) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	fr := s.fast[req.TypeName]
	if fr == nil || req.ProposedNewState == nil || len(req.PriorPrivate) > 0 {
		return s.frameworkServer.PlanResourceChange(ctx, req)
	}
	decode := func(dv *tfprotov6.DynamicValue) (tftypes.Value, error) {
		if dv == nil {
			return tftypes.NewValue(fr.typ, nil), nil
		}
		v, err := dv.Unmarshal(fr.typ)
		if err != nil {
			return v, err
		}
		return fr.root.nullifyBlocks(v), nil
	}
	proposed, err := decode(req.ProposedNewState)
	if err != nil || proposed.IsNull() || fr.root.oddElements(proposed) {
		return s.frameworkServer.PlanResourceChange(ctx, req)
	}
	cfg, err := decode(req.Config)
	if err != nil {
		return s.frameworkServer.PlanResourceChange(ctx, req)
	}
	prior, err := decode(req.PriorState)
	if err != nil {
		return s.frameworkServer.PlanResourceChange(ctx, req)
	}
	var diags diag.Diagnostics
	r := fr.factory()
	if rc, ok := r.(resource.ResourceWithConfigure); ok {
		var cresp resource.ConfigureResponse
		rc.Configure(ctx, resource.ConfigureRequest{ProviderData: s.configured()}, &cresp)
		diags.Append(cresp.Diagnostics...)
		if diags.HasError() {
			return s.frameworkServer.PlanResourceChange(ctx, req)
		}
	}
	planned := proposed
	if !proposed.Equal(prior) {
		planned = fr.markComputedUnknown(proposed, cfg)
	}
	config := tfsdk.Config{Raw: cfg, Schema: fr.schema}
	state := tfsdk.State{Raw: prior, Schema: fr.schema}
	planned, replace, d := fr.modifyAttributes(ctx, config, tfsdk.Plan{Raw: planned, Schema: fr.schema}, state)
	diags.Append(d...)
	if diags.HasError() {
		// The framework's answer, planned state included.
		return s.frameworkServer.PlanResourceChange(ctx, req)
	}
	var deferred *tfprotov6.Deferred
	if rm, ok := r.(resource.ResourceWithModifyPlan); ok {
		mreq := resource.ModifyPlanRequest{Config: config, Plan: tfsdk.Plan{Raw: planned, Schema: fr.schema}, State: state}
		if req.ClientCapabilities != nil {
			mreq.ClientCapabilities.DeferralAllowed = req.ClientCapabilities.DeferralAllowed
		}
		mresp := resource.ModifyPlanResponse{Diagnostics: diags, Plan: mreq.Plan, RequiresReplace: path.Paths{}}
		rm.ModifyPlan(ctx, mreq, &mresp)
		diags = mresp.Diagnostics
		planned = mresp.Plan.Raw
		replace = append(replace, mresp.RequiresReplace...)
		if mresp.Deferred != nil {
			deferred = &tfprotov6.Deferred{Reason: tfprotov6.DeferredReason(mresp.Deferred.Reason)}
		}
	}
	if conversionFailed(diags) {
		return s.frameworkServer.PlanResourceChange(ctx, req)
	}
	resp := &tfprotov6.PlanResourceChangeResponse{Deferred: deferred, Diagnostics: protoDiagnostics(ctx, diags)}
	// The framework sends each null list of blocks as an empty list.
	planned = fr.root.reifyBlocks(planned)
	if dv, err := tfprotov6.NewDynamicValue(fr.typ, planned); err == nil {
		resp.PlannedState = &dv
	} else {
		resp.Diagnostics = append(resp.Diagnostics, &tfprotov6.Diagnostic{Severity: tfprotov6.DiagnosticSeverityError,
			Summary: "Unable to Convert State", Detail: "An unexpected error was encountered when converting the state to the protocol type: " + err.Error()})
	}
	for _, p := range normaliseReplace(replace) {
		tp, d := protocolPath(ctx, p)
		if d.HasError() {
			resp.Diagnostics = append(resp.Diagnostics, protoDiagnostics(ctx, d)...)
			break
		}
		resp.RequiresReplace = append(resp.RequiresReplace, tp)
	}
	s.served.Add(1)
	return resp, nil
}

// objectAttrs returns the attributes of a known object plan and of its
// configuration (none when that is null or unknown).
func objectAttrs(plan, cfg tftypes.Value) (attrs, cattrs map[string]tftypes.Value, ok bool) {
	if plan.IsNull() || !plan.IsKnown() || plan.As(&attrs) != nil {
		return nil, nil, false
	}
	if cfg.IsKnown() && !cfg.IsNull() {
		_ = cfg.As(&cattrs)
	}
	return attrs, cattrs, true
}

// markComputedUnknown marks unknown each computed root attribute that the
// configuration leaves null, so ModifyPlan may set it
// (the framework does this whenever the plan differs from the state).
func (fr *fastResource) markComputedUnknown(plan, cfg tftypes.Value) tftypes.Value {
	attrs, cattrs, ok := objectAttrs(plan, cfg)
	if !ok {
		return plan
	}
	changed := false
	for name, a := range fr.root.attrs {
		if !a.computed {
			continue
		}
		if cv, set := cattrs[name]; set && !cv.IsNull() {
			continue
		}
		if pv := attrs[name]; pv.IsKnown() {
			if !changed {
				attrs = maps.Clone(attrs) // As returns the value's own map
			}
			attrs[name], changed = tftypes.NewValue(fr.typ.AttributeTypes[name], tftypes.UnknownValue), true
		}
	}
	if !changed {
		return plan
	}
	return tftypes.NewValue(plan.Type(), attrs)
}

// modifyAttributes runs the root attributes' plan modifiers as the
// framework does: each sees the plan before any of them ran, and its
// result replaces the attribute's planned value.
func (fr *fastResource) modifyAttributes(ctx context.Context, config tfsdk.Config, plan tfsdk.Plan, state tfsdk.State) (tftypes.Value, path.Paths, diag.Diagnostics) {
	var diags diag.Diagnostics
	var replace path.Paths
	if len(fr.modifiers) == 0 {
		return plan.Raw, nil, nil
	}
	get := func(v tftypes.Value, name string) tftypes.Value {
		if v.IsNull() || !v.IsKnown() {
			return tftypes.NewValue(fr.typ.AttributeTypes[name], func() any {
				if v.IsNull() {
					return nil
				}
				return tftypes.UnknownValue
			}())
		}
		var attrs map[string]tftypes.Value
		_ = v.As(&attrs)
		return attrs[name]
	}
	var planAttrs map[string]tftypes.Value
	if err := plan.Raw.As(&planAttrs); err != nil {
		return plan.Raw, nil, nil
	}
	changed := false
	for _, m := range fr.modifiers {
		p := path.Root(m.name)
		cv, pv, sv := get(config.Raw, m.name), planAttrs[m.name], get(state.Raw, m.name)
		var out attr.Value
		var repl, failed bool
		var d diag.Diagnostics
		if len(m.strings) > 0 {
			req := planmodifier.StringRequest{Path: p, PathExpression: path.MatchRoot(m.name), Config: config, Plan: plan, State: state,
				ConfigValue: stringOf(ctx, cv), PlanValue: stringOf(ctx, pv), StateValue: stringOf(ctx, sv)}
			out, repl, d, failed = runModifiers(m.strings, req.PlanValue, func(mod planmodifier.String, v types.String) (types.String, bool, diag.Diagnostics) {
				req.PlanValue = v
				resp := planmodifier.StringResponse{PlanValue: v}
				mod.PlanModifyString(ctx, req, &resp)
				return resp.PlanValue, resp.RequiresReplace, resp.Diagnostics
			})
		} else {
			req := planmodifier.Int64Request{Path: p, PathExpression: path.MatchRoot(m.name), Config: config, Plan: plan, State: state,
				ConfigValue: int64Of(ctx, cv), PlanValue: int64Of(ctx, pv), StateValue: int64Of(ctx, sv)}
			out, repl, d, failed = runModifiers(m.int64s, req.PlanValue, func(mod planmodifier.Int64, v types.Int64) (types.Int64, bool, diag.Diagnostics) {
				req.PlanValue = v
				resp := planmodifier.Int64Response{PlanValue: v}
				mod.PlanModifyInt64(ctx, req, &resp)
				return resp.PlanValue, resp.RequiresReplace, resp.Diagnostics
			})
		}
		diags.Append(d...)
		if repl {
			replace.Append(p)
		}
		if failed {
			return plan.Raw, replace, diags
		}
		tv, err := out.ToTerraformValue(ctx)
		if err != nil {
			return plan.Raw, replace, diags
		}
		if !tv.Equal(pv) {
			if !changed {
				planAttrs = maps.Clone(planAttrs) // As returns the value's own map
			}
			planAttrs[m.name], changed = tv, true
		}
	}
	if !changed {
		return plan.Raw, replace, diags
	}
	return tftypes.NewValue(plan.Raw.Type(), planAttrs), replace, diags
}

// runModifiers runs one attribute's plan modifiers in order, each on the
// value the previous one planned, and stops at the first that fails.
func runModifiers[M any, V attr.Value](mods []M, v V, call func(M, V) (V, bool, diag.Diagnostics)) (out V, replace bool, diags diag.Diagnostics, failed bool) {
	out = v
	for _, mod := range mods {
		next, repl, d := call(mod, out)
		out = next
		diags.Append(d...)
		replace = replace || repl
		if d.HasError() {
			return out, replace, diags, true
		}
	}
	return out, replace, diags, false
}

func stringOf(ctx context.Context, v tftypes.Value) types.String {
	av, err := types.StringType.ValueFromTerraform(ctx, v)
	if s, ok := av.(types.String); ok && err == nil {
		return s
	}
	return types.StringNull()
}

func int64Of(ctx context.Context, v tftypes.Value) types.Int64 {
	av, err := types.Int64Type.ValueFromTerraform(ctx, v)
	if i, ok := av.(types.Int64); ok && err == nil {
		return i
	}
	return types.Int64Null()
}

// normaliseReplace sorts and deduplicates, as the framework does.
func normaliseReplace(ps path.Paths) path.Paths {
	if len(ps) < 2 {
		return ps
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].String() < ps[j].String() })
	out := ps[:1]
	for _, p := range ps[1:] {
		if !p.Equal(out[len(out)-1]) {
			out = append(out, p)
		}
	}
	return out
}

// protoDiagnostics converts diagnostics as the framework's server does.
func protoDiagnostics(ctx context.Context, diags diag.Diagnostics) []*tfprotov6.Diagnostic {
	var out []*tfprotov6.Diagnostic
	for _, d := range diags {
		pd := &tfprotov6.Diagnostic{Detail: d.Detail(), Summary: d.Summary(), Severity: tfprotov6.DiagnosticSeverityInvalid}
		switch d.Severity() {
		case diag.SeverityError:
			pd.Severity = tfprotov6.DiagnosticSeverityError
		case diag.SeverityWarning:
			pd.Severity = tfprotov6.DiagnosticSeverityWarning
		}
		if dp, ok := d.(diag.DiagnosticWithPath); ok {
			var pdiags diag.Diagnostics
			pd.Attribute, pdiags = protocolPath(ctx, dp.Path())
			if pdiags.HasError() {
				out = append(out, protoDiagnostics(ctx, pdiags)...)
			}
		}
		out = append(out, pd)
	}
	return out
}

// protocolPath converts a framework path to the protocol's.
func protocolPath(ctx context.Context, p path.Path) (*tftypes.AttributePath, diag.Diagnostics) {
	steps := make([]tftypes.AttributePathStep, 0, len(p.Steps()))
	for _, st := range p.Steps() {
		switch st := st.(type) {
		case path.PathStepAttributeName:
			steps = append(steps, tftypes.AttributeName(string(st)))
		case path.PathStepElementKeyInt:
			steps = append(steps, tftypes.ElementKeyInt(int64(st)))
		case path.PathStepElementKeyString:
			steps = append(steps, tftypes.ElementKeyString(string(st)))
		case path.PathStepElementKeyValue:
			v, err := st.ToTerraformValue(ctx)
			if err != nil {
				return nil, pathError(p, fmt.Errorf("unable to convert attr.Value (%s) to tftypes.Value: %w", st.Value.String(), err))
			}
			steps = append(steps, tftypes.ElementKeyValue(v))
		default:
			return nil, pathError(p, fmt.Errorf("unknown path.PathStep: %#v", st))
		}
	}
	return tftypes.NewAttributePathWithSteps(steps), nil
}

func pathError(p path.Path, err error) diag.Diagnostics {
	return diag.Diagnostics{diag.NewErrorDiagnostic("Unable to Convert Attribute Path",
		"An unexpected error occurred while trying to convert an attribute path. "+
			"This is either an error in terraform-plugin-framework or a custom attribute type used by the provider. "+
			"Please report the following to the provider developers.\n\n"+
			fmt.Sprintf("Attribute Path: %s\n", p.String())+
			fmt.Sprintf("Original Error: %s", err))}
}
