package nodeclass

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// volumeSizeRE is the CRD's pattern on blockDeviceMappings[].ebs.volumeSize.
var volumeSizeRE = regexp.MustCompile(`^((?:[1-9][0-9]{0,3}|[1-4][0-9]{4}|[5][0-8][0-9]{3}|59000)Gi|(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|[6][0-3][0-9]{3}|64000)G|([1-9]||[1-5][0-7]|58)Ti|([1-9]||[1-5][0-9]|6[0-3]|64)T)$`)

var volumeTypes = []string{"standard", "io1", "io2", "gp2", "sc1", "st1", "gp3"}

// VolumeGiB is the size Karpenter asks EC2 for: the quantity in GiB, rounded
// up (launchtemplate.go volumeSize), so "200G" is 187.
func VolumeGiB(size string) (int64, bool) {
	q, err := resource.ParseQuantity(size)
	if err != nil {
		return 0, false
	}
	return int64(math.Ceil(q.AsApproximateFloat64() / math.Pow(2, 30))), true
}

func validateBlockDevices(c Class) rules.Findings {
	u := c.Unknown
	if u.Is(pathBlockDevices) {
		return nil
	}
	var fs rules.Findings
	bdms := c.Spec.BlockDeviceMappings
	if len(bdms) > 50 {
		fs = append(fs, rules.New(ruleBlockDeviceRoot, pathBlockDevices, "%d block device mappings; the CRD allows at most 50.", len(bdms)))
	}
	var roots []int
	for i, m := range bdms {
		p := pathBlockDevices.Index(i)
		if m.RootVolume && !u.Is(p.Attr("root_volume")) {
			roots = append(roots, i)
		}
		if m.EBS == nil || u.Is(p.Attr("ebs")) {
			continue
		}
		e, ep := m.EBS, p.Attr("ebs")
		sizeKnown, snapKnown := !u.Is(ep.Attr("volume_size")), !u.Is(ep.Attr("snapshot_id"))
		if sizeKnown && snapKnown && e.VolumeSize == "" && e.SnapshotID == "" {
			fs = append(fs, rules.New(ruleBlockDeviceEBS, ep,
				"the EBS volume of %s has neither volumeSize nor snapshotID; the API server rejects it (\"snapshotID or volumeSize must be defined\"). Set volumeSize, e.g. \"50Gi\".", deviceName(m.DeviceName)))
		}
		if e.VolumeSize != "" && sizeKnown {
			switch {
			case !volumeSizeRE.MatchString(e.VolumeSize):
				fs = append(fs, rules.New(ruleBlockDeviceEBS, ep.Attr("volume_size"),
					"%q does not match the CRD's volumeSize pattern: a whole number of Gi (1-59000), G (1-64000), Ti (1-58) or T (1-64), e.g. \"100Gi\". The API server rejects it.", e.VolumeSize))
			case strings.HasSuffix(e.VolumeSize, "G") || strings.HasSuffix(e.VolumeSize, "T"):
				gib, _ := VolumeGiB(e.VolumeSize)
				q := resource.MustParse(e.VolumeSize)
				fs = append(fs, rules.New(ruleVolumeDecimal, ep.Attr("volume_size"),
					"%q is %s bytes = %.2f GiB (G and T are powers of ten); Karpenter rounds up and requests a %d GiB volume. Write %q for %s GiB.",
					e.VolumeSize, q.String(), q.AsApproximateFloat64()/math.Pow(2, 30), gib, strings.TrimSuffix(strings.TrimSuffix(e.VolumeSize, "G"), "T")+map[bool]string{true: "Gi", false: "Ti"}[strings.HasSuffix(e.VolumeSize, "G")], strings.TrimRight(e.VolumeSize, "GT")))
			}
		}
		vt := e.VolumeType
		if vt != "" && !u.Is(ep.Attr("volume_type")) {
			if !slices.Contains(volumeTypes, vt) {
				fs = append(fs, rules.New(ruleBlockDeviceEBS, ep.Attr("volume_type"),
					"%q is not an EBS volume type; the CRD accepts %s.", vt, strings.Join(volumeTypes, ", ")))
				continue
			}
		}
		if vt == "" {
			vt = "gp3" // Karpenter's DefaultEBS volume type.
		}
		if e.IOPS != nil && !u.Is(ep.Attr("iops")) && vt != "io1" && vt != "io2" && vt != "gp3" {
			fs = append(fs, rules.New(ruleBlockDeviceEBS, ep.Attr("iops"),
				"iops %d on a %s volume: EC2 accepts iops only for io1, io2 and gp3 volumes and rejects the launch template's volume. Remove iops, or make the volume gp3.", *e.IOPS, vt).
				WithFix(rules.Fix{Field: ep.Attr("volume_type"), Value: `"gp3"`}))
		}
		if e.Throughput != nil && !u.Is(ep.Attr("throughput")) && vt != "gp3" {
			fs = append(fs, rules.New(ruleBlockDeviceEBS, ep.Attr("throughput"),
				"throughput %d on a %s volume: EC2 accepts throughput only for gp3 volumes. Remove it, or make the volume gp3.", *e.Throughput, vt).
				WithFix(rules.Fix{Field: ep.Attr("volume_type"), Value: `"gp3"`}))
		}
	}
	if len(roots) > 1 {
		fs = append(fs, rules.New(ruleBlockDeviceRoot, pathBlockDevices.Index(roots[1]).Attr("root_volume"),
			"blockDeviceMappings %v all set rootVolume; the API server rejects it (\"must have only one blockDeviceMappings with rootVolume\"). Keep rootVolume true on the device of the image's root volume only, and remove it from the others.", roots))
	}
	return fs
}

func deviceName(n string) string {
	if n == "" {
		return "the mapping"
	}
	return fmt.Sprintf("%q", n)
}

// defaultMappings are the block device mappings Karpenter uses when the
// class sets none (A:pkg/providers/amifamily/*.go DefaultBlockDeviceMappings;
// Custom uses the image's own mappings).
func defaultMappings(f amifamily.Family) []mapping {
	var out []mapping
	for _, d := range f.Model().DefaultBlockDevices() {
		out = append(out, mapping{device: d.Device, gib: d.GiB})
	}
	return out
}

// mapping is one effective block device mapping: its size in GiB as
// Karpenter requests it, and where it was configured (index -1: Karpenter's
// default for the family).
type mapping struct {
	device string
	gib    int64
	index  int
}

// snapshotFindings reports block devices smaller than the snapshot of the
// same device in any image the class can launch: EC2 refuses the launch
// (InvalidBlockDeviceMapping, #7928).
func snapshotFindings(c Class, f amifamily.Family, res ami.Result) rules.Findings {
	var maps []mapping
	if len(c.Spec.BlockDeviceMappings) > 0 {
		for i, m := range c.Spec.BlockDeviceMappings {
			if m.EBS == nil || m.EBS.VolumeSize == "" {
				continue
			}
			if gib, ok := VolumeGiB(m.EBS.VolumeSize); ok {
				maps = append(maps, mapping{device: m.DeviceName, gib: gib, index: i})
			}
		}
	} else {
		for _, m := range defaultMappings(f) {
			m.index = -1
			maps = append(maps, m)
		}
	}
	var fs rules.Findings
	reported := map[string]bool{}
	for _, a := range res.AMIs {
		for _, bd := range a.Image.BlockDevices {
			if bd.SnapshotID == "" || bd.VolumeSizeGiB == 0 {
				continue
			}
			for _, m := range maps {
				if m.device != bd.DeviceName || m.gib >= int64(bd.VolumeSizeGiB) {
					continue
				}
				key := fmt.Sprintf("%d/%s", m.index, a.ID)
				if reported[key] {
					continue
				}
				reported[key] = true
				ec2Err := fmt.Sprintf("InvalidBlockDeviceMapping: Volume of size %dGB is smaller than snapshot '%s', expect size >= %dGB", m.gib, bd.SnapshotID, bd.VolumeSizeGiB)
				if m.index < 0 {
					bdm := pathBlockDevices.Index(0)
					fs = append(fs, rules.New(ruleSnapshot, pathBlockDevices,
						"no blockDeviceMappings are set, so Karpenter uses the %s default of %d GiB for %s, but image %s (%s) has a %d GiB snapshot there: EC2 refuses every launch (%q). Add a mapping of %s as the root volume, with an encrypted gp3 EBS volume of at least %d GiB.",
						f, m.gib, m.device, a.ID, a.Name, bd.VolumeSizeGiB, ec2Err, m.device, bd.VolumeSizeGiB).
						WithFix(rules.Fix{Field: bdm.Attr("device_name"), Value: strconv.Quote(m.device), And: []rules.Fix{
							{Field: bdm.Attr("root_volume"), Value: "true"},
							{Field: bdm.Attr("ebs").Attr("volume_size"), Value: fmt.Sprintf(`"%dGi"`, bd.VolumeSizeGiB)},
							{Field: bdm.Attr("ebs").Attr("volume_type"), Value: `"gp3"`},
							{Field: bdm.Attr("ebs").Attr("encrypted"), Value: "true"},
						}}))
					continue
				}
				fs = append(fs, rules.New(ruleSnapshot, pathBlockDevices.Index(m.index).Attr("ebs").Attr("volume_size"),
					"%s is %d GiB, but image %s (%s) has a %d GiB snapshot on that device: EC2 refuses every launch on it (%q). Use at least \"%dGi\".",
					m.device, m.gib, a.ID, a.Name, bd.VolumeSizeGiB, ec2Err, bd.VolumeSizeGiB))
			}
		}
	}
	return fs
}

// The rules the checks of this file emit.
var (
	ruleBlockDeviceRoot = rules.Register(rules.Rule{
		ID: "block-device-root-volume-multiple", Severity: rules.Error, Category: category,
		Title:     "at most one block device mapping may be the root volume",
		Behaviour: "CRD rule: \"must have only one blockDeviceMappings with rootVolume\" (and at most 50 mappings).",
		Source:    "A:pkg/apis/v1/ec2nodeclass.go BlockDeviceMapping",
		Bad:       rules.Body(rules.Block("block_device_mappings", `device_name = "/dev/xvda"`, `root_volume = true`, `ebs { volume_size = "50Gi" }`), rules.Block("block_device_mappings", `device_name = "/dev/xvdb"`, `root_volume = true`, `ebs { volume_size = "50Gi" }`)),
		Good:      rules.Body(rules.Block("block_device_mappings", `device_name = "/dev/xvda"`, `root_volume = true`, `ebs { volume_size = "50Gi" }`), rules.Block("block_device_mappings", `device_name = "/dev/xvdb"`, `ebs { volume_size = "50Gi" }`)),
	})
	ruleBlockDeviceEBS = rules.Register(rules.Rule{
		ID: "block-device-ebs-invalid", Severity: rules.Error, Category: category,
		Title:     "an EBS volume needs a valid size or a snapshot, and settings its type supports",
		Behaviour: "CRD rules: \"snapshotID or volumeSize must be defined\", volumeSize must match the CRD's Gi/G/Ti/T pattern (up to 64 TiB), volumeType must be standard, io1, io2, gp2, sc1, st1 or gp3. EC2 rejects iops on anything but io1/io2/gp3 and throughput on anything but gp3 when the launch template is used.",
		Source:    "A:pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml (blockDeviceMappings[].ebs); EC2 CreateLaunchTemplate EBS parameters",
		Bad:       rules.Block("block_device_mappings", `device_name = "/dev/xvda"`, rules.Block("ebs", `volume_size = "20GB"`, `volume_type = "gp2"`, `iops = 3000`)),
		Good:      rules.Block("block_device_mappings", `device_name = "/dev/xvda"`, rules.Block("ebs", `volume_size = "20Gi"`, `volume_type = "gp3"`, `iops = 3000`)),
	})
	ruleVolumeDecimal = rules.Register(rules.Rule{
		ID: "block-device-size-decimal-units", Severity: rules.Warning, Category: category,
		Title:     "a volume size in G or T is smaller than it reads",
		Behaviour: "`G` and `T` are powers of ten; Karpenter converts the size to GiB rounding up (launchtemplate.go volumeSize), so \"200G\" becomes a 187 GiB volume, not 200.",
		Source:    "A:pkg/providers/launchtemplate/launchtemplate.go volumeSize",
		Bad:       rules.Block("block_device_mappings", `device_name = "/dev/xvda"`, `ebs { volume_size = "200G" }`),
		Good:      rules.Block("block_device_mappings", `device_name = "/dev/xvda"`, `ebs { volume_size = "200Gi" }`),
	})
	ruleSnapshot = rules.Register(rules.Rule{
		ID: "block-device-smaller-than-snapshot", Severity: rules.Error, Category: category,
		Title:     "a block device is smaller than the image's snapshot",
		Behaviour: "EC2 refuses to launch when a launch template volume is smaller than the snapshot of the image's device (InvalidBlockDeviceMapping: \"Volume of size N GB is smaller than snapshot\"). Karpenter's default mappings (20 GiB root for AL2/AL2023, 4 GiB /dev/xvda for Bottlerocket, 50 GiB for Windows) are too small for larger custom images, and the NVIDIA Bottlerocket OS volume is larger than the standard one (#7928).",
		Source:    "A #7928; A:pkg/providers/amifamily/{al2023,bottlerocket,windows}.go DefaultBlockDeviceMappings",
		Bad:       rules.Body("# the custom image has a 30 GiB root snapshot; Karpenter's AL2023 default is 20 GiB", `ami_family = "AL2023"`, `ami_selector_terms { name = "team-eks-node-al2023-*" }`),
		Good:      rules.Body(`ami_family = "AL2023"`, `ami_selector_terms { name = "team-eks-node-al2023-*" }`, rules.Block("block_device_mappings", `device_name = "/dev/xvda"`, `root_volume = true`, rules.Block("ebs", `volume_size = "30Gi"`, `volume_type = "gp3"`))),
	})
)
