// Package provider is the Terraform adapter: schemas, conversion between
// Terraform values and the domain packages, and diagnostics. The Karpenter
// knowledge lives in the domain packages, testable without Terraform.
package provider

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"net/netip"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/cluster"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

var (
	_ provider.Provider                   = (*karpenterProvider)(nil)
	_ provider.ProviderWithFunctions      = (*karpenterProvider)(nil)
	_ provider.ProviderWithValidateConfig = (*karpenterProvider)(nil)
)

// New returns the provider factory for a release version.
func New(version string) func() provider.Provider {
	return func() provider.Provider { return &karpenterProvider{version: version} }
}

type karpenterProvider struct {
	version string
	// configured is what Configure handed to resources, for the server's
	// fast path (NewProtocol6); nil before Configure or after a failed one.
	configured atomic.Pointer[ProviderData]
}

type providerModel struct {
	Region                 types.String `tfsdk:"region"`
	Profile                types.String `tfsdk:"profile"`
	SharedConfigFiles      types.List   `tfsdk:"shared_config_files"`
	SharedCredentialsFiles types.List   `tfsdk:"shared_credentials_files"`
	AssumeRole             types.Object `tfsdk:"assume_role"`
	Endpoints              types.Object `tfsdk:"endpoints"`
	MaxRetries             types.Int64  `tfsdk:"max_retries"`
	RetryMode              types.String `tfsdk:"retry_mode"`
	KarpenterVersion       types.String `tfsdk:"karpenter_version"`
	Cluster                types.Object `tfsdk:"cluster"`
	Controller             types.Object `tfsdk:"controller"`
	AcknowledgedWarnings   types.List   `tfsdk:"acknowledged_warnings"`
	StrictReadiness        types.Bool   `tfsdk:"strict_readiness"`
	ClusterState           types.String `tfsdk:"cluster_state"`
}

func (p *karpenterProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "karpenter"
	resp.Version = p.version
}

func (p *karpenterProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Renders and validates Karpenter (AWS, v1 API) EC2NodeClass and NodePool configuration and the node userData, " +
			"resolving AMIs exactly as Karpenter does. It never applies anything to a cluster. Every setting is optional; AWS is " +
			"read only when a data source or resource needs AMIs, instance types, cluster facts or readiness, so `terraform validate` " +
			"needs no credentials. When the configuration is known at plan, the credentials are resolved (and `assume_role`'s role " +
			"assumed) as the provider is configured, so a configuration AWS refuses is one error at this block. The usual AWS SDK " +
			"environment variables (AWS_REGION, AWS_PROFILE, AWS_ENDPOINT_URL_EC2, ...) are honoured.",
		Attributes: map[string]schema.Attribute{
			"cluster_state": clusterStateProviderAttribute(),
			"region": schema.StringAttribute{
				Optional:    true,
				Description: "AWS region of the cluster. Defaults to AWS_REGION / AWS_DEFAULT_REGION or the shared config profile's region.",
			},
			"profile": schema.StringAttribute{
				Optional:    true,
				Description: "Named profile of the shared AWS configuration files. Defaults to AWS_PROFILE.",
			},
			"shared_config_files": schema.ListAttribute{
				ElementType: types.StringType, Optional: true,
				Description: "Paths of shared AWS config files. Defaults to AWS_CONFIG_FILE or ~/.aws/config.",
			},
			"shared_credentials_files": schema.ListAttribute{
				ElementType: types.StringType, Optional: true,
				Description: "Paths of shared AWS credentials files. Defaults to AWS_SHARED_CREDENTIALS_FILE or ~/.aws/credentials.",
			},
			"max_retries": schema.Int64Attribute{
				Optional:    true,
				Description: fmt.Sprintf("How many times an AWS request is retried after throttling or a transient error. Default %d.", awsclient.DefaultMaxRetries),
			},
			"retry_mode": schema.StringAttribute{
				Optional:    true,
				Description: "AWS SDK retry mode: `standard` or `adaptive` (client-side rate limiting). Defaults to AWS_RETRY_MODE or `standard`.",
			},
			"acknowledged_warnings": schema.ListAttribute{
				ElementType: types.StringType, Optional: true, Description: descAcknowledged + " Applies to every resource and data source of this provider.",
			},
			"strict_readiness": schema.BoolAttribute{
				Optional: true,
				Description: "Make a denied readiness read an error. The EC2NodeClass readiness checks read subnets, security groups, " +
					"capacity reservations, the role or instance profile and the zones' offerings; when AWS denies one of those reads " +
					"(AccessDenied, UnauthorizedOperation) the checks it feeds are skipped with one warning per plan " +
					"(`readiness-read-denied`) and the condition is planned Unknown. Set `true` where the planning role must be able to " +
					"read everything. Default `false`.",
			},
			"karpenter_version": schema.StringAttribute{
				Optional: true,
				Description: fmt.Sprintf("The Karpenter (karpenter-provider-aws) release the cluster runs, `1.MINOR` or `1.MINOR.PATCH`. "+
					"Rules and rendering follow that release (e.g. Gte/Lte operators need 1.9, arm64 NVIDIA AL2023 images need 1.4). "+
					"A release tag (`v1.14.1`) is read as the same release (`1.14.1`). Supported: 1.%d to 1.%d; default %s. A pre-v1 release "+
					"(0.x, the v1beta1 API) is refused with the way to v1 ([Karpenter's v1 migration](%s)).",
					versions.MinKarpenterMinor, versions.MaxKarpenterMinor, versions.DefaultKarpenter, versions.V1MigrationURL),
			},
		},
		Blocks: map[string]schema.Block{
			"assume_role": schema.SingleNestedBlock{
				Description: "Assume an IAM role before calling AWS. The caller needs sts:AssumeRole on it and the role's trust policy must trust the caller; a role that cannot be assumed is one `aws-config-failed` error at the provider block.",
				Attributes: map[string]schema.Attribute{
					"role_arn":     schema.StringAttribute{Optional: true, Description: "ARN of the role to assume."},
					"session_name": schema.StringAttribute{Optional: true, Description: "Session name of the assumed role."},
					"external_id":  schema.StringAttribute{Optional: true, Description: "External ID the role's trust policy requires."},
					"duration":     schema.StringAttribute{Optional: true, Description: "Session duration as a Go duration, e.g. `1h`."},
				},
			},
			"endpoints": schema.SingleNestedBlock{
				Description: "Custom service endpoints (VPC endpoints, emulators such as the project's awsemu or LocalStack). " +
					"They win over AWS_ENDPOINT_URL_<SERVICE>.",
				Attributes: map[string]schema.Attribute{
					"ec2": schema.StringAttribute{Optional: true, Description: "EC2 endpoint URL."},
					"ssm": schema.StringAttribute{Optional: true, Description: "SSM endpoint URL."},
					"eks": schema.StringAttribute{Optional: true, Description: "EKS endpoint URL."},
					"sts": schema.StringAttribute{Optional: true, Description: "STS endpoint URL."},
					"iam": schema.StringAttribute{Optional: true, Description: "IAM endpoint URL (IAM is global: one endpoint for every region). " +
						"The EC2NodeClass readiness checks read the node role or instance profile with iam:GetRole or iam:GetInstanceProfile."},
					"pricing": schema.StringAttribute{Optional: true, Description: "Price List API endpoint URL (pricing:GetProducts, " +
						"for the scheduling decision's on-demand prices; by default Karpenter's choice of region: us-east-1, ap-south-1 " +
						"for ap-*, eu-central-1 for eu-*, cn-northwest-1 for cn-*). With `ec2` overridden and neither this nor " +
						"AWS_ENDPOINT_URL_PRICING set, the Pricing API is not called (as Karpenter's --isolated-vpc) and on-demand " +
						"prices come from Karpenter's static table."},
				},
			},
			"cluster": schema.SingleNestedBlock{
				Description: "Defaults for alias resolution and userData rendering. Facts left unset are discovered with " +
					"eks:DescribeCluster when `name` is set and something needs them. Unknown values (a cluster created in the same run) " +
					"defer the checks that need them to apply.",
				Attributes: map[string]schema.Attribute{
					"name":                  schema.StringAttribute{Optional: true, Description: "EKS cluster name."},
					"kubernetes_version":    schema.StringAttribute{Optional: true, Description: "Kubernetes minor, e.g. `1.32`; it selects the SSM parameters of aliases."},
					"endpoint":              schema.StringAttribute{Optional: true, Description: "API server endpoint URL."},
					"certificate_authority": schema.StringAttribute{Optional: true, Description: "Base64-encoded PEM CA bundle, as `aws eks describe-cluster` returns it."},
					"service_cidr":          schema.StringAttribute{Optional: true, Description: "Kubernetes service CIDR (AL2023 userData needs it)."},
					"cluster_dns":           schema.StringAttribute{Optional: true, Description: "Cluster DNS IP. Default: the 10th address of `service_cidr`."},
				},
			},
			"controller": controllerBlock(),
		},
	}
}

// ValidateConfig checks literal provider settings (terraform validate).
func (p *karpenterProvider) ValidateConfig(ctx context.Context, req provider.ValidateConfigRequest, resp *provider.ValidateConfigResponse) {
	var m providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if s, ok := knownString(m.KarpenterVersion); ok {
		if _, err := versions.ParseKarpenter(s); err != nil {
			addRuleDiag(&resp.Diagnostics, path.Root("karpenter_version"), ruleProviderConfig, err.Error())
		}
	}
	if s, ok := knownString(m.Region); ok {
		if known, closest, shaped := awsclient.KnownRegion(s); !known {
			msg := fmt.Sprintf("region = %q is not a region of any AWS partition this provider's AWS SDK knows", s)
			switch {
			case closest != "":
				msg += fmt.Sprintf("; did you mean %q? The SDK would send every request to an endpoint built from the name as written, which does not resolve.", closest)
			case shaped:
				msg += ". It has the form of a region name: if AWS opened it after this provider's release, the requests will work; otherwise check the name."
			default:
				msg += ` and does not have a region's form ("us-east-1"): the SDK would send every request to an endpoint built from it, which does not resolve.`
			}
			addRuleDiag(&resp.Diagnostics, path.Root("region"), ruleRegionUnknown, msg)
		}
	}
	if !m.MaxRetries.IsNull() && !m.MaxRetries.IsUnknown() {
		if n := m.MaxRetries.ValueInt64(); n < 0 || n > 100 {
			addRuleDiag(&resp.Diagnostics, path.Root("max_retries"), ruleProviderConfig,
				fmt.Sprintf("max_retries = %d is outside 0 to 100; the AWS SDK's retryer takes a small count (the default is %d).", n, awsclient.DefaultMaxRetries))
		}
	}
	if s, ok := knownString(m.RetryMode); ok && s != "standard" && s != "adaptive" {
		addRuleDiag(&resp.Diagnostics, path.Root("retry_mode"), ruleProviderConfig,
			fmt.Sprintf("retry_mode = %q is not an AWS SDK retry mode; write \"standard\" or \"adaptive\" (client-side rate limiting).", s))
	}
	resp.Diagnostics.Append(validateAcknowledged(path.Root("acknowledged_warnings"), m.AcknowledgedWarnings, false)...)
	if attrs, ok := knownAttrs(m.AssumeRole); ok {
		if s, ok := knownString(attrs["duration"]); ok {
			if _, err := time.ParseDuration(s); err != nil {
				addRuleDiag(&resp.Diagnostics, path.Root("assume_role").AtName("duration"), ruleProviderConfig,
					fmt.Sprintf("%q is not a Go duration; write e.g. \"1h\" or \"15m\".", s))
			}
		}
	}
	if attrs, ok := knownAttrs(m.Endpoints); ok {
		for name, v := range attrs {
			if s, ok := knownString(v); ok {
				if u, err := url.Parse(s); err != nil || u.Scheme == "" || u.Host == "" {
					addRuleDiag(&resp.Diagnostics, path.Root("endpoints").AtName(name), ruleProviderConfig,
						fmt.Sprintf("%q is not an absolute URL; write e.g. \"http://127.0.0.1:4566\".", s))
				}
			}
		}
	}
	if attrs, ok := knownAttrs(m.Cluster); ok {
		validateClusterSettings(attrs, resp)
	}
	validateController(m.Controller, &resp.Diagnostics)
}

func validateClusterSettings(attrs map[string]attr.Value, resp *provider.ValidateConfigResponse) {
	at := func(n string) path.Path { return path.Root("cluster").AtName(n) }
	if s, ok := knownString(attrs["kubernetes_version"]); ok {
		if _, err := versions.ParseKubernetes(s); err != nil {
			addRuleDiag(&resp.Diagnostics, at("kubernetes_version"), ruleClusterConfig, err.Error())
		}
	}
	if s, ok := knownString(attrs["endpoint"]); ok {
		if u, err := url.Parse(s); err != nil || u.Scheme != "https" || u.Host == "" {
			addRuleDiag(&resp.Diagnostics, at("endpoint"), ruleClusterConfig,
				fmt.Sprintf("%q is not an https URL; EKS API server endpoints look like \"https://ABCDEF.gr7.us-west-2.eks.amazonaws.com\".", s))
		}
	}
	if s, ok := knownString(attrs["certificate_authority"]); ok {
		if _, err := base64.StdEncoding.DecodeString(s); err != nil {
			addRuleDiag(&resp.Diagnostics, at("certificate_authority"), ruleClusterConfig,
				"The value is not base64. Pass the base64-encoded PEM bundle exactly as `aws eks describe-cluster` returns it "+
					"(cluster.certificateAuthority.data); Karpenter base64-decodes it for AL2023 and fails with \"decoding CABundle\" otherwise.")
		}
	}
	if s, ok := knownString(attrs["service_cidr"]); ok {
		if _, err := netip.ParsePrefix(s); err != nil {
			addRuleDiag(&resp.Diagnostics, at("service_cidr"), ruleClusterConfig,
				fmt.Sprintf("%q is not a CIDR; write e.g. \"172.20.0.0/16\".", s))
		} else if _, err := cluster.DefaultDNS(s); err != nil {
			addRuleDiag(&resp.Diagnostics, at("service_cidr"), ruleClusterConfig, err.Error())
		}
	}
	if s, ok := knownString(attrs["cluster_dns"]); ok {
		if _, err := netip.ParseAddr(s); err != nil {
			addRuleDiag(&resp.Diagnostics, at("cluster_dns"), ruleClusterConfig,
				fmt.Sprintf("%q is not an IP address; write e.g. \"172.20.0.10\".", s))
		}
	}
}

// Configure builds the provider data and tolerates a null or partly unknown
// configuration: unknown AWS settings defer AWS checks, unknown cluster
// facts defer the checks that need them. It resolves the credentials
// (awsclient.Clients.Verify): the only AWS call it makes is assume_role's
// sts:AssumeRole, besides what the credential chain itself asks (SSO,
// instance metadata).
func (p *karpenterProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	defer func() {
		pd, _ := resp.ResourceData.(*ProviderData)
		p.configured.Store(pd)
	}()
	var m providerModel
	if !req.Config.Raw.IsNull() {
		resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
		if resp.Diagnostics.HasError() {
			return
		}
	}
	data, err := providerDataFromModel(m)
	if err != nil {
		addRuleDiag(&resp.Diagnostics, path.Empty(), ruleProviderConfig, err.Error())
		return
	}
	// A configuration AWS refuses fails here, once, where Terraform shows
	// the provider block, rather than at every resource that reads AWS.
	// Only when the configuration is known and asks for AWS: unknown
	// settings are judged at apply, and a plan without AWS needs none.
	if clients := data.AWS.Clients(); clients.Configured() {
		if err := clients.Verify(ctx); err != nil && !errors.Is(err, awsclient.ErrUnknownConfig) {
			addAWSFailure(&resp.Diagnostics, path.Empty(), err, "")
			return
		}
	}
	resp.DataSourceData = data
	resp.ResourceData = data
}

func providerDataFromModel(m providerModel) (*ProviderData, error) {
	var unknown []string
	str := func(v types.String, name string) string {
		if v.IsUnknown() {
			unknown = append(unknown, name)
		}
		return v.ValueString()
	}
	cfg := awsclient.Config{
		Region:     str(m.Region, "region"),
		Profile:    str(m.Profile, "profile"),
		MaxRetries: -1,
		RetryMode:  str(m.RetryMode, "retry_mode"),
	}
	if m.MaxRetries.IsUnknown() {
		unknown = append(unknown, "max_retries")
	} else if !m.MaxRetries.IsNull() {
		cfg.MaxRetries = int(m.MaxRetries.ValueInt64())
	}
	var ok bool
	if cfg.SharedConfigFiles, ok = knownStrings(m.SharedConfigFiles); !ok {
		unknown = append(unknown, "shared_config_files")
	}
	if cfg.SharedCredentialsFiles, ok = knownStrings(m.SharedCredentialsFiles); !ok {
		unknown = append(unknown, "shared_credentials_files")
	}
	if m.AssumeRole.IsUnknown() {
		unknown = append(unknown, "assume_role")
	} else if attrs, ok := knownAttrs(m.AssumeRole); ok {
		ar := &awsclient.AssumeRole{}
		for name, dst := range map[string]*string{"role_arn": &ar.RoleARN, "session_name": &ar.SessionName, "external_id": &ar.ExternalID} {
			*dst = str(stringAttr(attrs[name]), "assume_role."+name)
		}
		if d := str(stringAttr(attrs["duration"]), "assume_role.duration"); d != "" {
			dur, err := time.ParseDuration(d)
			if err != nil {
				return nil, fmt.Errorf("assume_role.duration: %q is not a Go duration (e.g. \"1h\")", d)
			}
			ar.Duration = dur
		}
		cfg.AssumeRole = ar
	}
	if m.Endpoints.IsUnknown() {
		unknown = append(unknown, "endpoints")
	} else if attrs, ok := knownAttrs(m.Endpoints); ok {
		cfg.Endpoints = awsclient.Endpoints{
			EC2: str(stringAttr(attrs["ec2"]), "endpoints.ec2"),
			SSM: str(stringAttr(attrs["ssm"]), "endpoints.ssm"),
			EKS: str(stringAttr(attrs["eks"]), "endpoints.eks"),
			STS: str(stringAttr(attrs["sts"]), "endpoints.sts"),
			IAM: str(stringAttr(attrs["iam"]), "endpoints.iam"),

			Pricing: str(stringAttr(attrs["pricing"]), "endpoints.pricing"),
		}
	}
	cfg.Unknown = unknown

	data := &ProviderData{
		AWS:       awsclient.NewCache(awsclient.NewClients(cfg)),
		Karpenter: versions.DefaultKarpenter,
	}
	if s, ok := knownString(m.KarpenterVersion); ok {
		v, err := versions.ParseKarpenter(s)
		if err != nil {
			return nil, fmt.Errorf("karpenter_version: %w", err)
		}
		data.Karpenter = v
	} else if m.KarpenterVersion.IsUnknown() {
		data.KarpenterUnknown = true
	}
	data.Cluster = clusterSettings(m.Cluster)
	var err error
	if data.Controller, data.ControllerUnknown, err = controllerSettings(m.Controller); err != nil {
		return nil, err
	}
	data.NodeOverlayGate, data.NodeOverlayGateUnknown = featureGates(m.Controller)
	data.Acknowledged = acknowledgedSet(m.AcknowledgedWarnings)
	data.StrictReadiness = m.StrictReadiness.ValueBool() // unknown: warn at plan, judged again at apply
	data.reported = &reportedOnce{}
	data.ClusterState = newClusterState(m.ClusterState)
	return data, nil
}

func clusterSettings(o types.Object) cluster.Settings {
	s := cluster.Settings{Unknown: map[string]bool{}}
	fields := []string{cluster.FieldName, cluster.FieldKubernetesVersion, cluster.FieldEndpoint,
		cluster.FieldCertificateAuthority, cluster.FieldServiceCIDR, cluster.FieldClusterDNS}
	if o.IsUnknown() {
		for _, f := range fields {
			s.Unknown[f] = true
		}
		return s
	}
	attrs, ok := knownAttrs(o)
	if !ok {
		return s
	}
	dst := map[string]*string{
		cluster.FieldName: &s.Name, cluster.FieldKubernetesVersion: &s.KubernetesVersion, cluster.FieldEndpoint: &s.Endpoint,
		cluster.FieldCertificateAuthority: &s.CertificateAuthority, cluster.FieldServiceCIDR: &s.ServiceCIDR, cluster.FieldClusterDNS: &s.ClusterDNS,
	}
	for _, f := range fields {
		v := stringAttr(attrs[f])
		if v.IsUnknown() {
			s.Unknown[f] = true
			continue
		}
		*dst[f] = v.ValueString()
	}
	return s
}

func (p *karpenterProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		NewEC2NodeClassResource,
		NewNodePoolResource,
		NewNodeOverlayResource,
		NewSchedulingResource,
	}
}

func (p *karpenterProvider) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		NewAMIsDataSource,
		NewAMIDataSource,
		NewInstanceTypesDataSource,
		NewNodeDataSource,
		NewSchedulingDataSource,
		NewDisruptionDataSource,
	}
}

func (p *karpenterProvider) Functions(context.Context) []func() function.Function {
	return []func() function.Function{
		NewAMISSMParametersFunction,
		NewInstanceFamilyFunction,
		NewLintUserDataFunction,
		NewTaintsArgFunction,
		NewUndeclaredKeysFunction,
		NewValidateManifestFunction,
	}
}

// The rules the checks of this file emit.
var (
	ruleProviderConfig = rules.Register(rules.Rule{
		ID: "provider-config-invalid", Severity: rules.Error, Category: categoryProvider,
		Title:     "a provider argument has a value the provider cannot use",
		Behaviour: "karpenter_version must be a Karpenter release the rules know (1.0 to 1.14); assume_role.duration a Go duration; each endpoints URL an absolute http(s) URL; max_retries 0 to 100; retry_mode `standard` or `adaptive` (the AWS SDK's retry modes). The AWS SDK would fail every request, or the rules would judge a release the cluster does not run.",
		Source:    "aws-sdk-go-v2 config.LoadDefaultConfig and aws/retry; Karpenter releases (github.com/aws/karpenter-provider-aws/releases)",
		Bad:       "provider \"karpenter\" {\n  karpenter_version = \"0.37\"\n  retry_mode        = \"fast\"\n}\n",
		Good:      "provider \"karpenter\" {\n  karpenter_version = \"1.14\"\n  retry_mode        = \"adaptive\"\n}\n",
	})
	ruleRegionUnknown = rules.Register(rules.Rule{
		ID: "region-unknown", Severity: rules.Warning, Category: categoryProvider,
		Title:     "region is not a region of any AWS partition the provider knows",
		Behaviour: "The AWS SDK builds the endpoint from any region name, so a misspelled region (`us-east1`) is only found when the first request fails to resolve or connect, and Karpenter's facts for it (instance types, images) cannot be read. The provider knows the regions of every partition as its AWS SDK release lists them; AWS opens regions between releases, so an unknown name is a warning, naming the known region one typo away.",
		Source:    "aws-sdk-go-v2 internal/endpoints/awsrulesfn/partitions.json (the partitions' regions and regionRegex)",
		Bad:       "provider \"karpenter\" {\n  region = \"us-east1\"\n}\n",
		Good:      "provider \"karpenter\" {\n  region = \"us-east-1\"\n}\n",
	})
	ruleClusterConfig = rules.Register(rules.Rule{
		ID: "cluster-config-invalid", Severity: rules.Error, Category: categoryProvider,
		Title:     "a cluster fact in the provider's cluster block is malformed",
		Behaviour: "The cluster block feeds alias resolution (kubernetes_version picks the SSM parameters) and rendered userData (endpoint, certificate_authority, service_cidr, cluster_dns reach bootstrap.sh, nodeadm's NodeConfig or Bottlerocket's settings). A malformed value would render userData the node cannot join with: nodeadm rejects a NodeConfig whose apiServerEndpoint is not a URL, the kubelet a clusterDNS that is not an IP.",
		Source:    "awslabs/amazon-eks-ami nodeadm api/v1alpha1 NodeConfig validation; kubelet --cluster-dns",
		Bad:       "provider \"karpenter\" {\n  cluster {\n    name               = \"demo\"\n    kubernetes_version = \"1.32.3\"\n    service_cidr       = \"172.20.0.0\"\n  }\n}\n",
		Good:      "provider \"karpenter\" {\n  cluster {\n    name               = \"demo\"\n    kubernetes_version = \"1.32\"\n    service_cidr       = \"172.20.0.0/16\"\n  }\n}\n",
	})
)
