package awsclient_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	. "github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
)

// ssmNames are 25 distinct parameter names of the fixtures, with their
// values, so every concurrent caller can check its own answer.
func ssmNames(t *testing.T) map[string]string {
	t.Helper()
	f, err := awsemu.DefaultFixtures()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range f.Parameters {
		if len(out) == 25 {
			break
		}
		out[*p.Name] = *p.Value
	}
	if len(out) != 25 {
		t.Fatalf("the fixtures have %d parameters, want 25", len(out))
	}
	return out
}

func withWindow(t *testing.T, d time.Duration) {
	old := SSMBatchWindow
	SSMBatchWindow = d
	t.Cleanup(func() { SSMBatchWindow = old })
}

// Callers that each ask for one name at about the same time (the classes of
// a plan) share calls of up to 10 names, and each gets its own answer.
func TestConcurrentCallersShareGetParametersBatches(t *testing.T) {
	withWindow(t, 300*time.Millisecond) // wide, so a slow machine still gathers all 25
	url, srv := awsemutest.Start(t)
	awsemutest.Setenv(t, url)
	c := NewCache(NewClients(Config{Region: "us-east-1", MaxRetries: 0}))
	names := ssmNames(t)
	var wg sync.WaitGroup
	errs := make(chan error, len(names))
	for name, want := range names {
		wg.Go(func() {
			got, err := c.GetParameters(context.Background(), []string{name})
			if err == nil && (!got[name].Found || got[name].Value != want) {
				err = fmt.Errorf("%s: got %+v, want %s", name, got[name], want)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if n := srv.Stats()["ssm:GetParameters"]; n != 3 {
		t.Errorf("%d GetParameters calls for 25 names asked concurrently, want 3 (10 + 10 + 5)", n)
	}
	// Asked again: answered from the cache.
	for name := range names {
		if _, err := c.GetParameters(context.Background(), []string{name}); err != nil {
			t.Fatal(err)
		}
	}
	if n := srv.Stats()["ssm:GetParameters"]; n != 3 {
		t.Errorf("%d calls after asking again, want still 3", n)
	}
}

// A caller that gives up does not take the answer away from the others
// waiting for the same batch; the call is cancelled only when all gave up.
func TestCancelledCallerLeavesTheBatchToTheOthers(t *testing.T) {
	withWindow(t, 50*time.Millisecond)
	url, srv := awsemutest.Start(t, awsemu.Options{Latency: 300 * time.Millisecond})
	awsemutest.Setenv(t, url)
	c := NewCache(NewClients(Config{Region: "us-east-1", MaxRetries: 0}))
	var name, want string
	for n, v := range ssmNames(t) {
		name, want = n, v
		break
	}

	ctx, cancel := context.WithCancel(context.Background())
	gaveUp := make(chan error, 1)
	go func() {
		_, err := c.GetParameters(ctx, []string{name})
		gaveUp <- err
	}()
	time.Sleep(10 * time.Millisecond) // inside the window: both join one batch
	stays := make(chan error, 1)
	go func() {
		got, err := c.GetParameters(context.Background(), []string{name})
		if err == nil && got[name].Value != want {
			err = fmt.Errorf("got %+v, want %s", got[name], want)
		}
		stays <- err
	}()
	time.Sleep(100 * time.Millisecond) // the call is in flight
	cancel()
	if err := <-gaveUp; !errors.Is(err, context.Canceled) {
		t.Errorf("the caller that gave up: %v, want context.Canceled", err)
	}
	if err := <-stays; err != nil {
		t.Errorf("the caller that waited: %v", err)
	}
	if n := srv.Stats()["ssm:GetParameters"]; n != 1 {
		t.Errorf("%d calls, want 1 shared by both callers", n)
	}

	// Alone, a caller that gives up cancels the call: it returns promptly.
	other := ""
	for n := range ssmNames(t) {
		if n != name {
			other = n
			break
		}
	}
	ctx, cancel = context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := c.GetParameters(ctx, []string{other}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want the deadline", err)
	}
	if took := time.Since(start); took > 250*time.Millisecond {
		t.Errorf("returned after %s, want about 100 ms", took)
	}
	// A cancellation is not remembered: the next caller gets the answer.
	if got, err := c.GetParameters(context.Background(), []string{other}); err != nil || !got[other].Found {
		t.Errorf("after a cancelled call: %+v %v", got, err)
	}
}
