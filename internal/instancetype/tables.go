package instancetype

import (
	"bufio"
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// Per-type facts that DescribeInstanceTypes does not report and Karpenter
// takes from tables generated into its source
// (aws/karpenter-provider-aws v1.14.1 pkg/providers/instancetype
// zz_generated.vpclimits.go and zz_generated.bandwidth.go): the branch
// ENIs of security groups for pods (vpc.amazonaws.com/pod-eni), the IPv4
// addresses per ENI Windows' vpc.amazonaws.com/PrivateIPv4Address is
// counted from, and the network bandwidth label. internal/differential
// holds the file equal to the pinned module's tables.
//
//go:embed karpenter_tables.txt
var karpenterTables string

// VPCLimits are a type's entry in Karpenter's VPC limits table.
type VPCLimits struct {
	// IPv4PerENI is IPv4PerInterface.
	IPv4PerENI int64
	// BranchENIs is BranchInterface for trunking-compatible types, else 0.
	BranchENIs int64
}

type tableEntry struct {
	limits       VPCLimits
	hasLimits    bool
	bandwidth    int64
	hasBandwidth bool
}

var tables = sync.OnceValue(func() map[string]tableEntry {
	m, err := parseTables(karpenterTables)
	if err != nil {
		panic(err) // the embedded file is part of the build; tests cover it
	}
	return m
})

func parseTables(text string) (map[string]tableEntry, error) {
	out := map[string]tableEntry{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for line := 1; sc.Scan(); line++ {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if len(f) != 4 {
			return nil, fmt.Errorf("karpenter_tables.txt:%d: want 4 fields, got %d", line, len(f))
		}
		var e tableEntry
		num := func(s string) (int64, bool, error) {
			if s == "-" {
				return 0, false, nil
			}
			n, err := strconv.ParseInt(s, 10, 64)
			return n, err == nil, err
		}
		var errs [3]error
		var hasBranch bool
		e.limits.IPv4PerENI, e.hasLimits, errs[0] = num(f[1])
		e.limits.BranchENIs, hasBranch, errs[1] = num(f[2])
		e.bandwidth, e.hasBandwidth, errs[2] = num(f[3])
		for _, err := range errs {
			if err != nil {
				return nil, fmt.Errorf("karpenter_tables.txt:%d: %w", line, err)
			}
		}
		if hasBranch != e.hasLimits {
			return nil, fmt.Errorf("karpenter_tables.txt:%d: IPv4 per ENI and branch ENIs come from one table; give both or neither", line)
		}
		out[f[0]] = e
	}
	return out, sc.Err()
}

// VPCLimitsOf returns a type's VPC limits; false when Karpenter's table has
// no entry (Karpenter then counts 0 branch ENIs and 0 private IPv4
// addresses).
func VPCLimitsOf(name string) (VPCLimits, bool) {
	e := tables()[name]
	return e.limits, e.hasLimits
}

// NetworkBandwidthMbps is the instance-network-bandwidth label value of a
// type; false when Karpenter's table has none (the label is then absent).
func NetworkBandwidthMbps(name string) (int64, bool) {
	e := tables()[name]
	return e.bandwidth, e.hasBandwidth
}
