package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	dsschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
)

// Attribute descriptions shared by the data sources and the EC2NodeClass.
const (
	descTerms = "AMI selector terms, as `spec.amiSelectorTerms`: conditions inside a term are ANDed, terms are ORed. " +
		"An alias must be the only term."
	descAlias        = "`family@version`: `al2@…`, `al2023@…`, `bottlerocket@…`, `windows2019@latest`, `windows2022@latest`, `windows2025@latest`. Resolved through the public SSM parameters Karpenter reads."
	descID           = "An image id, e.g. `ami-0123456789abcdef0`. Cannot be combined with other fields of the term."
	descName         = "EC2 image name (the AMI Name, not the Name tag); `*` and `?` wildcards. Without `owner`, only your account and Amazon are searched."
	descOwner        = "One owner: an account id, `self` or `amazon`. Use one term per owner."
	descTags         = "Image tags that must match; a value of `*` matches any value of the key."
	descSSMParameter = "An SSM parameter (name or ARN) whose value is an image id (Karpenter 1.4+)."
)

func termAttributesDS() map[string]dsschema.Attribute {
	return map[string]dsschema.Attribute{
		"alias":         dsschema.StringAttribute{Optional: true, Description: descAlias},
		"id":            dsschema.StringAttribute{Optional: true, Description: descID},
		"name":          dsschema.StringAttribute{Optional: true, Description: descName},
		"owner":         dsschema.StringAttribute{Optional: true, Description: descOwner},
		"tags":          dsschema.MapAttribute{ElementType: types.StringType, Optional: true, Description: descTags},
		"ssm_parameter": dsschema.StringAttribute{Optional: true, Description: descSSMParameter},
	}
}

// requirementAttrTypes is the object type of an image requirement.
var requirementAttrTypes = map[string]attr.Type{
	"key":      types.StringType,
	"operator": types.StringType,
	"values":   types.ListType{ElemType: types.StringType},
}

func requirementsAttributeDS() dsschema.ListNestedAttribute {
	return dsschema.ListNestedAttribute{
		Computed:    true,
		Description: "Node requirements Karpenter attaches to the image (architecture, and the variant's GPU/accelerator requirements for aliases), sorted as in `status.amis`.",
		NestedObject: dsschema.NestedAttributeObject{Attributes: map[string]dsschema.Attribute{
			"key":      dsschema.StringAttribute{Computed: true, Description: "Label key."},
			"operator": dsschema.StringAttribute{Computed: true, Description: "`In`, `Exists` or `DoesNotExist`."},
			"values":   dsschema.ListAttribute{ElementType: types.StringType, Computed: true, Description: "Values for `In`."},
		}},
	}
}

// termsFromList converts ami_selector_terms. Fields that are unknown are
// recorded on the term; ok is false when the list itself is unknown.
func termsFromList(l types.List) (terms []ami.Term, ok bool) {
	if l.IsUnknown() {
		return nil, false
	}
	if l.IsNull() {
		return nil, true
	}
	for _, e := range l.Elements() {
		o, isObj := e.(types.Object)
		if !isObj || o.IsNull() {
			terms = append(terms, ami.Term{})
			continue
		}
		if o.IsUnknown() {
			terms = append(terms, ami.Term{Unknown: map[string]bool{
				ami.FieldAlias: true, ami.FieldID: true, ami.FieldName: true, ami.FieldOwner: true, ami.FieldSSMParameter: true, ami.FieldTags: true,
			}})
			continue
		}
		attrs := o.Attributes()
		t := ami.Term{Unknown: map[string]bool{}}
		for name, dst := range map[string]*string{
			ami.FieldAlias: &t.Alias, ami.FieldID: &t.ID, ami.FieldName: &t.Name, ami.FieldOwner: &t.Owner, ami.FieldSSMParameter: &t.SSMParameter,
		} {
			v := stringAttr(attrs[name])
			if v.IsUnknown() {
				t.Unknown[name] = true
				continue
			}
			*dst = v.ValueString()
		}
		if m, isMap := attrs[ami.FieldTags].(types.Map); isMap {
			switch {
			case m.IsUnknown():
				t.Unknown[ami.FieldTags] = true
			case !m.IsNull():
				t.Tags = map[string]string{}
				for k, v := range m.Elements() {
					s, _ := v.(types.String)
					if s.IsUnknown() {
						t.Unknown[ami.FieldTags] = true
						continue
					}
					t.Tags[k] = s.ValueString()
				}
			}
		}
		if len(t.Unknown) == 0 {
			t.Unknown = nil
		}
		terms = append(terms, t)
	}
	return terms, true
}

func requirementsValue(rs []ami.Requirement) (types.List, diag.Diagnostics) {
	var diags diag.Diagnostics
	objType := types.ObjectType{AttrTypes: requirementAttrTypes}
	elems := make([]attr.Value, 0, len(rs))
	for _, r := range rs {
		vals, d := types.ListValueFrom(context.Background(), types.StringType, nonNil(r.Values))
		diags.Append(d...)
		o, d := types.ObjectValue(requirementAttrTypes, map[string]attr.Value{
			"key": types.StringValue(r.Key), "operator": types.StringValue(r.Operator), "values": vals,
		})
		diags.Append(d...)
		elems = append(elems, o)
	}
	l, d := types.ListValue(objType, elems)
	diags.Append(d...)
	return l, diags
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
