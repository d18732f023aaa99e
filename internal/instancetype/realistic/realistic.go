// Package realistic builds a region-sized instance-type catalogue for the
// emulator from the research data beside the project (../shared/data
// instance-types.csv: about 1,360 types, so 14 pages of
// ec2:DescribeInstanceTypes at EC2's 100 per page), for tests and
// benchmarks that count requests or measure a plan against a catalogue of
// the size AWS serves. It is test support: nothing in the provider imports
// it.
package realistic

import (
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
)

// EnvDir overrides where the research data is looked for.
const EnvDir = "AWSEMU_SHARED_DATA"

// ErrNoData means the research data is not beside the project checkout.
var ErrNoData = errors.New("../shared/data/instance-types.csv not found (it sits beside the project checkout; " + EnvDir + " overrides)")

// Dir finds the directory holding instance-types.csv: $AWSEMU_SHARED_DATA,
// or shared/data in the working directory or any parent.
func Dir() (string, error) {
	if d := os.Getenv(EnvDir); d != "" {
		return d, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		candidate := filepath.Join(dir, "shared", "data")
		if _, err := os.Stat(filepath.Join(candidate, "instance-types.csv")); err == nil {
			return candidate, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", ErrNoData
		}
		dir = parent
	}
}

// InstanceTypes reads dir/instance-types.csv into DescribeInstanceTypes
// records. The facts the CSV has (name, architecture, vCPUs, memory, GPUs,
// accelerators, hypervisor, bare metal) are the row's; the rest (network,
// EBS, storage, usage classes) is copied from a template type of the
// emulator's fixtures, so each record has the size of a real answer.
func InstanceTypes(dir string) ([]ec2types.InstanceTypeInfo, error) {
	f, err := os.Open(filepath.Join(dir, "instance-types.csv"))
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read-only: a close error changes nothing read
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("instance-types.csv: %w", err)
	}
	if len(rows) < 2 {
		return nil, errors.New("instance-types.csv: no rows")
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, h := range []string{"instance_type", "arch", "vcpu", "memory_mib", "gpu_count", "gpu_manufacturer", "gpu_name", "hypervisor", "bare_metal"} {
		if _, ok := col[h]; !ok {
			return nil, fmt.Errorf("instance-types.csv: no column %q", h)
		}
	}
	def, err := awsemu.DefaultFixtures()
	if err != nil {
		return nil, err
	}
	var tmpl *ec2types.InstanceTypeInfo
	for i := range def.InstanceTypes {
		if def.InstanceTypes[i].InstanceType == "m5.large" {
			tmpl = &def.InstanceTypes[i]
		}
	}
	if tmpl == nil {
		return nil, errors.New("the emulator's fixtures lack m5.large, the template type")
	}
	out := make([]ec2types.InstanceTypeInfo, 0, len(rows)-1)
	for n, r := range rows[1:] {
		get := func(h string) string { return r[col[h]] }
		vcpu, err1 := strconv.ParseInt(get("vcpu"), 10, 32)
		mem, err2 := strconv.ParseInt(get("memory_mib"), 10, 64)
		gpus, err3 := strconv.ParseInt(get("gpu_count"), 10, 32)
		if err := errors.Join(err1, err2, err3); err != nil {
			return nil, fmt.Errorf("instance-types.csv:%d: %w", n+2, err)
		}
		it := *tmpl
		it.InstanceType = ec2types.InstanceType(get("instance_type"))
		arch := ec2types.ArchitectureTypeX8664
		if get("arch") == "arm64" {
			arch = ec2types.ArchitectureTypeArm64
		}
		proc := *tmpl.ProcessorInfo
		proc.SupportedArchitectures = []ec2types.ArchitectureType{arch}
		it.ProcessorInfo = &proc
		it.VCpuInfo = &ec2types.VCpuInfo{DefaultVCpus: aws.Int32(int32(vcpu))}
		it.MemoryInfo = &ec2types.MemoryInfo{SizeInMiB: aws.Int64(mem)}
		it.BareMetal = aws.Bool(get("bare_metal") == "true")
		switch h := get("hypervisor"); h {
		case "none", "":
			it.Hypervisor = ""
		default:
			it.Hypervisor = ec2types.InstanceTypeHypervisor(h)
		}
		it.GpuInfo = nil
		if gpus > 0 {
			it.GpuInfo = &ec2types.GpuInfo{Gpus: []ec2types.GpuDeviceInfo{{
				Count: aws.Int32(int32(gpus)), Manufacturer: aws.String(titleCase(get("gpu_manufacturer"))), Name: aws.String(get("gpu_name")),
				MemoryInfo: &ec2types.GpuDeviceMemoryInfo{SizeInMiB: aws.Int32(16384)},
			}}}
		}
		out = append(out, it)
	}
	return out, nil
}

// titleCase is EC2's spelling of a manufacturer ("NVIDIA" stays, "amd" is
// "AMD"): the CSV has Karpenter's lower-case label values.
func titleCase(s string) string {
	switch strings.ToLower(s) {
	case "nvidia":
		return "NVIDIA"
	case "amd":
		return "AMD"
	}
	return s
}

// Fixtures is the emulator's default fixture set with its instance types
// replaced by the catalogue of dir.
func Fixtures(dir string) (*awsemu.Fixtures, error) {
	its, err := InstanceTypes(dir)
	if err != nil {
		return nil, err
	}
	f, err := awsemu.DefaultFixtures()
	if err != nil {
		return nil, err
	}
	f.InstanceTypes = nil
	f.AddInstanceTypes(its...)
	return f, nil
}
