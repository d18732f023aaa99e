// Package crd validates rendered EC2NodeClass and NodePool manifests against
// the CRDs Karpenter ships, offline, with the API server's own code
// (k8s.io/apiextensions-apiserver): structural defaulting, pruning of unknown
// fields, OpenAPI schema validation, metadata validation and the CEL
// x-kubernetes-validations. A manifest that passes here is one the API server
// would store as rendered; one that fails gets the API server's message
// verbatim, so a `terraform plan` fails with the text `kubectl apply` would
// have printed.
//
// The CRDs are the bytes embedded in github.com/aws/karpenter-provider-aws
// pkg/apis at the version pinned in go.mod (KarpenterVersion); they are never
// copied into this repository, so bumping the module bumps the rules.
//
// Building the validators (schema conversion, structural schema, CEL
// compilation of some 75 rules) costs tens of milliseconds and megabytes, so it
// happens once per process and only when a manifest of that kind is first
// validated: a `terraform validate` that never renders a manifest never pays.
//
// Limits, all inherent to validating a create without a cluster:
//   - Transition rules (those reading oldSelf, e.g. the NodePool's "Cannot
//     transition NodePool between static ... and dynamic ..." and the
//     nodeClassRef immutability rules) are not evaluated: there is no old
//     object. The CEL validator skips them exactly as the API server does on
//     create.
//   - The rules are those of KarpenterVersion. A cluster running an older
//     Karpenter has older CRDs (e.g. no Gte/Lte before v1.9, extra restricted
//     label domains before v1.9); version-specific rules live elsewhere in the
//     provider.
//   - Runtime checks of the Karpenter controllers (status conditions such as
//     ValidationSucceeded) are not CRD rules and are not covered here.
package crd
