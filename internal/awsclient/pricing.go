package awsclient

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	awspricing "github.com/aws/aws-sdk-go-v2/service/pricing"
	"github.com/aws/smithy-go"
	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/aws/karpenter-provider-aws/pkg/providers/pricing"
)

// Prices is karpenter-provider-aws's own pricing provider
// (pkg/providers/pricing DefaultProvider), run in-process as Karpenter's
// controller runs it at start: the static table it ships, then
// UpdateOnDemandPricing (pricing:GetProducts with its filters, on the
// Pricing API endpoint of its region choice, NewAPI) and UpdateSpotPricing
// (ec2:DescribeSpotPriceHistory, the latest price per zone, Linux/UNIX).
// An update that fails leaves that half on the static table, as it does
// in Karpenter.
type Prices struct {
	// Provider answers OnDemandPrice and SpotPrice.
	Provider *pricing.DefaultProvider
	Region   string
	// OnDemand and Spot say how each update went.
	OnDemand, Spot PriceRead
	// Requests counts the AWS requests the updates sent (pages included).
	Requests int
}

// PriceRead is how one price update went.
type PriceRead struct {
	// Live is set when the update replaced the static figures.
	Live bool
	// Skipped says why it was not attempted ("" when it was).
	Skipped string
	// Err is AWS's answer when it failed.
	Err error
}

// Prices reads the region's prices once per process (every plan of the
// process shares them); a cancelled caller's read is not remembered.
func (c *Cache) Prices(ctx context.Context) (*Prices, error) {
	c.mu.Lock()
	if c.prices != nil {
		p := c.prices
		c.mu.Unlock()
		return p, nil
	}
	c.mu.Unlock()
	v, err, _ := c.group.Do("prices", func() (any, error) {
		c.mu.Lock()
		if c.prices != nil {
			p := c.prices
			c.mu.Unlock()
			return p, nil
		}
		c.mu.Unlock()
		p, err := c.readPrices(ctx)
		if err != nil {
			return nil, err
		}
		if cacheable(p.OnDemand.Err) && cacheable(p.Spot.Err) {
			c.mu.Lock()
			c.prices = p
			c.mu.Unlock()
		}
		return p, nil
	})
	p, _ := v.(*Prices)
	return p, err
}

func (c *Cache) readPrices(ctx context.Context) (*Prices, error) {
	// The provider's logs are Karpenter's to discard: without a logger in
	// the context, controller-runtime prints a stack trace to stderr.
	ctx = log.IntoContext(ctx, logr.Discard())
	cfg, err := c.clients.load(ctx)
	if err != nil {
		return nil, err
	}
	var requests atomic.Int64
	ec2c, err := c.clients.ec2Client(ctx)
	if err != nil {
		return nil, err
	}
	isolated := c.clients.pricingIsolated()
	pcfg := cfg.Copy()
	if e := c.clients.cfg.Endpoints.Pricing; e != "" {
		pcfg.BaseEndpoint = aws.String(e)
	}
	p := &Prices{Region: cfg.Region, Provider: pricing.NewDefaultProvider(
		pricingAPI{client: pricing.NewAPI(pcfg), requests: &requests},
		spotHistoryAPI{client: ec2c, requests: &requests}, cfg.Region, isolated)}
	switch {
	case isolated:
		p.OnDemand.Skipped = "the EC2 endpoint is overridden and the Pricing API's is not (endpoints.pricing, AWS_ENDPOINT_URL_PRICING): " +
			"taken as an isolated VPC, where Karpenter (--isolated-vpc) does not call the Pricing API"
	case strings.HasPrefix(cfg.Region, "us-gov-"):
		p.OnDemand.Skipped = "the Pricing API does not serve AWS GovCloud, and Karpenter does not call it there"
	default:
		p.OnDemand.Err = p.Provider.UpdateOnDemandPricing(ctx)
		p.OnDemand.Live = p.OnDemand.Err == nil
	}
	p.Spot.Err = p.Provider.UpdateSpotPricing(ctx)
	p.Spot.Live = p.Spot.Err == nil
	p.Requests = int(requests.Load())
	if errors.Is(p.OnDemand.Err, ErrUnknownConfig) || errors.Is(p.Spot.Err, ErrUnknownConfig) {
		return nil, ErrUnknownConfig
	}
	return p, nil
}

// pricingIsolated reports whether the EC2 endpoint is overridden (a VPC
// endpoint, an emulator) while the Pricing API's is not: the Pricing API
// then is most likely not reachable, and Karpenter's answer to that is
// --isolated-vpc, which keeps the static on-demand table.
func (c *Clients) pricingIsolated() bool {
	e := c.cfg.Endpoints
	if e.Pricing != "" || os.Getenv("AWS_ENDPOINT_URL_PRICING") != "" || os.Getenv("AWS_ENDPOINT_URL") != "" {
		return false
	}
	return e.EC2 != "" || os.Getenv("AWS_ENDPOINT_URL_EC2") != ""
}

// errNotCalled answers the operations of Karpenter's EC2API the pricing
// provider never calls.
var errNotCalled = errors.New("not called by the pricing provider")

// pricingAPI is karpenter-provider-aws's PricingAPI on a Pricing client
// (a struct, not the client itself, in the interface: see ec2Client).
type pricingAPI struct {
	client   *awspricing.Client
	requests *atomic.Int64
}

func (a pricingAPI) GetProducts(ctx context.Context, in *awspricing.GetProductsInput, opts ...func(*awspricing.Options)) (*awspricing.GetProductsOutput, error) {
	a.requests.Add(1)
	return a.client.GetProducts(ctx, in, opts...)
}

// spotHistoryAPI is karpenter-provider-aws's EC2API for the pricing
// provider: DescribeSpotPriceHistory only.
type spotHistoryAPI struct {
	client   *ec2.Client
	requests *atomic.Int64
}

func (a spotHistoryAPI) DescribeSpotPriceHistory(ctx context.Context, in *ec2.DescribeSpotPriceHistoryInput, opts ...func(*ec2.Options)) (*ec2.DescribeSpotPriceHistoryOutput, error) {
	a.requests.Add(1)
	return a.client.DescribeSpotPriceHistory(ctx, in, opts...)
}

func (spotHistoryAPI) DescribeCapacityReservations(context.Context, *ec2.DescribeCapacityReservationsInput, ...func(*ec2.Options)) (*ec2.DescribeCapacityReservationsOutput, error) {
	return nil, errNotCalled
}
func (spotHistoryAPI) DescribePlacementGroups(context.Context, *ec2.DescribePlacementGroupsInput, ...func(*ec2.Options)) (*ec2.DescribePlacementGroupsOutput, error) {
	return nil, errNotCalled
}
func (spotHistoryAPI) DescribeImages(context.Context, *ec2.DescribeImagesInput, ...func(*ec2.Options)) (*ec2.DescribeImagesOutput, error) {
	return nil, errNotCalled
}
func (spotHistoryAPI) DescribeLaunchTemplates(context.Context, *ec2.DescribeLaunchTemplatesInput, ...func(*ec2.Options)) (*ec2.DescribeLaunchTemplatesOutput, error) {
	return nil, errNotCalled
}
func (spotHistoryAPI) DescribeSubnets(context.Context, *ec2.DescribeSubnetsInput, ...func(*ec2.Options)) (*ec2.DescribeSubnetsOutput, error) {
	return nil, errNotCalled
}
func (spotHistoryAPI) DescribeSecurityGroups(context.Context, *ec2.DescribeSecurityGroupsInput, ...func(*ec2.Options)) (*ec2.DescribeSecurityGroupsOutput, error) {
	return nil, errNotCalled
}
func (spotHistoryAPI) DescribeInstanceTypes(context.Context, *ec2.DescribeInstanceTypesInput, ...func(*ec2.Options)) (*ec2.DescribeInstanceTypesOutput, error) {
	return nil, errNotCalled
}
func (spotHistoryAPI) DescribeInstanceTypeOfferings(context.Context, *ec2.DescribeInstanceTypeOfferingsInput, ...func(*ec2.Options)) (*ec2.DescribeInstanceTypeOfferingsOutput, error) {
	return nil, errNotCalled
}
func (spotHistoryAPI) DescribeInstanceStatus(context.Context, *ec2.DescribeInstanceStatusInput, ...func(*ec2.Options)) (*ec2.DescribeInstanceStatusOutput, error) {
	return nil, errNotCalled
}
func (spotHistoryAPI) CreateFleet(context.Context, *ec2.CreateFleetInput, ...func(*ec2.Options)) (*ec2.CreateFleetOutput, error) {
	return nil, errNotCalled
}
func (spotHistoryAPI) TerminateInstances(context.Context, *ec2.TerminateInstancesInput, ...func(*ec2.Options)) (*ec2.TerminateInstancesOutput, error) {
	return nil, errNotCalled
}
func (spotHistoryAPI) DescribeInstances(context.Context, *ec2.DescribeInstancesInput, ...func(*ec2.Options)) (*ec2.DescribeInstancesOutput, error) {
	return nil, errNotCalled
}
func (spotHistoryAPI) RunInstances(context.Context, *ec2.RunInstancesInput, ...func(*ec2.Options)) (*ec2.RunInstancesOutput, error) {
	return nil, errNotCalled
}
func (spotHistoryAPI) CreateTags(context.Context, *ec2.CreateTagsInput, ...func(*ec2.Options)) (*ec2.CreateTagsOutput, error) {
	return nil, errNotCalled
}
func (spotHistoryAPI) CreateLaunchTemplate(context.Context, *ec2.CreateLaunchTemplateInput, ...func(*ec2.Options)) (*ec2.CreateLaunchTemplateOutput, error) {
	return nil, errNotCalled
}
func (spotHistoryAPI) DeleteLaunchTemplate(context.Context, *ec2.DeleteLaunchTemplateInput, ...func(*ec2.Options)) (*ec2.DeleteLaunchTemplateOutput, error) {
	return nil, errNotCalled
}

// Status says why the read left the static figures ("" when it replaced
// them), and the IAM action AWS denied, if that is why (a configuration
// or endpoint failure, which would fail every read, is not a denial).
func (r PriceRead) Status(action string) (why, denied string) {
	switch {
	case r.Live:
		return "", ""
	case r.Skipped != "":
		return r.Skipped, ""
	case r.Err == nil:
		return "not read", ""
	}
	var ee *EndpointError
	var ce *ConfigError
	_, rejected := CredentialsRejected(r.Err)
	if a, ok := Denied(r.Err); ok && !errors.As(r.Err, &ee) && !errors.As(r.Err, &ce) && !rejected {
		return "AWS denied " + action, a
	}
	if errors.As(r.Err, &ee) {
		return ee.Error(), ""
	}
	var ae smithy.APIError
	if errors.As(r.Err, &ae) {
		if notServed[ae.ErrorCode()] {
			return "the endpoint does not serve " + action + " (" + ae.ErrorCode() + ")", ""
		}
		return action + " failed: " + ae.ErrorCode() + ": " + ae.ErrorMessage(), ""
	}
	return action + " failed: " + r.Err.Error(), ""
}

// notServed are the codes of an endpoint that does not implement an
// operation (an emulator, a proxy).
var notServed = map[string]bool{"UnsupportedOperation": true, "InvalidAction": true, "UnknownOperationException": true}
