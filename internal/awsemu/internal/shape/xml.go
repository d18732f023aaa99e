// Package shape serialises aws-sdk-go-v2 model structs (ec2types.Image,
// ekstypes.Cluster, ...) into the wire and CLI shapes the emulator needs.
//
// The SDK types carry no struct tags, and since aws-sdk-go-v2 moved EKS and
// SSM to schema-based serde there is no exported server-side encoder either,
// so the emulator walks the structs with reflection. Wire names follow the
// Smithy models: JSON protocols use the member name (PascalCase for SSM's
// awsJson1_1, lowerCamel for EKS's restJson1), EC2's query protocol uses the
// lowerCamel member name except for the locationName overrides listed in
// ec2ElementNames, which were taken from the EC2 SDK's deserializers.go
// (v1.344.1). The round-trip tests in package awsemu decode every field of
// the served types with the real SDK clients, so a missing override fails a
// test rather than silently dropping a field.
package shape

import (
	"bytes"
	"encoding/xml"
	"reflect"
	"strconv"
	"time"
)

// ec2ElementNames maps "<GoType>.<Field>" to the EC2 XML element name where it
// is not simply the field name with a lower-case first letter.
var ec2ElementNames = map[string]string{
	"Image.BlockDeviceMappings":   "blockDeviceMapping",
	"Image.ImageWatermarks":       "imageWatermarkSet",
	"Image.OwnerId":               "imageOwnerId",
	"Image.Public":                "isPublic",
	"Image.State":                 "imageState",
	"Image.Tags":                  "tagSet",
	"ProductCode.ProductCodeId":   "productCode",
	"ProductCode.ProductCodeType": "type",
	"InstanceTypeSpecification.SupportedInstanceTypes":   "supportedInstanceTypeSet",
	"InstanceTypeSpecification.UnsupportedInstanceTypes": "unsupportedInstanceTypeSet",
	"EbsInfo.EbsCards":                        "ebsCardSet",
	"GpuDeviceInfo.Workloads":                 "workloadSet",
	"NetworkCardInfo.InterfaceTypes":          "interfaceTypeSet",
	"Subnet.Tags":                             "tagSet",
	"SecurityGroup.Description":               "groupDescription",
	"SecurityGroup.Tags":                      "tagSet",
	"CapacityReservation.CapacityAllocations": "capacityAllocationSet",
	"CapacityReservation.Tags":                "tagSet",
	"CapacityAllocation.AllocationMetadata":   "allocationMetadataList",
	"IpPermission.UserIdGroupPairs":           "groups",
	// These three are capitalised in the EC2 model; the SDK matches element
	// names case-insensitively, but keep the model's spelling anyway.
	"EbsBlockDevice.AvailabilityZoneId":       "AvailabilityZoneId",
	"EbsBlockDevice.EbsCardIndex":             "EbsCardIndex",
	"EbsBlockDevice.VolumeInitializationRate": "VolumeInitializationRate",
}

// ec2ListMembers maps a list's element Go type to its member element name;
// EC2 lists use <item> except where the model says otherwise.
var ec2ListMembers = map[string]string{
	"InferenceDeviceInfo": "member",
}

// WriteEC2XML appends v (a struct, pointer to struct or slice) as the EC2
// query-protocol element called name.
func WriteEC2XML(b *bytes.Buffer, name string, v any) {
	writeXML(b, name, reflect.ValueOf(v), true)
}

// WriteQueryXML appends v as the awsQuery-protocol (IAM, STS) element called
// name: elements are the Smithy member names (the Go field names), list
// elements are <member>.
func WriteQueryXML(b *bytes.Buffer, name string, v any) {
	writeXML(b, name, reflect.ValueOf(v), false)
}

// writeXML writes v in EC2's dialect of the query protocol when ec2 is set,
// in awsQuery's otherwise.
func writeXML(b *bytes.Buffer, name string, v reflect.Value, ec2 bool) {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Struct:
		if t, ok := v.Interface().(time.Time); ok {
			xmlText(b, name, t.UTC().Format("2006-01-02T15:04:05.000Z"))
			return
		}
		b.WriteString("<" + name + ">")
		typ := v.Type()
		for i := range typ.NumField() {
			f := typ.Field(i)
			if !f.IsExported() || omitted(v.Field(i)) {
				continue
			}
			el := f.Name
			if ec2 {
				var ok bool
				if el, ok = ec2ElementNames[typ.Name()+"."+f.Name]; !ok {
					el = lowerFirst(f.Name)
				}
			}
			writeXML(b, el, v.Field(i), ec2)
		}
		b.WriteString("</" + name + ">")
	case reflect.Slice:
		if v.IsNil() {
			return
		}
		member := "member"
		if ec2 {
			member = "item"
			if m, ok := ec2ListMembers[derefType(v.Type().Elem()).Name()]; ok {
				member = m
			}
		}
		b.WriteString("<" + name + ">")
		for i := range v.Len() {
			writeXML(b, member, v.Index(i), ec2)
		}
		b.WriteString("</" + name + ">")
	case reflect.Map:
		// No shape served on a query protocol has a map member.
	default:
		if s, ok := scalarText(v); ok {
			xmlText(b, name, s)
		}
	}
}

func xmlText(b *bytes.Buffer, name, text string) {
	b.WriteString("<" + name + ">")
	_ = xml.EscapeText(b, []byte(text)) // writing to a bytes.Buffer cannot fail
	b.WriteString("</" + name + ">")
}

// scalarText renders strings, enums, booleans and numbers as the query and
// JSON protocols both expect them.
func scalarText(v reflect.Value) (string, bool) {
	switch v.Kind() {
	case reflect.String:
		return v.String(), true
	case reflect.Bool:
		return strconv.FormatBool(v.Bool()), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10), true
	case reflect.Float32, reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'f', -1, 64), true
	}
	return "", false
}

func derefType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func lowerFirst(s string) string {
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return s
	}
	return string(s[0]+'a'-'A') + s[1:]
}
