package provider

import (
	"os"
	"strings"
)

// sdkLogLevels are the terraform-plugin-log variables of the SDK loggers
// (terraform-plugin-go's protocol logger and the framework's).
var sdkLogLevels = []string{"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK"}

// QuietUnreadSDKLogs turns the SDK loggers off when no TF_LOG* variable is
// set. terraform-plugin-log defaults them to TRACE when no level is set, so
// the plugin formats a JSON line on stderr for every RPC, attribute,
// validator and plan modifier, and Terraform parses each one, only to
// discard it: Terraform shows plugin logs only with TF_LOG or TF_LOG_PROVIDER
// (TF_LOG_PATH needs TF_LOG too), and the plugin sees the same environment.
// That work was a fifth of the provider's CPU time in a 120-resource plan
// (BENCHMARKS.md). Any TF_LOG* variable, TF_LOG_SDK* included, leaves
// logging exactly as the SDK sets it up. It returns whether it changed
// anything; call it once, before serving.
func QuietUnreadSDKLogs() bool {
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "TF_LOG") {
			return false
		}
	}
	for _, k := range sdkLogLevels {
		if err := os.Setenv(k, "OFF"); err != nil {
			return false
		}
	}
	return true
}
