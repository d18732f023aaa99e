package provider

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// testAccProtoV6ProviderFactories runs the provider in-process; Terraform is
// handed reattach information, so nothing is downloaded.
var testAccProtoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"karpenter": auditedFactory,
}

func TestMain(m *testing.M) {
	// An empty CLI configuration silences Terraform's missing-config warning
	// (some machines export TF_CLI_CONFIG_FILE pointing at a file that does
	// not exist) and keeps a developer's dev_overrides and mirrors out of the
	// tests.
	dir, err := os.MkdirTemp("", "tfcli")
	if err != nil {
		panic(err)
	}
	f := filepath.Join(dir, "empty.tfrc")
	if err := os.WriteFile(f, nil, 0o600); err != nil {
		panic(err)
	}
	if err := os.Setenv("TF_CLI_CONFIG_FILE", f); err != nil {
		panic(err)
	}
	code := m.Run()
	if !audit.report() && code == 0 {
		code = 1
	}
	_ = os.RemoveAll(dir) // a leftover empty file in the temp dir harms nothing
	os.Exit(code)
}

func TestProviderSchemaIsValid(t *testing.T) {
	p := New("test")()
	srv := providerserver.NewProtocol6(p)()
	resp, err := srv.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range resp.Diagnostics {
		t.Errorf("schema diagnostic: %s: %s", d.Summary, d.Detail)
	}
}

func TestProviderConfigValidation(t *testing.T) {
	cases := map[string]struct {
		config map[string]any
		err    string
	}{
		"karpenter_version out of range": {map[string]any{"karpenter_version": "1.15"}, `Karpenter 1.15 is not supported`},
		"karpenter_version malformed":    {map[string]any{"karpenter_version": "latest"}, `is not a Karpenter version`},
		"assume_role duration":           {map[string]any{"assume_role": map[string]any{"duration": "an hour"}}, `is not a Go duration`},
		"endpoint":                       {map[string]any{"endpoints": map[string]any{"ec2": "localhost"}}, `is not an absolute URL`},
		"cluster CA":                     {map[string]any{"cluster": map[string]any{"certificate_authority": "not base64!"}}, `decoding CABundle`},
		"cluster CIDR":                   {map[string]any{"cluster": map[string]any{"service_cidr": "172.20.0.0"}}, `is not a CIDR`},
		"cluster version":                {map[string]any{"cluster": map[string]any{"kubernetes_version": "132"}}, `not a Kubernetes version`},
		"cluster endpoint":               {map[string]any{"cluster": map[string]any{"endpoint": "http://x"}}, `is not an https URL`},
		"cluster dns":                    {map[string]any{"cluster": map[string]any{"cluster_dns": "dns"}}, `is not an IP address`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			diags := validateProviderConfig(t, c.config)
			if !diagsContain(diags, c.err) {
				t.Fatalf("want a diagnostic containing %q, got %v", c.err, diags)
			}
		})
	}
	t.Run("valid and unknown values pass", func(t *testing.T) {
		diags := validateProviderConfig(t, map[string]any{
			"karpenter_version": "1.4.0",
			"region":            unknown,
			"cluster":           map[string]any{"name": "demo", "endpoint": unknown, "service_cidr": "172.20.0.0/16", "certificate_authority": "Q0E="},
		})
		if len(diags) > 0 {
			t.Fatalf("unexpected diagnostics: %v", diags)
		}
	})
}

func TestProviderConfigureToleratesNullAndUnknown(t *testing.T) {
	for name, cfg := range map[string]map[string]any{
		"null":            nil,
		"unknown region":  {"region": unknown, "cluster": map[string]any{"name": unknown}},
		"unknown cluster": {"cluster": unknown, "assume_role": unknown},
	} {
		t.Run(name, func(t *testing.T) {
			data, diags := configureProvider(t, cfg)
			if diags.HasError() {
				t.Fatalf("Configure failed: %v", diags)
			}
			if data == nil || data.AWS == nil {
				t.Fatal("Configure must always hand out provider data")
			}
			if name != "null" && len(data.AWS.Clients().Config().Unknown) == 0 && !data.Cluster.Unknown["name"] {
				t.Fatal("unknown settings must be recorded")
			}
		})
	}
}
