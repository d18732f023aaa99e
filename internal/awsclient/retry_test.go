package awsclient

import (
	"context"
	"testing"
	"time"

	"github.com/aws/smithy-go"
)

// A client's retryer keeps the configured attempts and mode and never waits
// more than MaxBackoff before a retry, whatever the attempt.
func TestRetryerCapsBackoff(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	throttle := &smithy.GenericAPIError{Code: "ThrottlingException", Message: "Rate exceeded"}
	for _, tc := range []struct {
		mode    string
		retries int
	}{{"", -1}, {"standard", 3}, {"adaptive", 25}} {
		t.Run(tc.mode, func(t *testing.T) {
			c := NewClients(Config{Region: "us-east-1", MaxRetries: tc.retries, RetryMode: tc.mode})
			// The client applies max_retries and retry_mode on top of the
			// configuration's retryer.
			client, err := c.ssmClient(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			r := client.Options().Retryer
			want := tc.retries + 1
			if tc.retries < 0 {
				want = DefaultMaxRetries + 1
			}
			if got := r.MaxAttempts(); got != want {
				t.Errorf("MaxAttempts %d, want %d", got, want)
			}
			if !r.IsErrorRetryable(throttle) {
				t.Error("throttling must be retried")
			}
			var total time.Duration
			for attempt := 1; attempt <= want; attempt++ {
				for range 20 { // the delay is random below the cap
					d, err := r.RetryDelay(attempt, throttle)
					if err != nil || d > MaxBackoff {
						t.Fatalf("attempt %d: delay %s, %v; want at most %s", attempt, d, err, MaxBackoff)
					}
				}
				total += min(MaxBackoff, time.Duration(1<<attempt)*time.Second)
			}
			if tc.retries < 0 && total > 2*time.Minute+10*time.Second {
				t.Errorf("the default retries may wait %s", total)
			}
		})
	}
}
