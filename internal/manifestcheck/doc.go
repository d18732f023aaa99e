// Package manifestcheck runs the provider's rules on EC2NodeClass and
// NodePool manifests written by hand (kept in a Helm chart's rendered
// output or a GitOps repository) instead of rendered by the resources. It
// is the one engine of provider::karpenter::validate_manifest (Check) and
// of the karpenter-lint command (Run).
//
// A stream of YAML or JSON documents is split on `---` lines. Each document
// of kind EC2NodeClass (karpenter.k8s.aws/v1) or NodePool (karpenter.sh/v1)
// is decoded into the project's own manifest model (internal/manifest),
// converted into the nodeclass.Class or nodepool.Pool the resources check,
// and judged by the same sequences (checks.EC2NodeClass, checks.NodePool):
// Karpenter's runtime validation, AMI terms and family, userData lint,
// requirements and the embedded instance-family facts, and the
// API server's CRD schema and CEL rules on the document as written
// (internal/crd). Findings carry manifest paths
// ("spec.template.spec.requirements[0].minValues"), translated from the
// resources' attribute paths with crd.Kind.ManifestPath, the object
// ("NodePool/general"), and the line and column of the path's YAML node,
// found by parsing the document a second time with YAML v3 (a missing
// field is located at its nearest ancestor). A `# Source: <file>` comment
// above a document, as helm template writes it, maps lines to that file.
//
// The annotation lint.karpenter-tf.io/ignore: "<rule>[,<rule>]: <reason>"
// in an object's metadata.annotations silences those rules on the object;
// Run keeps the findings it silences, marked, and Check drops them.
//
// Offline, nothing here needs AWS. With Options.AWS, Run also resolves each
// class's AMI selector terms, predicts its readiness (subnets, security
// groups, role or instance profile, capacity reservations) and uses the
// region's instance types, through the same per-process cache as the
// provider (one call per distinct query). A NodePool is cross-checked with
// the EC2NodeClass its nodeClassRef names when that class is among the
// inputs.
//
// A NodeOverlay (karpenter.sh/v1alpha1) is checked against its CRD and
// Karpenter's runtime validation (internal/nodeoverlay), and warned about
// as ignored unless Options.FeatureGates has NodeOverlay on.
package manifestcheck
