package provider

import (
	"os"
	"strings"
	"testing"
)

// unsetTFLog removes every TF_LOG* variable for the rest of the test.
func unsetTFLog(t *testing.T) {
	t.Helper()
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "TF_LOG") {
			t.Setenv(k, "") // restored after the test
			if err := os.Unsetenv(k); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, k := range sdkLogLevels {
		t.Setenv(k, "")
		if err := os.Unsetenv(k); err != nil {
			t.Fatal(err)
		}
	}
}

func TestQuietUnreadSDKLogs(t *testing.T) {
	t.Run("nobody reads the logs", func(t *testing.T) {
		unsetTFLog(t)
		if !QuietUnreadSDKLogs() {
			t.Fatal("want the SDK loggers turned off")
		}
		for _, k := range sdkLogLevels {
			if os.Getenv(k) != "OFF" {
				t.Errorf("%s = %q, want OFF", k, os.Getenv(k))
			}
		}
	})
	for _, k := range []string{"TF_LOG", "TF_LOG_PROVIDER", "TF_LOG_PROVIDER_KARPENTER", "TF_LOG_PATH", "TF_LOG_SDK_FRAMEWORK"} {
		t.Run(k, func(t *testing.T) {
			unsetTFLog(t)
			t.Setenv(k, "TRACE")
			if QuietUnreadSDKLogs() {
				t.Fatalf("with %s set, logging must stay as the SDK sets it up", k)
			}
			for _, l := range sdkLogLevels {
				if l != k && os.Getenv(l) != "" {
					t.Errorf("%s = %q, want unset", l, os.Getenv(l))
				}
			}
		})
	}
}
