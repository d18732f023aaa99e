// Package awsemu is a local AWS endpoint emulator for tests and demos. One
// http.Handler serves, on the wire protocols aws-sdk-go-v2 speaks:
//
//   - EC2 (query protocol): DescribeImages, DescribeInstanceTypes,
//     DescribeSubnets, DescribeSecurityGroups, DescribeInstanceTypeOfferings,
//     DescribeCapacityReservations
//   - SSM (awsJson1_1): GetParameter, GetParameters
//   - Price List Query API (awsJson1_1): GetProducts; and EC2's
//     DescribeSpotPriceHistory, for the scheduling decision's prices
//   - EKS (restJson1): DescribeCluster (GET /clusters/{name})
//   - STS (query protocol): GetCallerIdentity, AssumeRole
//   - IAM (query protocol, global): GetRole, GetInstanceProfile
//
// plus GET /_emulator/stats and POST /_emulator/reset. Options inject faults:
// throttling, latency, and actions denied as IAM would deny them. Requests
// are routed by the SigV4 credential scope's service; signatures are not
// verified, and unsigned requests are routed by X-Amz-Target, path and
// Action instead.
//
// Point SDK clients at it with BaseEndpoint or AWS_ENDPOINT_URL_<SERVICE>
// (see package awsemutest), or run cmd/awsemu.
package awsemu

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
)

// Options configure a Server. The zero value is a well-behaved emulator for
// account AccountID in us-east-1 with the wall clock.
type Options struct {
	// ThrottleRate is the fraction (0..1) of API requests answered with the
	// service's throttling error instead of being served.
	ThrottleRate float64
	// Latency is added before every API answer (the emulator never answers
	// faster than settleDelay, see there); a request whose context ends
	// first gets no answer.
	Latency time.Duration
	// Seed seeds the throttling decisions, so a sequence of requests is
	// throttled the same way on every run.
	Seed int64
	// Now is the clock used to decide whether an image is deprecated.
	// Default time.Now.
	Now func() time.Time
	// AccountID is "self" for DescribeImages and the STS caller identity.
	// Default AccountID.
	AccountID string
	// Region appears in ARNs. Default "us-east-1".
	Region string
	// Deny lists IAM actions ("iam:GetRole", "ec2:Describe*", or a bare
	// "GetRole" for any service; see ParseDeny) answered with the service's
	// own access-denied error instead of being served.
	Deny []string
}

// Server is the emulator; it is an http.Handler and safe for concurrent use.
type Server struct {
	opts Options

	images        []ec2types.Image
	imageIndex    map[string]int // ImageId -> position in images
	instanceTypes []ec2types.InstanceTypeInfo
	typeIndex     map[string]int
	params        map[string]*ssmParameter
	clusters      map[string]ekstypes.Cluster

	subnets              []ec2types.Subnet // nil: DescribeSubnets is not served
	securityGroups       []ec2types.SecurityGroup
	offerings            []ec2types.InstanceTypeOffering
	capacityReservations []ec2types.CapacityReservation
	roles                []iamtypes.Role
	instanceProfiles     []iamtypes.InstanceProfile
	products             []product // nil: GetProducts is not served
	productsErr          error
	spotPrices           []ec2types.SpotPrice // nil: DescribeSpotPriceHistory is not served

	rngMu sync.Mutex
	rng   *rand.Rand

	stats  stats
	reqSeq atomic.Uint64
}

// New returns an emulator serving a snapshot of f (later changes to f are not
// seen). A nil f serves nothing.
func New(f *Fixtures, opts Options) *Server {
	if f == nil {
		f = &Fixtures{}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.AccountID == "" {
		opts.AccountID = AccountID
	}
	if opts.Region == "" {
		opts.Region = "us-east-1"
	}
	s := &Server{
		opts:                 opts,
		images:               append([]ec2types.Image(nil), f.Images...),
		imageIndex:           make(map[string]int, len(f.Images)),
		instanceTypes:        append([]ec2types.InstanceTypeInfo(nil), f.InstanceTypes...),
		typeIndex:            make(map[string]int, len(f.InstanceTypes)),
		params:               make(map[string]*ssmParameter, len(f.Parameters)),
		clusters:             make(map[string]ekstypes.Cluster, len(f.Clusters)),
		subnets:              clone(f.Subnets),
		securityGroups:       clone(f.SecurityGroups),
		offerings:            clone(f.InstanceTypeOfferings),
		capacityReservations: clone(f.CapacityReservations),
		roles:                clone(f.Roles),
		instanceProfiles:     clone(f.InstanceProfiles),
		spotPrices:           clone(f.SpotPriceHistory),
		rng:                  rand.New(rand.NewPCG(uint64(opts.Seed), 0x617773656d75)), // "awsemu"
	}
	// LoadFixtures refuses a PriceList entry that is not JSON; one added in
	// Go leaves GetProducts answering an internal error instead.
	s.products, s.productsErr = indexProducts(f.PriceList)
	for i, img := range s.images {
		s.imageIndex[deref(img.ImageId)] = i
	}
	for i, it := range s.instanceTypes {
		s.typeIndex[string(it.InstanceType)] = i
	}
	// History first: a Parameters entry is the current value of its
	// version and wins over a history entry of the same version.
	for _, h := range f.ParameterHistory {
		s.addParameterVersion(historyParameter(h), h.Labels)
	}
	for _, p := range f.Parameters {
		s.addParameterVersion(p, nil)
	}
	for _, c := range f.Clusters {
		s.clusters[deref(c.Name)] = c
	}
	return s
}

// ServeHTTP routes a request to the emulated service.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/_emulator/") {
		s.serveAdmin(w, r)
		return
	}
	call, ok := s.parseCall(w, r)
	if !ok {
		return
	}
	s.stats.count(call.service + ":" + call.action)

	if !s.wait(r) {
		return
	}
	// IAM decides before the service counts the request against its rate.
	if s.denies(call) {
		s.stats.count(statDenied)
		call.fail(w, s.accessDenied(call))
		return
	}
	if s.throttle() {
		s.stats.count(statThrottled)
		call.throttled(w)
		return
	}
	call.serve(w)
}

// call is one parsed API request, bound to its service's handlers.
type call struct {
	service, action string
	serve           func(http.ResponseWriter)
	throttled       func(http.ResponseWriter)
	// fail writes an error in the service's envelope.
	fail func(http.ResponseWriter, *apiError)
}

// parseCall identifies the service and action. It writes a protocol error and
// returns false when the request cannot be understood at all.
func (s *Server) parseCall(w http.ResponseWriter, r *http.Request) (call, bool) {
	switch service := signingService(r); {
	case service == "ssm" || service == "" && strings.HasPrefix(r.Header.Get("X-Amz-Target"), "AmazonSSM."):
		return s.parseSSM(w, r)
	case service == "pricing" || service == "" && strings.HasPrefix(r.Header.Get("X-Amz-Target"), "AWSPriceListService."):
		return s.parsePricing(w, r)
	case service == "eks" || service == "" && strings.HasPrefix(r.URL.Path, "/clusters"):
		return s.parseEKS(r), true
	case service == "ec2" || service == "sts" || service == "iam" || service == "":
		if err := r.ParseForm(); err != nil {
			writeQueryError(w, http.StatusBadRequest, "MalformedQueryString", err.Error(), s.requestID())
			return call{}, false
		}
		action := r.Form.Get("Action")
		if service == "sts" || service == "" && isSTSRequest(r.Form) {
			return s.parseSTS(r.Form, action), true
		}
		if service == "iam" || service == "" && isIAMRequest(r.Form) {
			return s.parseIAM(r.Form, action), true
		}
		return s.parseEC2(r.Form, action), true
	default:
		http.Error(w, fmt.Sprintf("awsemu: service %q is not emulated", service), http.StatusBadRequest)
		return call{}, false
	}
}

// signingService returns the service of a SigV4 Authorization header's
// credential scope (Credential=AKID/DATE/REGION/SERVICE/aws4_request), or "".
func signingService(r *http.Request) string {
	auth := r.Header.Get("Authorization")
	_, cred, ok := strings.Cut(auth, "Credential=")
	if !ok {
		return ""
	}
	cred, _, _ = strings.Cut(cred, ",")
	parts := strings.Split(strings.TrimSpace(cred), "/")
	if len(parts) != 5 || parts[4] != "aws4_request" {
		return ""
	}
	return parts[3]
}

// settleDelay is the least time the emulator takes to answer an API call.
//
// It works around a race in the SDK (smithy-go v1.28.8 with net/http of Go
// 1.26): the SDK closes the request body as soon as response headers arrive,
// while net/http's writer goroutine may still be probing that body for extra
// bytes; the SDK body's WriteTo then returns io.EOF, net/http treats it as a
// write error and closes the connection under the response being read. The
// call fails with "deserialization failed ... use of closed network
// connection". Against AWS the network round trip hides the window; against
// a loopback server 0.3-5 % of calls with large responses failed. Answering
// after a millisecond lets the writer finish first on an idle machine (0
// failures in thousands of calls), but not reliably on a loaded one: clients
// that must never see the error add the API option
// awsemutest.AvoidSDKBodyRace (this package's tests do).
const settleDelay = time.Millisecond

// wait applies the configured latency (at least settleDelay); false means
// the client went away first.
func (s *Server) wait(r *http.Request) bool {
	t := time.NewTimer(max(s.opts.Latency, settleDelay))
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

// throttle draws from the seeded generator, once per API request while
// throttling is on, so the decisions depend only on Seed and request order.
func (s *Server) throttle() bool {
	if s.opts.ThrottleRate <= 0 {
		return false
	}
	s.rngMu.Lock()
	defer s.rngMu.Unlock()
	return s.rng.Float64() < s.opts.ThrottleRate
}

// requestID returns a unique, UUID-shaped request id.
func (s *Server) requestID() string {
	return fmt.Sprintf("a1b2c3d4-0000-4000-8000-%012x", s.reqSeq.Add(1))
}

func (s *Server) now() time.Time { return s.opts.Now() }

// clone copies a fixture list, keeping nil apart from empty (nil subnets
// mean "not served").
func clone[T any](s []T) []T {
	if s == nil {
		return nil
	}
	return append(make([]T, 0, len(s)), s...)
}
