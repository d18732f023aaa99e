package crd

import "k8s.io/apimachinery/pkg/util/validation/field"

// Error is one reason the API server would reject an object, as the server's
// field.Error carries it.
type Error struct {
	// Field is the CRD path, "spec.amiSelectorTerms[0].alias"; "" is the
	// whole object. Map keys appear as [key] (CEL, metadata) or .key
	// (OpenAPI), as the server prints them.
	Field string
	// Type is the field.ErrorType (field.ErrorTypeInvalid, ...).
	Type field.ErrorType
	// Detail is the server's message verbatim, e.g. "'alias' is mutually
	// exclusive, cannot be set with a combination of other amiSelectorTerms".
	Detail string
	// Value is the offending value when the error carries one (HasValue);
	// CEL errors carry the type name of the node ("array", "object").
	Value    any
	HasValue bool
	// Text is the server's rendering, `<field>: <type>: <value>: <detail>`,
	// the line kubectl prints under `The EC2NodeClass "x" is invalid:`.
	Text string
}

// RulesNotChecked is the server's note, at the object, when it skipped the
// CEL rules because the schema already found a type, enum, required, length
// or item-count error (strategy.go hasBlockingErr): more errors may follow
// once those are fixed.
const RulesNotChecked = "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"

func fromFieldErrors(errs field.ErrorList) []Error {
	out := make([]Error, 0, len(errs))
	for _, e := range errs {
		out = append(out, fromFieldError(e))
	}
	return out
}

func fromFieldError(e *field.Error) Error {
	out := Error{Field: e.Field, Type: e.Type, Detail: e.Detail, Text: e.Error()}
	if out.Field == "<nil>" {
		// A nil *field.Path (errors about the whole object) prints "<nil>";
		// Text keeps it, as kubectl shows it.
		out.Field = ""
	}
	switch e.Type {
	case field.ErrorTypeRequired, field.ErrorTypeForbidden, field.ErrorTypeTooLong, field.ErrorTypeInternal:
		// The server never prints a value for these types.
	default:
		// TooMany without a known count carries field.OmitValueType.
		if _, omitted := e.BadValue.(field.OmitValueType); !omitted && e.BadValue != nil {
			out.Value, out.HasValue = e.BadValue, true
		}
	}
	return out
}
