// Package userdata renders the node userData Karpenter (karpenter-provider-aws
// v1.14.1) generates for each AMI family, renders complete Custom userData
// from the `bootstrap` block, and lints userData written by hand. Rendering
// reproduces Karpenter's bytes (before base64) except where Karpenter's
// output is not deterministic (map-valued kubelet arguments, whose keys are
// sorted here); golden files under testdata/ pin the layout.
//
// Every check is a rule of the catalogue in package rules; the functions
// return findings and never panic on any input.
package userdata

import (
	"fmt"
	"strings"
)

// Family is an EC2NodeClass amiFamily.
type Family string

// The amiFamily values of Karpenter v1.
const (
	AL2          Family = "AL2"
	AL2023       Family = "AL2023"
	Bottlerocket Family = "Bottlerocket"
	Windows2019  Family = "Windows2019"
	Windows2022  Family = "Windows2022"
	Windows2025  Family = "Windows2025"
	Custom       Family = "Custom"
)

// Families lists every family, in the order the CRD enum lists them.
var Families = []Family{AL2, AL2023, Bottlerocket, Windows2019, Windows2022, Windows2025, Custom}

// ParseFamily accepts an amiFamily exactly as the CRD spells it.
func ParseFamily(s string) (Family, error) {
	for _, f := range Families {
		if string(f) == s {
			return f, nil
		}
	}
	names := make([]string, len(Families))
	for i, f := range Families {
		names[i] = string(f)
	}
	return "", fmt.Errorf("%q is not an amiFamily; use one of %s", s, strings.Join(names, ", "))
}

// IsWindows reports whether f is one of the Windows families.
func (f Family) IsWindows() bool {
	return f == Windows2019 || f == Windows2022 || f == Windows2025
}
