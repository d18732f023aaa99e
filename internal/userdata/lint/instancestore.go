package lint

import (
	"fmt"
	"path"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata/shell"
)

// instanceStoreMarkers are the words by which scripts find the
// instance-store disks (their by-id names, nvme list's model, the md device
// the EKS images' setup-local-disks also creates).
var instanceStoreMarkers = []string{"Instance_Storage", "Instance Storage", "/dev/nvme", "/dev/md"}

// DiskAssembly lists the commands of the userData's shell scripts (the
// whole script, or its text/x-shellscript MIME parts) that assemble or
// format the instance-store disks: `mdadm --create` (or --build), and
// mkfs of a device the script finds as instance store. Each entry reads
// "line N: command".
func DiskAssembly(ud string) []string {
	var out []string
	for _, script := range shellScripts(ud) {
		s := script.body
		f, err := shell.Parse(s)
		if err != nil {
			continue
		}
		marked := false
		for _, m := range instanceStoreMarkers {
			marked = marked || strings.Contains(s, m)
		}
		for _, c := range shell.Calls(f) {
			name := path.Base(c.Args[0].Value)
			var words []string
			for _, a := range c.Args {
				words = append(words, a.Value)
			}
			cmd := strings.Join(words, " ")
			switch {
			case name == "mdadm" && hasAny(words[1:], "--create", "-C", "--build", "-B"),
				strings.HasPrefix(name, "mkfs") && marked:
				out = append(out, fmt.Sprintf("line %d: %s", c.Call.Pos().Line(), shorten(cmd, 80)))
			}
		}
	}
	return out
}

func hasAny(words []string, opts ...string) bool {
	for _, w := range words {
		for _, o := range opts {
			if w == o {
				return true
			}
		}
	}
	return false
}
