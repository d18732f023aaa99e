package provider

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// Every diagnostic the provider sends over the protocol, in every test that
// serves it (acceptance tests and the terraform -json tests), is audited
// here: its summary must be "<rule-id>: <title>" of a rule in the catalogue
// (and so in the rules guide), or for a warning "<rule-id>: <object>:
// <title>" naming the resource's object (rules.SummaryAbout), and one
// response must not repeat a diagnostic. TestMain fails the run on any violation, naming the RPC.

type diagAudit struct {
	mu         sync.Mutex
	violations map[string]bool
	seen       int
}

var audit = &diagAudit{violations: map[string]bool{}}

// check records what is wrong with the diagnostics of one response.
func (a *diagAudit) check(rpc string, diags []*tfprotov6.Diagnostic) {
	if len(diags) == 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	keys := map[string]bool{}
	for _, d := range diags {
		if d == nil {
			continue
		}
		a.seen++
		id, object, title, ok := rules.ParseSummary(d.Summary)
		switch {
		case !ok:
			a.violations[fmt.Sprintf("%s: summary without a rule id: %q (%.120s)", rpc, d.Summary, d.Detail)] = true
		case rules.Lookup(id) == nil:
			a.violations[fmt.Sprintf("%s: rule id %q is not in the catalogue (rules guide)", rpc, id)] = true
		case rules.Lookup(id).Title != title:
			a.violations[fmt.Sprintf("%s: summary %q is not the rule's title %q", rpc, d.Summary, rules.Lookup(id).Title)] = true
		case object != "" && d.Severity != tfprotov6.DiagnosticSeverityWarning:
			a.violations[fmt.Sprintf("%s: an error names its object (%q): only warnings, which Terraform folds by summary, do", rpc, d.Summary)] = true
		}
		k := fmt.Sprintf("%d|%s|%s|%v", d.Severity, d.Summary, d.Detail, d.Attribute)
		if keys[k] {
			a.violations[fmt.Sprintf("%s: the same diagnostic twice in one response: %s", rpc, d.Summary)] = true
		}
		keys[k] = true
	}
}

// report prints the violations and says whether there were any.
func (a *diagAudit) report() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.violations) == 0 {
		return true
	}
	var vs []string
	for v := range a.violations {
		vs = append(vs, v)
	}
	sort.Strings(vs)
	fmt.Fprintf(os.Stderr, "diagnostic audit: %d problem(s) among %d diagnostics:\n  %s\n", len(vs), a.seen, strings.Join(vs, "\n  "))
	return false
}

// auditedServer wraps the provider server and audits every response that
// carries diagnostics.
type auditedServer struct {
	tfprotov6.ProviderServer
}

func auditedFactory() (tfprotov6.ProviderServer, error) {
	return auditedServer{NewProtocol6("test")()}, nil
}

func (s auditedServer) ValidateProviderConfig(ctx context.Context, r *tfprotov6.ValidateProviderConfigRequest) (*tfprotov6.ValidateProviderConfigResponse, error) {
	resp, err := s.ProviderServer.ValidateProviderConfig(ctx, r)
	if resp != nil {
		audit.check("ValidateProviderConfig", resp.Diagnostics)
	}
	return resp, err
}

// configureMu: Terraform starts one provider process per provider
// configuration, but under TF_REATTACH_PROVIDERS one in-process server
// answers them all, and configures two aliases (the two-environments
// stack's prod and staging) while the other's resources plan, a race the
// framework's server is not built for. ConfigureProvider takes it for
// writing, the calls that read the configured provider for reading. The
// aliases' configurations are identical wherever tests use several.
var configureMu sync.RWMutex

func (s auditedServer) ConfigureProvider(ctx context.Context, r *tfprotov6.ConfigureProviderRequest) (*tfprotov6.ConfigureProviderResponse, error) {
	configureMu.Lock()
	resp, err := s.ProviderServer.ConfigureProvider(ctx, r)
	configureMu.Unlock()
	if resp != nil {
		audit.check("ConfigureProvider", resp.Diagnostics)
	}
	return resp, err
}

func (s auditedServer) ValidateResourceConfig(ctx context.Context, r *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	configureMu.RLock()
	resp, err := s.ProviderServer.ValidateResourceConfig(ctx, r)
	configureMu.RUnlock()
	if resp != nil {
		audit.check("ValidateResourceConfig "+r.TypeName, resp.Diagnostics)
	}
	return resp, err
}

func (s auditedServer) PlanResourceChange(ctx context.Context, r *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	configureMu.RLock()
	resp, err := s.ProviderServer.PlanResourceChange(ctx, r)
	configureMu.RUnlock()
	if resp != nil {
		audit.check("PlanResourceChange "+r.TypeName, resp.Diagnostics)
	}
	return resp, err
}

func (s auditedServer) ApplyResourceChange(ctx context.Context, r *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	configureMu.RLock()
	resp, err := s.ProviderServer.ApplyResourceChange(ctx, r)
	configureMu.RUnlock()
	if resp != nil {
		audit.check("ApplyResourceChange "+r.TypeName, resp.Diagnostics)
	}
	return resp, err
}

func (s auditedServer) ImportResourceState(ctx context.Context, r *tfprotov6.ImportResourceStateRequest) (*tfprotov6.ImportResourceStateResponse, error) {
	configureMu.RLock()
	resp, err := s.ProviderServer.ImportResourceState(ctx, r)
	configureMu.RUnlock()
	if resp != nil {
		audit.check("ImportResourceState "+r.TypeName, resp.Diagnostics)
	}
	return resp, err
}

func (s auditedServer) ValidateDataResourceConfig(ctx context.Context, r *tfprotov6.ValidateDataResourceConfigRequest) (*tfprotov6.ValidateDataResourceConfigResponse, error) {
	configureMu.RLock()
	resp, err := s.ProviderServer.ValidateDataResourceConfig(ctx, r)
	configureMu.RUnlock()
	if resp != nil {
		audit.check("ValidateDataResourceConfig "+r.TypeName, resp.Diagnostics)
	}
	return resp, err
}

func (s auditedServer) ReadDataSource(ctx context.Context, r *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	configureMu.RLock()
	resp, err := s.ProviderServer.ReadDataSource(ctx, r)
	configureMu.RUnlock()
	if resp != nil {
		audit.check("ReadDataSource "+r.TypeName, resp.Diagnostics)
	}
	return resp, err
}

// ReadResource, UpgradeResourceState and MoveResourceState read the configured
// provider's data too (the framework configures the resource before each, as
// before the validations Terraform repeats in the plan walk):
// the refresh of one alias raced the other's ConfigureProvider in CI's -race
// run of TestAccPlanSize.
func (s auditedServer) ReadResource(ctx context.Context, r *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	configureMu.RLock()
	defer configureMu.RUnlock()
	return s.ProviderServer.ReadResource(ctx, r)
}

func (s auditedServer) UpgradeResourceState(ctx context.Context, r *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	configureMu.RLock()
	defer configureMu.RUnlock()
	return s.ProviderServer.UpgradeResourceState(ctx, r)
}

func (s auditedServer) MoveResourceState(ctx context.Context, r *tfprotov6.MoveResourceStateRequest) (*tfprotov6.MoveResourceStateResponse, error) {
	configureMu.RLock()
	defer configureMu.RUnlock()
	return s.ProviderServer.MoveResourceState(ctx, r)
}
