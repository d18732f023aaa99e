// Package nodeclass holds every EC2NodeClass rule that is not about AMI
// selection itself (internal/ami has those): the CRD's rules and patterns,
// the runtime checks Karpenter makes, the userData checks for the class's
// family, and the plan-time checks that need the resolved images (userData
// format against the images, block devices against their snapshots). It
// also computes what the class tells its NodePools.
package nodeclass

import (
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/readiness"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata"
)

// Class is an EC2NodeClass as configured in Terraform.
type Class struct {
	Name string
	// Labels and Annotations are the object's own metadata (the metadata
	// block), nil when unset or unknown.
	Labels, Annotations map[string]string
	// Family is ami_family as written ("" when unset).
	Family string
	Terms  []ami.Term
	// Spec holds everything else of the spec as written; Spec.UserData is
	// the literal user_data (nil when unset). AMI terms and amiFamily are
	// taken from Terms and Family.
	Spec manifest.EC2NodeClassSpec
	// Bootstrap is the bootstrap block, nil when absent.
	Bootstrap *userdata.Bootstrap
	PinAMIs   bool
	// Unknown holds the Terraform attribute paths not known yet.
	Unknown rules.Unknowns
}

// Terraform attribute paths used by the checks.
var (
	pathName         = rules.Root("name")
	pathRole         = rules.Root("role")
	pathProfile      = rules.Root("instance_profile")
	pathSubnets      = rules.Root("subnet_selector_terms")
	pathSGs          = rules.Root("security_group_selector_terms")
	pathReservations = rules.Root("capacity_reservation_selector_terms")
	pathTags         = rules.Root("tags")
	pathKubelet      = rules.Root("kubelet")
	pathBlockDevices = rules.Root("block_device_mappings")
	pathMetadata     = rules.Root("metadata_options")
	pathStorePolicy  = rules.Root("instance_store_policy")
	pathUserData     = rules.Root("user_data")
	pathBootstrap    = rules.Root("bootstrap")
	pathAMIFamily    = rules.Root("ami_family")
	pathAMITerms     = rules.Root("ami_selector_terms")
)

// Readiness is what the readiness checks read from the class: its selector
// terms and its role or instance profile.
func (c Class) Readiness() readiness.Class {
	s := c.Spec
	out := readiness.Class{Role: s.Role, InstanceProfile: s.InstanceProfile}
	for _, t := range s.SubnetSelectorTerms {
		out.SubnetTerms = append(out.SubnetTerms, awsclient.SubnetTerm{ID: t.ID, Tags: t.Tags})
	}
	for _, t := range s.SecurityGroupSelectorTerms {
		out.SecurityGroupTerms = append(out.SecurityGroupTerms, awsclient.SecurityGroupTerm{ID: t.ID, Name: t.Name, Tags: t.Tags})
	}
	for _, t := range s.CapacityReservationSelectorTerms {
		out.CapacityReservationTerms = append(out.CapacityReservationTerms, awsclient.CapacityReservationTerm{
			ID: t.ID, OwnerID: t.OwnerID, InstanceMatchCriteria: t.InstanceMatchCriteria, Tags: t.Tags,
		})
	}
	return out
}

// FromManifest is the class an EC2NodeClass manifest describes (YAML read
// by the linter and the data sources).
func FromManifest(m manifest.EC2NodeClass) Class {
	return Class{Name: m.Metadata.Name, Family: m.Spec.AMIFamily, Spec: m.Spec, Terms: Terms(m),
		Labels: m.Metadata.Labels, Annotations: m.Metadata.Annotations}
}

// Terms are a manifest's amiSelectorTerms as the resolver reads them.
func Terms(m manifest.EC2NodeClass) []ami.Term {
	var out []ami.Term
	for _, t := range m.Spec.AMISelectorTerms {
		out = append(out, ami.Term{Alias: t.Alias, ID: t.ID, Name: t.Name, Owner: t.Owner, SSMParameter: t.SSMParameter, Tags: t.Tags})
	}
	return out
}
