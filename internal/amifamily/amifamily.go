// Package amifamily is the EC2NodeClass amiFamily: the enum of the CRD and
// what each family implies, shared by AMI resolution and userData rendering.
package amifamily

import (
	"fmt"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// Family is an EC2NodeClass amiFamily.
type Family string

// The amiFamily enum of the EC2NodeClass CRD (v1.14.1; Windows2025 since
// 1.9.0, Ubuntu gone since 1.0.0).
const (
	AL2          Family = "AL2"
	AL2023       Family = "AL2023"
	Bottlerocket Family = "Bottlerocket"
	Custom       Family = "Custom"
	Windows2019  Family = "Windows2019"
	Windows2022  Family = "Windows2022"
	Windows2025  Family = "Windows2025"
)

// Families lists the enum in the CRD's order.
var Families = []Family{AL2, AL2023, Bottlerocket, Custom, Windows2019, Windows2022, Windows2025}

// Parse returns the family for an amiFamily value; the match is exact (the
// CRD enum is case-sensitive).
func Parse(s string) (Family, bool) {
	for _, f := range Families {
		if string(f) == s {
			return f, true
		}
	}
	return "", false
}

// ParseError is Parse with an error that lists the valid values.
func ParseError(s string) (Family, error) {
	if f, ok := Parse(s); ok {
		return f, nil
	}
	names := make([]string, len(Families))
	for i, f := range Families {
		names[i] = string(f)
	}
	return "", fmt.Errorf("%q is not an amiFamily; use one of %s", s, strings.Join(names, ", "))
}

// AvailableIn reports whether the family exists in the CRD enum of a
// Karpenter release.
func (f Family) AvailableIn(kv versions.Karpenter) bool {
	if f == Windows2025 {
		return kv.AtLeast(9, 0)
	}
	return true
}

// IsWindows reports whether the family boots Windows.
func (f Family) IsWindows() bool { return f == Windows2019 || f == Windows2022 || f == Windows2025 }

// AliasName is the lowercase form used in aliases ("al2023").
func (f Family) AliasName() string { return strings.ToLower(string(f)) }

// WindowsYear is 2019, 2022 or 2025 for Windows families.
func (f Family) WindowsYear() string { return strings.TrimPrefix(string(f), "Windows") }

// WindowsBuild is the node.kubernetes.io/windows-build value of the family
// (pkg/apis/v1/labels.go Windows20xxBuild).
func (f Family) WindowsBuild() string {
	switch f {
	case Windows2019:
		return "10.0.17763"
	case Windows2022:
		return "10.0.20348"
	case Windows2025:
		return "10.0.26100"
	}
	return ""
}
