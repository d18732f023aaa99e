// Command terraform-provider-karpenter serves the Karpenter provider to
// Terraform: it renders and validates Karpenter EC2NodeClass and NodePool
// configuration, and never applies anything to a cluster.
package main

import (
	"flag"
	"log"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/provider"
)

// version is set by the release build (-ldflags "-X main.version=...").
var version = "dev"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()

	// SDK trace logs nobody reads cost a fifth of a large plan's CPU.
	provider.QuietUnreadSDKLogs()
	// Serve returns when Terraform stops the plugin, so the profile covers
	// the process's whole work (log.Fatal below skips it: nothing to keep).
	stopProfile := startCPUProfile()
	defer stopProfile()
	var opts []tf6server.ServeOpt
	if debug {
		opts = append(opts, tf6server.WithManagedDebug())
	}
	// provider.NewProtocol6, not providerserver.Serve: it answers the two
	// resources' validation and plan without the framework's per-value
	// schema walks (the framework serves everything else).
	if err := tf6server.Serve("registry.terraform.io/karpenter-tf/karpenter", provider.NewProtocol6(version), opts...); err != nil {
		log.Fatal(err.Error())
	}
}
