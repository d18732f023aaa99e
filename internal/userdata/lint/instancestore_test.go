package lint

import (
	"slices"
	"testing"
)

// DiskAssembly finds the commands that assemble or format the
// instance-store disks (what Karpenter's RAID0 already does), in a plain
// script and in a MIME part, and nothing in a script that leaves them alone
// or formats an EBS volume.
func TestDiskAssembly(t *testing.T) {
	mime := "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"B\"\n\n--B\nContent-Type: text/x-shellscript\n\n" +
		"#!/bin/bash\nmdadm --create /dev/md0 --level=0 --raid-devices=2 /dev/nvme1n1 /dev/nvme2n1\n--B--\n"
	for _, c := range []struct {
		name, ud string
		want     []string
	}{
		{"mdadm create", "#!/bin/bash\nmdadm --create /dev/md0 --level=0 --raid-devices=2 /dev/nvme1n1 /dev/nvme2n1\n",
			[]string{"line 2: mdadm --create /dev/md0 --level=0 --raid-devices=2 /dev/nvme1n1 /dev/nvme2n1"}},
		{"mkfs of instance store", "#!/bin/bash\ndisks=$(ls /dev/disk/by-id/*Instance_Storage*)\nmkfs.xfs /dev/md0\n",
			[]string{"line 3: mkfs.xfs /dev/md0"}},
		{"in a MIME part", mime, []string{"line 2: mdadm --create /dev/md0 --level=0 --raid-devices=2 /dev/nvme1n1 /dev/nvme2n1"}},
		{"mdadm detail only", "#!/bin/bash\nmdadm --detail /dev/md0\n", nil},
		{"mkfs of an EBS volume", "#!/bin/bash\nmkfs.ext4 /dev/xvdb\n", nil},
	} {
		if got := DiskAssembly(c.ud); !slices.Equal(got, c.want) {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}
