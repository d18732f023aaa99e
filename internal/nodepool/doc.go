// Package nodepool holds every rule about a Karpenter v1 NodePool
// (karpenter.sh/v1, as karpenter-provider-aws v1.14.1 and the release the
// user names treat it) and every cross-check between a NodePool and its
// EC2NodeClass, as plain Go: no Terraform types.
//
// The karpenter_nodepool resource uses it in three steps:
//
//   - Validate (ValidateConfig): the literal configuration against the CRD
//     and Karpenter's runtime validation, plus the family-table checks that
//     need only a literally written ami_family. Unknown values are skipped.
//   - Check (ModifyPlan): the pool against its EC2NodeClass facts (the
//     node_class object of a karpenter_ec2nodeclass) and an instance-type
//     catalogue (live ec2:DescribeInstanceTypes or the embedded facts);
//     it also computes instance_families and ami_assignments.
//   - PreviewFor (ModifyPlan): the userData Karpenter would generate for a
//     node of the pool, rendered for what it reports (cluster facts no node
//     could join with).
//
// Findings carry Terraform attribute paths of the resource (labels["k"],
// requirements[0].values, taints[1].value, disruption.budgets[0].schedule,
// limits["cpu"], node_class, ...). Every check is a rule of the catalogue
// (package rules); rules owned by other packages are reused where the check
// is the same (requirements, instancetype, ami, userdata/lint).
package nodepool
