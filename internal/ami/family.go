// Package ami resolves AMI selector terms exactly as Karpenter
// (karpenter-provider-aws v1.14.1, pkg/providers/amifamily) does: aliases
// through the public SSM parameters, other terms through ec2:DescribeImages,
// only available images, deprecated ones last, one image per requirement set,
// and the strict instance-type mapping of karpenter#7925.
package ami

import "github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"

// Family is an EC2NodeClass amiFamily (see package amifamily).
type Family = amifamily.Family

// The amiFamily values.
const (
	AL2          = amifamily.AL2
	AL2023       = amifamily.AL2023
	Bottlerocket = amifamily.Bottlerocket
	Custom       = amifamily.Custom
	Windows2019  = amifamily.Windows2019
	Windows2022  = amifamily.Windows2022
	Windows2025  = amifamily.Windows2025
)

// Families lists the enum in the CRD's order.
var Families = amifamily.Families

// AliasFamilies are the families an alias may name, lowercased as in the
// alias (the CRD's "family is not supported" rule).
var AliasFamilies = []Family{AL2, AL2023, Bottlerocket, Windows2019, Windows2022, Windows2025}

// ParseFamily returns the family for an amiFamily value; the match is exact
// (the CRD enum is case-sensitive).
func ParseFamily(s string) (Family, bool) { return amifamily.Parse(s) }
