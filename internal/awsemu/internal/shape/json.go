package shape

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"time"
)

// JSONStyle selects member-name case and timestamp format.
type JSONStyle struct {
	// CamelKeys lower-cases the first letter of every member name (EKS, whose
	// Smithy members are lowerCamel); otherwise the Go field name is used
	// as is, which equals the member name for SSM and for the CLI's EC2 output.
	CamelKeys bool
	// EpochTimes writes timestamps as epoch seconds (the JSON protocols'
	// default); otherwise as the CLI prints them (ISO 8601 with offset).
	EpochTimes bool
}

var (
	// SSMWire is awsJson1_1 as SSM speaks it.
	SSMWire = JSONStyle{EpochTimes: true}
	// EKSWire is restJson1 as EKS speaks it.
	EKSWire = JSONStyle{CamelKeys: true, EpochTimes: true}
	// CLIPascal is `aws ec2 ...`/`aws ssm ...` --output json.
	CLIPascal = JSONStyle{}
	// CLICamel is `aws eks ...` --output json.
	CLICamel = JSONStyle{CamelKeys: true}
)

// MarshalJSON renders v in the given style. Nil pointers, nil slices and nil
// maps are omitted, as in AWS responses; empty non-nil slices are kept.
func MarshalJSON(v any, st JSONStyle) []byte {
	var b bytes.Buffer
	writeJSON(&b, reflect.ValueOf(v), st)
	return b.Bytes()
}

func writeJSON(b *bytes.Buffer, v reflect.Value, st JSONStyle) {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			b.WriteString("null")
			return
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Struct:
		if t, ok := v.Interface().(time.Time); ok {
			if st.EpochTimes {
				b.WriteString(strconv.FormatFloat(float64(t.UnixMilli())/1e3, 'f', -1, 64))
			} else {
				jsonString(b, t.UTC().Format("2006-01-02T15:04:05.000000-07:00"))
			}
			return
		}
		b.WriteByte('{')
		first := true
		typ := v.Type()
		for i := range typ.NumField() {
			f := typ.Field(i)
			fv := v.Field(i)
			if !f.IsExported() || omitted(fv) {
				continue
			}
			if !first {
				b.WriteByte(',')
			}
			first = false
			key := f.Name
			if st.CamelKeys {
				key = lowerFirst(key)
			}
			jsonString(b, key)
			b.WriteByte(':')
			writeJSON(b, fv, st)
		}
		b.WriteByte('}')
	case reflect.Slice, reflect.Array:
		b.WriteByte('[')
		for i := range v.Len() {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(b, v.Index(i), st)
		}
		b.WriteByte(']')
	case reflect.Map:
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, c reflect.Value) int {
			switch {
			case a.String() < c.String():
				return -1
			case a.String() > c.String():
				return 1
			}
			return 0
		})
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			jsonString(b, k.String())
			b.WriteByte(':')
			writeJSON(b, v.MapIndex(k), st)
		}
		b.WriteByte('}')
	case reflect.String:
		jsonString(b, v.String())
	default:
		if s, ok := scalarText(v); ok {
			b.WriteString(s)
		} else {
			b.WriteString("null")
		}
	}
}

// omitted reports whether a struct member is absent on the wire.
func omitted(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Slice, reflect.Map:
		return v.IsNil()
	case reflect.String:
		// Enum members are plain string types in the SDK; "" means unset.
		return v.Len() == 0
	}
	return false
}

func jsonString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)       // a string always encodes
	b.Truncate(b.Len() - 1) // Encode appends a newline
}
