package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// envCPUProfile names the contributors' profiling switch: set to a path
// prefix, every provider process Terraform starts writes a CPU profile of
// its whole life to "<prefix>.<pid>.pprof" (a plan starts several, so one
// file each; `go tool pprof -top <prefix>.*.pprof` merges them). Terraform
// passes its environment to the plugins it starts, so
//
//	KARPENTER_TF_CPUPROFILE=/tmp/plan terraform plan
//
// profiles a real plan. Unset (the default), nothing is done.
const envCPUProfile = "KARPENTER_TF_CPUPROFILE"

// startCPUProfile starts the profile when the switch is set and returns the
// function that writes it out; a profile that cannot be written is said on
// stderr (Terraform logs it) and never stops the provider.
func startCPUProfile() (stop func()) {
	prefix := os.Getenv(envCPUProfile)
	if prefix == "" {
		return func() {}
	}
	name := fmt.Sprintf("%s.%d.pprof", prefix, os.Getpid())
	f, err := os.Create(name)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", envCPUProfile, err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", envCPUProfile, err)
		_ = f.Close() // nothing was written
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", envCPUProfile, err)
		}
	}
}
