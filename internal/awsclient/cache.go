package awsclient

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"golang.org/x/sync/singleflight"
)

// SSMBatchSize is GetParameters' limit on names per call.
const SSMBatchSize = 10

// describeImagesPageSize is what Karpenter asks for (MaxResults 1000).
const describeImagesPageSize = 1000

// Cache answers AWS questions once per distinct query for the life of the
// provider process (one Terraform command). It is safe for concurrent use:
// Terraform plans resources in parallel and they share one in-flight call.
type Cache struct {
	clients *Clients
	group   singleflight.Group

	mu       sync.Mutex
	images   map[string]cached[[]Image]
	params   map[string]Parameter
	paramErr map[string]error
	types    *cached[[]ec2types.InstanceTypeInfo]
	clusters map[string]cached[Cluster]
	// answers holds the readiness reads (network.go), keyed by operation
	// and query.
	answers map[string]cached[any]
	// prices is Karpenter's pricing provider after its updates (pricing.go).
	prices *Prices

	batcher paramBatcher
}

type cached[T any] struct {
	val T
	err error
}

// NewCache wraps clients with the per-process cache.
func NewCache(c *Clients) *Cache {
	return &Cache{
		clients:  c,
		images:   map[string]cached[[]Image]{},
		params:   map[string]Parameter{},
		paramErr: map[string]error{},
		clusters: map[string]cached[Cluster]{},
		answers:  map[string]cached[any]{},
	}
}

// Clients returns the underlying clients.
func (c *Cache) Clients() *Clients { return c.clients }

// cacheable reports whether an error may be remembered: a cancelled caller's
// error says nothing about AWS, so another caller must be allowed to retry.
func cacheable(err error) bool {
	return !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, ErrUnknownConfig)
}

// DescribeImages returns every image of the query, all pages.
func (c *Cache) DescribeImages(ctx context.Context, q ImageQuery) ([]Image, error) {
	key := "images:" + q.Key()
	c.mu.Lock()
	if hit, ok := c.images[key]; ok {
		c.mu.Unlock()
		return hit.val, hit.err
	}
	c.mu.Unlock()
	v, err, _ := c.group.Do(key, func() (any, error) {
		c.mu.Lock()
		if hit, ok := c.images[key]; ok {
			c.mu.Unlock()
			return hit.val, hit.err
		}
		c.mu.Unlock()
		imgs, err := c.describeImages(ctx, q)
		if err == nil || cacheable(err) {
			c.mu.Lock()
			c.images[key] = cached[[]Image]{imgs, err}
			c.mu.Unlock()
		}
		return imgs, err
	})
	imgs, _ := v.([]Image)
	return imgs, err
}

func (c *Cache) describeImages(ctx context.Context, q ImageQuery) ([]Image, error) {
	client, err := c.clients.ec2Client(ctx)
	if err != nil {
		return nil, err
	}
	in := &ec2.DescribeImagesInput{
		Owners:            q.Owners,
		IncludeDeprecated: aws.Bool(q.IncludeDeprecated),
		MaxResults:        aws.Int32(describeImagesPageSize),
	}
	if q.IncludeDisabled {
		in.IncludeDisabled = aws.Bool(true)
	}
	for _, f := range q.Filters {
		in.Filters = append(in.Filters, ec2types.Filter{Name: aws.String(f.Name), Values: f.Values})
	}
	var out []Image
	for {
		page, err := client.DescribeImages(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("ec2:DescribeImages %s: %w", describeQuery(q), err)
		}
		for _, img := range page.Images {
			out = append(out, imageFromSDK(img))
		}
		if aws.ToString(page.NextToken) == "" {
			break
		}
		in.NextToken = page.NextToken
	}
	return out, nil
}

func describeQuery(q ImageQuery) string {
	var parts []string
	if len(q.Owners) > 0 {
		parts = append(parts, "owners="+strings.Join(q.Owners, ","))
	}
	for _, f := range q.Filters {
		parts = append(parts, f.Name+"="+strings.Join(f.Values, ","))
	}
	return "(" + strings.Join(parts, " ") + ")"
}

func imageFromSDK(img ec2types.Image) Image {
	out := Image{
		ID:              aws.ToString(img.ImageId),
		Name:            aws.ToString(img.Name),
		Description:     aws.ToString(img.Description),
		OwnerID:         aws.ToString(img.OwnerId),
		OwnerAlias:      aws.ToString(img.ImageOwnerAlias),
		Architecture:    string(img.Architecture),
		State:           string(img.State),
		CreationDate:    aws.ToString(img.CreationDate),
		DeprecationTime: aws.ToString(img.DeprecationTime),
		Platform:        string(img.Platform),
		RootDeviceName:  aws.ToString(img.RootDeviceName),
	}
	if len(img.Tags) > 0 {
		out.Tags = make(map[string]string, len(img.Tags))
		for _, t := range img.Tags {
			out.Tags[aws.ToString(t.Key)] = aws.ToString(t.Value)
		}
	}
	for _, bd := range img.BlockDeviceMappings {
		d := BlockDevice{DeviceName: aws.ToString(bd.DeviceName)}
		if bd.Ebs != nil {
			d.SnapshotID = aws.ToString(bd.Ebs.SnapshotId)
			d.VolumeSizeGiB = aws.ToInt32(bd.Ebs.VolumeSize)
			d.VolumeType = string(bd.Ebs.VolumeType)
		}
		out.BlockDevices = append(out.BlockDevices, d)
	}
	return out
}

// GetParameters looks names up in SSM, SSMBatchSize names a call, and returns
// an entry for every name: Found is false for a parameter SSM does not have
// (Karpenter treats that as "this variant does not exist"). Names already
// asked for in this process are not asked again, and names concurrent
// callers ask for within SSMBatchWindow share calls (ssmbatch.go).
func (c *Cache) GetParameters(ctx context.Context, names []string) (map[string]Parameter, error) {
	uniq := dedupe(names)
	c.mu.Lock()
	var missing []string
	for _, n := range uniq {
		if _, ok := c.params[n]; ok {
			continue
		}
		if err, ok := c.paramErr[n]; ok {
			c.mu.Unlock()
			return nil, err
		}
		missing = append(missing, n)
	}
	c.mu.Unlock()

	var firstErr error
	for _, pb := range c.join(ctx, missing) {
		// Every batch is awaited, also after an error, so a cancelled
		// caller is counted out of each (await).
		if err := c.await(ctx, pb); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	if firstErr != nil {
		return nil, firstErr
	}

	out := make(map[string]Parameter, len(uniq))
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range uniq {
		p, ok := c.params[n]
		if !ok {
			if err, bad := c.paramErr[n]; bad {
				return nil, err
			}
			// Another caller's overlapping batch was cancelled; report
			// rather than guess.
			return nil, fmt.Errorf("ssm:GetParameters: no answer recorded for %s", n)
		}
		out[n] = p
	}
	return out, nil
}

func (c *Cache) getParameterBatch(ctx context.Context, batch []string) error {
	// A concurrent caller may have filled these while we waited.
	c.mu.Lock()
	var todo []string
	for _, n := range batch {
		if _, ok := c.params[n]; !ok {
			todo = append(todo, n)
		}
	}
	c.mu.Unlock()
	if len(todo) == 0 {
		return nil
	}
	client, err := c.clients.ssmClient(ctx)
	if err != nil {
		return err
	}
	resp, err := client.GetParameters(ctx, &ssm.GetParametersInput{Names: todo})
	if err != nil {
		err = fmt.Errorf("ssm:GetParameters %v: %w", todo, err)
		if cacheable(err) {
			c.mu.Lock()
			for _, n := range todo {
				c.paramErr[n] = err
			}
			c.mu.Unlock()
		}
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range resp.Parameters {
		// SSM answers under the plain name: a parameter asked for by ARN or
		// with a version/label selector ("/x:3", "/x:prod") comes back as
		// "/x" with Selector ":3". Record it under what was asked, and
		// never file a selected version under the plain name, which means
		// the current version.
		name, sel, arn := aws.ToString(p.Name), aws.ToString(p.Selector), aws.ToString(p.ARN)
		asked := map[string]bool{name + sel: true}
		if arn != "" {
			asked[arn+sel] = true
		}
		for _, n := range todo {
			if asked[n] {
				c.params[n] = Parameter{Name: n, Value: aws.ToString(p.Value), Found: true}
			}
		}
	}
	for _, n := range resp.InvalidParameters {
		c.params[n] = Parameter{Name: n}
	}
	for _, n := range todo {
		if _, ok := c.params[n]; !ok {
			c.params[n] = Parameter{Name: n}
		}
	}
	return nil
}

// KarpenterInstanceTypeFilters are the filters Karpenter's instance type
// provider sends (pkg/providers/instancetype/instancetype.go
// UpdateInstanceTypes): only HVM types of the two architectures it supports.
var KarpenterInstanceTypeFilters = []Filter{
	{Name: "supported-virtualization-type", Values: []string{"hvm"}},
	{Name: "processor-info.supported-architecture", Values: []string{"x86_64", "arm64"}},
}

// DescribeInstanceTypes returns the region's instance types as Karpenter
// sees them, all pages, once per process.
func (c *Cache) DescribeInstanceTypes(ctx context.Context) ([]ec2types.InstanceTypeInfo, error) {
	c.mu.Lock()
	if c.types != nil {
		hit := *c.types
		c.mu.Unlock()
		return hit.val, hit.err
	}
	c.mu.Unlock()
	v, err, _ := c.group.Do("instance-types", func() (any, error) {
		c.mu.Lock()
		if c.types != nil {
			hit := *c.types
			c.mu.Unlock()
			return hit.val, hit.err
		}
		c.mu.Unlock()
		its, err := c.describeInstanceTypes(ctx)
		if err == nil || cacheable(err) {
			c.mu.Lock()
			c.types = &cached[[]ec2types.InstanceTypeInfo]{its, err}
			c.mu.Unlock()
		}
		return its, err
	})
	its, _ := v.([]ec2types.InstanceTypeInfo)
	return its, err
}

func (c *Cache) describeInstanceTypes(ctx context.Context) ([]ec2types.InstanceTypeInfo, error) {
	client, err := c.clients.ec2Client(ctx)
	if err != nil {
		return nil, err
	}
	in := &ec2.DescribeInstanceTypesInput{}
	for _, f := range KarpenterInstanceTypeFilters {
		in.Filters = append(in.Filters, ec2types.Filter{Name: aws.String(f.Name), Values: f.Values})
	}
	var out []ec2types.InstanceTypeInfo
	for {
		page, err := client.DescribeInstanceTypes(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("ec2:DescribeInstanceTypes: %w", err)
		}
		out = append(out, page.InstanceTypes...)
		if aws.ToString(page.NextToken) == "" {
			break
		}
		in.NextToken = page.NextToken
	}
	sort.Slice(out, func(i, j int) bool { return out[i].InstanceType < out[j].InstanceType })
	return out, nil
}

// DescribeCluster returns the facts of an EKS cluster, once per name.
func (c *Cache) DescribeCluster(ctx context.Context, name string) (Cluster, error) {
	c.mu.Lock()
	if hit, ok := c.clusters[name]; ok {
		c.mu.Unlock()
		return hit.val, hit.err
	}
	c.mu.Unlock()
	v, err, _ := c.group.Do("cluster:"+name, func() (any, error) {
		cl, err := c.describeCluster(ctx, name)
		if err == nil || cacheable(err) {
			c.mu.Lock()
			c.clusters[name] = cached[Cluster]{cl, err}
			c.mu.Unlock()
		}
		return cl, err
	})
	cl, _ := v.(Cluster)
	return cl, err
}

// ClusterNotFoundError is eks:DescribeCluster's ResourceNotFoundException:
// the name is wrong, or the account or region is. Where to correct it is
// the front end's to say (Advice: the provider block, a command's flag).
type ClusterNotFoundError struct {
	Name   string
	Err    error
	Advice string
}

func (e *ClusterNotFoundError) Error() string {
	msg := fmt.Sprintf("eks:DescribeCluster: cluster %q does not exist in this account and region", e.Name)
	if e.Advice != "" {
		msg += "; " + e.Advice
	}
	return msg + ": " + e.Err.Error()
}

func (e *ClusterNotFoundError) Unwrap() error { return e.Err }

func (c *Cache) describeCluster(ctx context.Context, name string) (Cluster, error) {
	client, err := c.clients.eksClient(ctx)
	if err != nil {
		return Cluster{}, err
	}
	resp, err := client.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String(name)})
	if err != nil {
		var nf *ekstypes.ResourceNotFoundException
		if errors.As(err, &nf) {
			return Cluster{}, &ClusterNotFoundError{Name: name, Err: err}
		}
		return Cluster{}, fmt.Errorf("eks:DescribeCluster %q: %w", name, err)
	}
	cl := resp.Cluster
	out := Cluster{
		Name:     aws.ToString(cl.Name),
		Version:  aws.ToString(cl.Version),
		Endpoint: aws.ToString(cl.Endpoint),
	}
	if cl.CertificateAuthority != nil {
		out.CertificateAuthority = aws.ToString(cl.CertificateAuthority.Data)
	}
	if n := cl.KubernetesNetworkConfig; n != nil {
		out.ServiceIPv4CIDR = aws.ToString(n.ServiceIpv4Cidr)
		out.ServiceIPv6CIDR = aws.ToString(n.ServiceIpv6Cidr)
		out.IPFamily = string(n.IpFamily)
	}
	return out, nil
}

// dedupe returns in's strings sorted, each once.
func dedupe(in []string) []string {
	return slices.Compact(slices.Sorted(slices.Values(in)))
}
