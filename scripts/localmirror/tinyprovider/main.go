// Command tinyprovider is a provider with no resources, built by
// scripts/check-local-mirror.sh to stand in for a registry provider next to
// the local build of this one (the check runs offline).
package main

import (
	"context"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

type tiny struct{}

func (tiny) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "tiny"
}
func (tiny) Schema(context.Context, provider.SchemaRequest, *provider.SchemaResponse)          {}
func (tiny) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {}
func (tiny) Resources(context.Context) []func() resource.Resource                              { return nil }
func (tiny) DataSources(context.Context) []func() datasource.DataSource                        { return nil }

func main() {
	if err := providerserver.Serve(context.Background(), func() provider.Provider { return tiny{} },
		providerserver.ServeOpts{Address: "registry.terraform.io/example/tiny"}); err != nil {
		log.Fatal(err)
	}
}
