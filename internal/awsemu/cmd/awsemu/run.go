package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
)

// Run parses args, starts the emulator, writes "listening on http://ADDR"
// (the bound address, so port 0 works) as the first line of stdout and
// serves until ctx ends.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("awsemu", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		fixtures = fs.String("fixtures", "", "directory of AWS CLI output files (images.json, instance-types.json, parameters.json, parameter-history.json, clusters.json, subnets.json, security-groups.json, instance-type-offerings.json, capacity-reservations.json, roles.json, instance-profiles.json, pricing-products.json, spot-price-history.json; without subnets.json DescribeSubnets is not served, without the last two neither pricing:GetProducts nor DescribeSpotPriceHistory); default: the embedded fixture set")
		prices   = fs.Bool("pricing", false, "add the embedded prices of the fixture catalogue (pricing:GetProducts and DescribeSpotPriceHistory), which the default fixture set does not serve")
		listen   = fs.String("listen", "127.0.0.1:4566", "loopback `address` to listen on (port 0 picks a free port)")
		throttle = fs.Float64("throttle-rate", 0, "fraction (0..1) of API requests answered with a throttling error")
		latency  = fs.Duration("latency", 0, "delay added before every API answer")
		seed     = fs.Int64("seed", 1, "seed of the throttling decisions")
		deny     = fs.String("deny", "", "comma-separated IAM `actions` answered with the service's access-denied error, e.g. iam:GetRole,ec2:DescribeSubnets (`*` matches any run of characters: ec2:Describe*; a bare action matches every service)")
	)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	if *throttle < 0 || *throttle > 1 {
		return fmt.Errorf("-throttle-rate %v: want a fraction between 0 and 1", *throttle)
	}
	if err := checkLoopback(*listen); err != nil {
		return err
	}
	denied, err := awsemu.ParseDeny(*deny)
	if err != nil {
		return err
	}

	var f *awsemu.Fixtures
	if *fixtures == "" {
		f, err = awsemu.DefaultFixtures()
	} else {
		f, err = awsemu.LoadFixtures(*fixtures)
	}
	if err != nil {
		return err
	}
	if *prices {
		if err := f.AddPricing(); err != nil {
			return err
		}
	}

	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           awsemu.New(f, awsemu.Options{ThrottleRate: *throttle, Latency: *latency, Seed: *seed, Deny: denied}),
		ReadHeaderTimeout: 10 * time.Second,
	}
	if _, err := fmt.Fprintf(stdout, "listening on http://%s\n", ln.Addr()); err != nil {
		_ = ln.Close() // the write error is the one worth reporting
		return err
	}
	// A lost stderr line is only a log line: serving matters more.
	_, _ = fmt.Fprintf(stderr, "awsemu: %d images, %d instance types, %d parameters, %d clusters\n",
		len(f.Images), len(f.InstanceTypes), len(f.Parameters), len(f.Clusters))
	if len(denied) > 0 {
		_, _ = fmt.Fprintf(stderr, "awsemu: denying %s\n", strings.Join(denied, ", "))
	}

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return err
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// checkLoopback refuses addresses that would expose the emulator beyond this
// machine: it answers anyone without checking signatures.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("-listen %q: %v", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("-listen %q: the emulator binds to loopback only (use 127.0.0.1, ::1 or localhost)", addr)
}
