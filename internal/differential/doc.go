// Package differential holds tests only: they run aws/karpenter-provider-aws
// v1.14.1's own code (pkg/providers/instancetype pod capacity,
// pkg/providers/amifamily launch-template resolution and its bootstrap
// package) next to the provider's domain packages on the same inputs, and
// require identical answers: the userData byte for byte after normalising
// only what Karpenter randomises.
//
// The scheduling tests run Karpenter's whole provisioning path against the
// emulator (scheduling_test.go): karpenter-provider-aws's cloud provider,
// instance-type, offering and pricing providers, its EC2NodeClass status
// reconcilers, core's NodePool validation and readiness controllers and
// provisioner, on a controller-runtime fake client; and compare it with
// package scheduling, scenario by scenario, in the canonical form
// scheduling_scenarios_test.go describes.
//
// Karpenter's packages are imported by the tests alone, so they never reach
// the provider binary (package scheduling links only core's scheduler and
// cluster state, and the AWS provider's API types). They pull in client-go's typed clients and
// controller-runtime, which no other package compiles: about 400 packages
// and 200 s of compiler CPU more than the rest of the module on a cold
// cache (about 100 s of wall time on 2 cores).
//
// The reference data check (every type of ../shared/data with Karpenter's
// VPC limits) skips when that directory is absent.
package differential
