package awsclient

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
)

// The ways AWS says no that callers tell apart: the provider configuration
// (ConfigError), an endpoint that does not answer (EndpointError), a
// permission the caller lacks (Denied), credentials AWS rejects
// (CredentialsRejected). Everything else is a failed request.

// Default timeouts of one HTTP attempt. AWS accepts a connection in
// milliseconds and sends the headers of the provider's reads (Describe*,
// GetParameters, GetRole, DescribeCluster) within a few seconds; an address
// that drops packets, or a listener that accepts and never answers, would
// otherwise hold a plan for minutes without a word. Such a failure is not
// retried (unlike throttling) and is remembered per endpoint, so a plan
// fails within about ResponseTimeout however many resources it has.
const (
	ConnectTimeout  = 5 * time.Second
	ResponseTimeout = 10 * time.Second
)

// Timeouts bound one HTTP attempt; zero fields mean the defaults above.
type Timeouts struct {
	// Connect bounds the TCP connect and the TLS handshake.
	Connect time.Duration
	// Response bounds the wait for the response headers once the request
	// is written, and any silence while the body is read.
	Response time.Duration
}

func (t Timeouts) withDefaults() Timeouts {
	if t.Connect <= 0 {
		t.Connect = ConnectTimeout
	}
	if t.Response <= 0 {
		t.Response = ResponseTimeout
	}
	return t
}

// ConfigError is a provider configuration AWS cannot be used with: a
// profile or shared file that does not load, no region, no credentials, or
// a role that cannot be assumed. Setting names the provider argument to fix
// ("profile", "region", "credentials", "assume_role").
type ConfigError struct {
	Setting string
	Err     error
}

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// EndpointError is an endpoint that did not answer: the connection was
// refused or timed out, the name did not resolve, or no response came
// within the response timeout. The first failure is remembered for the
// endpoint (scheme://host) and every later request to it fails at once with
// the same error.
type EndpointError struct {
	// Endpoint is scheme://host[:port].
	Endpoint string
	// Service and Operation are the SDK's names of the request that found
	// the endpoint silent ("EC2", "DescribeImages").
	Service, Operation string
	// Reason says what happened, e.g. "did not answer within 10s".
	Reason string
	// Cause is the transport's error text (not wrapped: a timeout error
	// would read as a cancelled caller, which callers must not remember).
	Cause string
	// first is the error of the request that found the endpoint silent,
	// when this request (of another service or operation, sharing the
	// endpoint) was not sent because of it.
	first *EndpointError
}

func (e *EndpointError) Error() string {
	if e.first != nil {
		return fmt.Sprintf("the %s endpoint %s %s for %s, as for %s before it in this run (%s)",
			e.Service, e.Endpoint, e.Reason, e.Permission(), e.first.Permission(), e.Cause)
	}
	return fmt.Sprintf("the %s endpoint %s %s (%s)", e.Service, e.Endpoint, e.Reason, e.Cause)
}

// First is the error of the request that found the endpoint silent: e
// itself, or the earlier request of another service or operation.
func (e *EndpointError) First() *EndpointError {
	if e.first != nil {
		return e.first
	}
	return e
}

// Permission is the IAM action of the request, e.g. "ec2:DescribeImages".
func (e *EndpointError) Permission() string { return permission(e.Service, e.Operation) }

func permission(service, operation string) string {
	return strings.ToLower(service) + ":" + operation
}

// deniedCodes are the error codes AWS answers a caller whose policies do
// not allow the action: EC2's UnauthorizedOperation, the awsQuery services'
// (IAM, STS) AccessDenied, the JSON services' (SSM, EKS)
// AccessDeniedException.
var deniedCodes = map[string]bool{"UnauthorizedOperation": true, "AccessDenied": true, "AccessDeniedException": true}

// rejectedCodes are the error codes of credentials AWS does not accept:
// unknown or malformed keys, a wrong secret, an expired session.
var rejectedCodes = map[string]bool{
	"AuthFailure": true, "InvalidClientTokenId": true, "UnrecognizedClientException": true,
	"SignatureDoesNotMatch": true, "InvalidSignatureException": true, "IncompleteSignature": true,
	"ExpiredToken": true, "ExpiredTokenException": true, "RequestExpired": true,
}

// Denied reports whether AWS denied the request for lack of permission,
// and the IAM action to grant ("iam:GetRole"): the operation of the
// innermost SDK call, so a role that could not be assumed while signing an
// EC2 call names sts:AssumeRole, not the EC2 action.
func Denied(err error) (action string, ok bool) {
	return apiFailure(err, deniedCodes)
}

// CredentialsRejected reports whether AWS refused the credentials
// themselves, and its error code.
func CredentialsRejected(err error) (code string, ok bool) {
	var ae smithy.APIError
	if errors.As(err, &ae) && rejectedCodes[ae.ErrorCode()] {
		return ae.ErrorCode(), true
	}
	return "", false
}

func apiFailure(err error, codes map[string]bool) (string, bool) {
	var found string
	walk(err, func(e error) bool {
		oe, ok := e.(*smithy.OperationError)
		if !ok {
			return true
		}
		var ae smithy.APIError
		if errors.As(oe.Err, &ae) && codes[ae.ErrorCode()] {
			found = permission(oe.ServiceID, oe.OperationName)
		}
		return true // an inner operation wins
	})
	return found, found != ""
}

// walk calls f on err and every error it wraps, outermost first, following
// both Unwrap() error and Unwrap() []error, until f returns false.
func walk(err error, f func(error) bool) bool {
	for err != nil {
		if !f(err) {
			return false
		}
		switch u := err.(type) {
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if !walk(e, f) {
					return false
				}
			}
			return true
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		default:
			return true
		}
	}
	return true
}

// httpClient is the SDK's buildable client with the attempt timeouts; the
// configuration loader may still add a custom CA bundle to it.
func httpClient(t Timeouts) *awshttp.BuildableClient {
	return awshttp.NewBuildableClient().
		WithDialerOptions(func(d *net.Dialer) { d.Timeout = t.Connect }).
		WithTransportOptions(func(tr *http.Transport) {
			tr.TLSHandshakeTimeout = t.Connect
			tr.ResponseHeaderTimeout = t.Response
		}).
		WithReadTimeout(t.Response)
}

// forRequest is e as the error of the request of ctx: named for that request,
// since one endpoint may serve several services (an emulator, a proxy)
// and the EKS call must not read as EC2's.
func (e *EndpointError) forRequest(ctx context.Context) *EndpointError {
	service, op := middleware.GetServiceID(ctx), middleware.GetOperationName(ctx)
	if service == e.Service && op == e.Operation {
		return e
	}
	return &EndpointError{Endpoint: e.Endpoint, Service: service, Operation: op, Reason: e.Reason, Cause: e.Cause, first: e}
}

// endpointGuard remembers the endpoints that did not answer. It is not a
// BuildableClient, so the service clients use it as it is instead of
// re-deriving their own timeouts.
type endpointGuard struct {
	next     aws.HTTPClient
	timeouts Timeouts

	mu   sync.Mutex
	down map[string]*EndpointError
}

func (g *endpointGuard) Do(req *http.Request) (*http.Response, error) {
	key := req.URL.Scheme + "://" + req.URL.Host
	g.mu.Lock()
	e := g.down[key]
	g.mu.Unlock()
	ctx := req.Context()
	if e != nil {
		return nil, e.forRequest(ctx)
	}
	resp, err := g.next.Do(req)
	if err == nil || ctx.Err() != nil {
		return resp, err // a cancelled caller says nothing about the endpoint
	}
	reason, ok := g.unreachable(err)
	if !ok {
		return resp, err
	}
	e = &EndpointError{Endpoint: key, Service: middleware.GetServiceID(ctx), Operation: middleware.GetOperationName(ctx),
		Reason: reason, Cause: err.Error()}
	g.mu.Lock()
	defer g.mu.Unlock()
	if prev := g.down[key]; prev != nil {
		// Failed in flight beside another request: its own error, tied to
		// the first so that it is reported with it.
		if e.Service == prev.Service && e.Operation == prev.Operation {
			return nil, prev
		}
		e.first = prev
		return nil, e
	}
	if g.down == nil {
		g.down = map[string]*EndpointError{}
	}
	g.down[key] = e
	return nil, e
}

// unreachable classifies a transport error: the endpoint refused, could not
// be reached or resolved, or stayed silent. Connection resets and other
// mid-exchange failures are not: the SDK retries those.
func (g *endpointGuard) unreachable(err error) (string, bool) {
	var dns *net.DNSError
	var op *net.OpError
	var timeout interface{ Timeout() bool }
	switch {
	case errors.As(err, &dns):
		return "could not be resolved (" + dns.Err + ")", true
	case errors.As(err, &op) && op.Op == "dial":
		if op.Timeout() {
			return fmt.Sprintf("did not accept a connection within %s", g.timeouts.Connect), true
		}
		return "refused or could not be reached", true
	case errors.As(err, &timeout) && timeout.Timeout():
		return fmt.Sprintf("did not answer within %s", g.timeouts.Response), true
	}
	return "", false
}

// noRetryUnreachable keeps the SDK's retries (throttling, 5xx, resets) but
// not for an endpoint that did not answer: retrying it would only multiply
// the wait.
type noRetryUnreachable struct{ aws.RetryerV2 }

func (r noRetryUnreachable) IsErrorRetryable(err error) bool {
	var e *EndpointError
	if errors.As(err, &e) {
		return false
	}
	return r.RetryerV2.IsErrorRetryable(err)
}

// checkedCredentials marks credential failures as ConfigError, so a caller
// several SDK layers up can tell them from a failed request.
type checkedCredentials struct {
	aws.CredentialsProvider
	setting string
}

func (p checkedCredentials) Retrieve(ctx context.Context) (aws.Credentials, error) {
	c, err := p.CredentialsProvider.Retrieve(ctx)
	if err != nil {
		return c, &ConfigError{Setting: p.setting, Err: err}
	}
	return c, nil
}

// Verify loads the configuration and retrieves the credentials (assuming
// assume_role's role, the one AWS call it may make), so that a profile,
// region, credential or role problem is found once, before any resource
// asks AWS anything. It returns ErrUnknownConfig while settings are unknown.
func (c *Clients) Verify(ctx context.Context) error {
	cfg, err := c.load(ctx)
	if err != nil {
		return err
	}
	if cfg.Credentials == nil {
		return nil
	}
	_, err = cfg.Credentials.Retrieve(ctx)
	return err
}

// ProviderWide reports whether err stands for every request of the AWS
// configuration rather than one: an endpoint that does not answer, a
// configuration AWS refuses, rejected credentials.
func ProviderWide(err error) bool {
	var ee *EndpointError
	var ce *ConfigError
	_, rejected := CredentialsRejected(err)
	return errors.As(err, &ee) || errors.As(err, &ce) || rejected
}
