package awsclient

import (
	"context"
	"io"

	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// AvoidBodyRace is an API option that rules out a race between aws-sdk-go-v2
// (smithy-go v1.28.8) and Go 1.26's net/http: the SDK closes the request
// body as soon as the response headers arrive; if net/http's writer is
// still probing the body through WriteTo, it reads io.EOF as a write error
// and drops the connection under the response. The call then fails with
// "deserialization failed ... use of closed network connection" (a retry
// usually hides it, at the cost of a second request). Fast endpoints make it
// likely: the test emulator on loopback, VPC endpoints in the same AZ.
// Hiding WriteTo makes net/http read the body with Read, which reports a
// closed body as a plain EOF.
func AvoidBodyRace(stack *middleware.Stack) error {
	const id = "KarpenterAvoidBodyRace"
	if _, ok := stack.Finalize.Get(id); ok {
		return nil
	}
	return stack.Finalize.Add(middleware.FinalizeMiddlewareFunc(id, func(
		ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler,
	) (middleware.FinalizeOutput, middleware.Metadata, error) {
		if req, ok := in.Request.(*smithyhttp.Request); ok {
			if rs, ok := req.GetStream().(io.ReadSeeker); ok {
				if _, done := rs.(readSeekerOnly); !done {
					clone, err := req.SetStream(readSeekerOnly{rs})
					if err != nil {
						return middleware.FinalizeOutput{}, middleware.Metadata{}, err
					}
					in.Request = clone
				}
			}
		}
		return next.HandleFinalize(ctx, in)
	}), middleware.After)
}

// readSeekerOnly hides every method of the stream but Read and Seek (the
// SDK seeks to measure and rewind it).
type readSeekerOnly struct{ io.ReadSeeker }
