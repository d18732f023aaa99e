// Package manifestcheck runs the provider's offline rules on EC2NodeClass
// and NodePool manifests written by hand (kept in a Helm chart's rendered
// output or a GitOps repository) instead of rendered by the resources.
//
// A stream of YAML or JSON documents is split on `---` lines. Each document
// of kind EC2NodeClass (karpenter.k8s.aws/v1) or NodePool (karpenter.sh/v1)
// is decoded into the project's own manifest model (internal/manifest),
// converted into the nodeclass.Class or nodepool.Pool the resources check,
// and judged by the same rules: Karpenter's runtime validation, AMI terms and
// family, userData lint, requirements and the embedded instance-family facts
// (nodeclass.Validate, nodepool.Validate and nodepool.Check), and the
// API server's CRD schema and CEL rules on the document as written
// (internal/crd). Findings carry manifest paths
// ("spec.template.spec.requirements[0].minValues"), translated from the
// resources' attribute paths with crd.Kind.ManifestPath; when the input
// holds several documents each path starts with the document's index
// ("[1].spec.role").
//
// Nothing here needs AWS: image resolution, subnet and security group
// readiness and live instance-type facts are the resources' plan-time
// checks and are not made. A NodePool is cross-checked with an EC2NodeClass
// (its family, Custom userData taints) only when that class is in the same
// input.
package manifestcheck
