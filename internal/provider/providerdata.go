package provider

import (
	"context"
	"errors"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/capacity"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/cluster"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// ProviderData is what Configure hands to data sources and resources.
type ProviderData struct {
	AWS       *awsclient.Cache
	Karpenter versions.Karpenter
	// KarpenterUnknown is set when karpenter_version was unknown at plan;
	// version-gated checks then use the default and say so.
	KarpenterUnknown bool
	Cluster          cluster.Settings
	// Controller holds the Karpenter controller settings capacity and max
	// pods depend on (the controller block, else Karpenter's defaults);
	// ControllerUnknown is set while one of them is not known (plan).
	Controller        capacity.Settings
	ControllerUnknown bool
	// NodeOverlayGate is controller.feature_gates.node_overlay, Karpenter's
	// NodeOverlay feature gate; NodeOverlayGateUnknown while it is not
	// known (plan).
	NodeOverlayGate, NodeOverlayGateUnknown bool
	// Acknowledged holds the warning rule ids the provider block silences.
	Acknowledged map[string]bool
	// StrictReadiness makes a denied readiness read an error.
	StrictReadiness bool
	// ClusterState is the provider's cluster_state snapshot, read once;
	// nil when not given or not known.
	ClusterState *clusterState
	// reported is what this provider configuration reported once per plan
	// (oncePerPlan); nil when unconfigured.
	reported *reportedOnce
}

// ClusterFacts resolves the cluster facts listed in need (cluster.Field*),
// discovering missing ones with eks:DescribeCluster.
func (d *ProviderData) ClusterFacts(ctx context.Context, need []string, why string) (cluster.Facts, error) {
	facts, err := cluster.Resolve(ctx, d.Cluster, need, d.AWS, why)
	if missing := (*cluster.MissingError)(nil); errors.As(err, &missing) {
		missing.Advice = "set them in the provider's `cluster` block, or set `cluster.name` so they are discovered with eks:DescribeCluster"
	}
	if nf := (*awsclient.ClusterNotFoundError)(nil); errors.As(err, &nf) {
		// A copy: the cache shares the error between callers.
		with := *nf
		with.Advice = "check `cluster.name` in the provider block (or set the cluster facts there explicitly)"
		err = &with
	}
	return facts, err
}

// providerDataOrDefault returns the configured provider data, or, when the
// provider was not configured (terraform validate, or an RPC that runs
// before Configure), offline defaults whose AWS calls go to the SDK's own
// configuration sources.
func providerDataOrDefault(v any) *ProviderData {
	if d, ok := v.(*ProviderData); ok && d != nil {
		return d
	}
	return &ProviderData{
		AWS:        awsclient.NewCache(awsclient.NewClients(awsclient.Config{MaxRetries: -1})),
		Karpenter:  versions.DefaultKarpenter,
		Cluster:    cluster.Settings{Unknown: map[string]bool{}},
		Controller: capacity.DefaultSettings(),
	}
}
