package differential

import (
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	kinstancetype "github.com/aws/karpenter-provider-aws/pkg/providers/instancetype"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype"
)

var updateTables = flag.Bool("update-tables", false, "rewrite internal/instancetype/karpenter_tables.txt from karpenter-provider-aws's generated tables")

const tablesPath = "../instancetype/karpenter_tables.txt"

// TestKarpenterTablesMatch: the per-type facts the provider embeds
// (branch ENIs and IPv4 addresses per ENI from Karpenter's VPC limits,
// network bandwidth from its bandwidth table) equal karpenter-provider-aws
// v1.14.1's generated tables, type for type, both ways. With
// -update-tables it writes the file instead.
func TestKarpenterTablesMatch(t *testing.T) {
	names := map[string]bool{}
	for n := range kinstancetype.Limits {
		names[n] = true
	}
	for n := range kinstancetype.InstanceTypeBandwidthMegabits {
		names[n] = true
	}
	if *updateTables {
		var b strings.Builder
		b.WriteString("# Per-type facts of karpenter-provider-aws v1.14.1's generated tables, one type a line:\n" +
			"# <type> <IPv4 addresses per ENI> <branch ENIs (0: not trunking compatible)> <network bandwidth, Mbps>\n" +
			"# (\"-\": the table has no entry). Written by internal/differential TestKarpenterTablesMatch -update-tables;\n" +
			"# that test holds it equal to the pinned module's tables.\n")
		for _, n := range slices.Sorted(maps.Keys(names)) {
			ipv4, branch, bw := "-", "-", "-"
			if l, ok := kinstancetype.Limits[n]; ok {
				ipv4, branch = fmt.Sprint(l.IPv4PerInterface), "0"
				if l.IsTrunkingCompatible {
					branch = fmt.Sprint(l.BranchInterface)
				}
			}
			if v, ok := kinstancetype.InstanceTypeBandwidthMegabits[n]; ok {
				bw = fmt.Sprint(v)
			}
			fmt.Fprintf(&b, "%s %s %s %s\n", n, ipv4, branch, bw)
		}
		if err := os.WriteFile(tablesPath, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Skip("rewrote " + tablesPath + "; rebuild and run again without -update-tables")
	}
	n := 0
	for name := range names {
		l, ok := kinstancetype.Limits[name]
		got, gotOK := instancetype.VPCLimitsOf(name)
		if ok != gotOK {
			t.Errorf("%s: VPC limits known %v, Karpenter %v", name, gotOK, ok)
		} else if ok {
			branch := 0
			if l.IsTrunkingCompatible {
				branch = l.BranchInterface
			}
			if got.IPv4PerENI != int64(l.IPv4PerInterface) || got.BranchENIs != int64(branch) {
				t.Errorf("%s: %+v, Karpenter IPv4 %d branch %d (trunking %v)", name, got, l.IPv4PerInterface, l.BranchInterface, l.IsTrunkingCompatible)
			}
		}
		bw, ok := kinstancetype.InstanceTypeBandwidthMegabits[name]
		gotBW, gotOK := instancetype.NetworkBandwidthMbps(name)
		if ok != gotOK || gotBW != bw {
			t.Errorf("%s: bandwidth %d (%v), Karpenter %d (%v)", name, gotBW, gotOK, bw, ok)
		}
		n++
	}
	if n < 1400 {
		t.Errorf("only %d types", n)
	}
	if _, ok := instancetype.VPCLimitsOf("no-such.type"); ok {
		t.Error("an unknown type has VPC limits")
	}
}
