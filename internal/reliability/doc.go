// Package reliability tests the provider as Terraform runs it: the binary
// built once, started by a real `terraform plan` through a dev_overrides CLI
// configuration, against the AWS emulator with throttling and latency. The
// tests run with TF_ACC set and terraform on PATH (make test):
//
//   - 30 % of AWS requests throttled: the plan succeeds with the same
//     output, each distinct query is answered once, retries stay few;
//   - every request throttled: the plan fails with the throttling error and
//     the provider's advice, after max_retries, not after minutes;
//   - 200 ms per AWS answer, -parallelism=50 and 100 resources on one
//     alias: concurrent resources share in-flight calls, so AWS sees one
//     request per distinct query;
//   - SIGINT during a plan whose AWS call hangs: Terraform exits within
//     seconds and the emulator sees no further request (the plan's context
//     reaches the SDK call).
package reliability
