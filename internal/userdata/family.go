// Package userdata renders the node userData Karpenter (karpenter-provider-aws
// v1.14.1) generates for each AMI family (AL2 bootstrap.sh, AL2023 nodeadm
// NodeConfig, Bottlerocket settings TOML, Windows PowerShell, Custom passed
// through) and renders complete Custom userData from the `bootstrap` block.
// Rendering reproduces Karpenter's bytes (before base64) except where
// Karpenter's output is not deterministic (map-valued kubelet arguments,
// whose keys are sorted here); golden files under testdata/ pin the layout.
//
// Its subpackages split the rest as Karpenter splits its bootstrap code:
// format reads and writes the userData documents (MIME multipart,
// Bottlerocket settings), shell parses bash and PowerShell, and lint holds
// the userData rules: the checks of the values rendered into a script and
// the linter of userData written by hand. Every check is a rule of the
// catalogue in package rules; the functions return findings and never
// panic on any input.
package userdata

import "github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"

// Family is an EC2NodeClass amiFamily (see package amifamily).
type Family = amifamily.Family

// The amiFamily values of Karpenter v1.
const (
	AL2          = amifamily.AL2
	AL2023       = amifamily.AL2023
	Bottlerocket = amifamily.Bottlerocket
	Windows2019  = amifamily.Windows2019
	Windows2022  = amifamily.Windows2022
	Windows2025  = amifamily.Windows2025
	Custom       = amifamily.Custom
)

// Families lists every family, in the CRD enum's order.
var Families = amifamily.Families

// ParseFamily accepts an amiFamily exactly as the CRD spells it.
func ParseFamily(s string) (Family, error) { return amifamily.ParseError(s) }
