// Package differential holds tests only: they run aws/karpenter-provider-aws
// v1.14.1's own code (pkg/providers/instancetype pod capacity,
// pkg/providers/amifamily launch-template resolution and its bootstrap
// package) next to the provider's domain packages on the same inputs, and
// require identical answers: the userData byte for byte after normalising
// only what Karpenter randomises.
//
// Karpenter's packages are imported by the tests alone, so they never reach
// the provider binary. They pull in client-go's typed clients and
// controller-runtime, which no other package compiles: about 400 packages
// and 200 s of compiler CPU more than the rest of the module on a cold
// cache (about 100 s of wall time on 2 cores).
//
// The reference data check (every type of ../shared/data with Karpenter's
// VPC limits) skips when that directory is absent.
package differential
