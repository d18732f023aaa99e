// Command terraform-provider-karpenter serves the Karpenter provider to
// Terraform: it renders and validates Karpenter EC2NodeClass and NodePool
// configuration, and never applies anything to a cluster.
package main

import (
	"context"
	"flag"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

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
	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: "registry.terraform.io/karpenter-tf/karpenter",
		Debug:   debug,
	})
	if err != nil {
		log.Fatal(err.Error())
	}
}
