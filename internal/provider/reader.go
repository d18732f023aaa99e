package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// reader converts Terraform values into plain Go values for the domain
// packages and records which attribute paths were unknown, so checks skip
// them. Null reads as the zero value (or nil pointer).
type reader struct {
	unknown rules.Unknowns
	// findings are values the reader could not read (e.g. a malformed
	// node_class.amis entry written by hand), reported once, at their path.
	findings rules.Findings
}

func newReader() *reader { return &reader{unknown: rules.Unknowns{}} }

func (r *reader) mark(v attr.Value, p rules.Path) bool {
	if v == nil || v.IsNull() {
		return false
	}
	if v.IsUnknown() {
		r.unknown.Add(p)
		return false
	}
	return true
}

func (r *reader) str(v attr.Value, p rules.Path) string {
	if s, ok := v.(types.String); ok && r.mark(v, p) {
		return s.ValueString()
	}
	return ""
}

func (r *reader) strPtr(v attr.Value, p rules.Path) *string {
	if s, ok := v.(types.String); ok && r.mark(v, p) {
		out := s.ValueString()
		return &out
	}
	return nil
}

func (r *reader) boolean(v attr.Value, p rules.Path) bool {
	b := r.boolPtr(v, p)
	return b != nil && *b
}

func (r *reader) boolPtr(v attr.Value, p rules.Path) *bool {
	if b, ok := v.(types.Bool); ok && r.mark(v, p) {
		out := b.ValueBool()
		return &out
	}
	return nil
}

func (r *reader) int64Ptr(v attr.Value, p rules.Path) *int64 {
	if n, ok := v.(types.Int64); ok && r.mark(v, p) {
		out := n.ValueInt64()
		return &out
	}
	return nil
}

// int32Ptr clamps to the int32 range; out-of-range values are rejected by
// schema validators before they get here.
func (r *reader) int32Ptr(v attr.Value, p rules.Path) *int32 {
	n := r.int64Ptr(v, p)
	if n == nil {
		return nil
	}
	out := int32(max(min(*n, 1<<31-1), -1<<31))
	return &out
}

func (r *reader) intPtr(v attr.Value, p rules.Path) *int {
	n := r.int64Ptr(v, p)
	if n == nil {
		return nil
	}
	out := int(*n)
	return &out
}

func (r *reader) strMap(v attr.Value, p rules.Path) map[string]string {
	m, ok := v.(types.Map)
	if !ok || !r.mark(v, p) {
		return nil
	}
	out := make(map[string]string, len(m.Elements()))
	for k, e := range m.Elements() {
		if s, ok := e.(types.String); ok && r.mark(e, p.Key(k)) {
			out[k] = s.ValueString()
		}
	}
	return out
}

func (r *reader) strList(v attr.Value, p rules.Path) []string {
	var elems []attr.Value
	switch l := v.(type) {
	case types.List:
		if !r.mark(v, p) {
			return nil
		}
		elems = l.Elements()
	case types.Set:
		if !r.mark(v, p) {
			return nil
		}
		elems = l.Elements()
	default:
		return nil
	}
	out := make([]string, 0, len(elems))
	for i, e := range elems {
		if s, ok := e.(types.String); ok && r.mark(e, p.Index(i)) {
			out = append(out, s.ValueString())
		}
	}
	return out
}

// object returns the attributes of a known, non-null object.
func (r *reader) object(v attr.Value, p rules.Path) map[string]attr.Value {
	if o, ok := v.(types.Object); ok && r.mark(v, p) {
		return o.Attributes()
	}
	return nil
}

// objects returns the attribute maps of a list of objects; an unknown or
// null element yields nil at its index.
func (r *reader) objects(v attr.Value, p rules.Path) []map[string]attr.Value {
	l, ok := v.(types.List)
	if !ok || !r.mark(v, p) {
		return nil
	}
	out := make([]map[string]attr.Value, len(l.Elements()))
	for i, e := range l.Elements() {
		out[i] = r.object(e, p.Index(i))
	}
	return out
}
