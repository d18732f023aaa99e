package awsemu

import (
	"bytes"
	"net/url"
	"strconv"
	"strings"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/internal/shape"
)

// DescribeInstanceTypes: InstanceType.N (an unknown name is
// InvalidInstanceType, as in AWS), Filter.N (see instanceTypeFilters),
// MaxResults 5..100 with a default page of 100, NextToken.
func (s *Server) describeInstanceTypes(form url.Values) (func(*bytes.Buffer), *apiError) {
	pr, err := parsePageRequest(form, 5, 100)
	if err != nil {
		return nil, err
	}
	filters, err := parseFilters(form)
	if err != nil {
		return nil, err
	}
	for _, f := range filters {
		if instanceTypeFilters[f.name] == nil {
			return nil, badRequest("InvalidParameterValue", "The filter '"+f.name+"' is invalid")
		}
	}
	names := indexedValues(form, "InstanceType")
	wanted := map[string]bool{}
	var unknown []string
	for _, n := range names {
		if _, ok := s.typeIndex[n]; !ok {
			unknown = append(unknown, n)
		}
		wanted[n] = true
	}
	if len(unknown) > 0 {
		return nil, badRequest("InvalidInstanceType",
			"The following supplied instance types do not exist: ["+strings.Join(unknown, ", ")+"]")
	}

	matched := make([]ec2types.InstanceTypeInfo, 0)
	for i := range s.instanceTypes {
		it := &s.instanceTypes[i]
		if len(names) > 0 && !wanted[string(it.InstanceType)] {
			continue
		}
		if instanceTypeMatches(it, filters) {
			matched = append(matched, *it)
		}
	}
	start, end, next, err := pr.page(len(matched), 100)
	if err != nil {
		return nil, err
	}
	return func(b *bytes.Buffer) {
		shape.WriteEC2XML(b, "instanceTypeSet", matched[start:end])
		if next != "" {
			xmlElem(b, "nextToken", next)
		}
	}, nil
}

func instanceTypeMatches(it *ec2types.InstanceTypeInfo, filters []filter) bool {
	for _, f := range filters {
		if !f.matchAny(instanceTypeFilters[f.name](it)) {
			return false
		}
	}
	return true
}

// instanceTypeFilters covers the filters Karpenter and instance-type
// selection use; other documented names answer InvalidParameterValue, so a
// test relying on one fails loudly instead of matching everything.
var instanceTypeFilters = map[string]func(*ec2types.InstanceTypeInfo) []string{
	"instance-type":                   func(i *ec2types.InstanceTypeInfo) []string { return str(i.InstanceType) },
	"current-generation":              func(i *ec2types.InstanceTypeInfo) []string { return boolPtr(i.CurrentGeneration) },
	"bare-metal":                      func(i *ec2types.InstanceTypeInfo) []string { return boolPtr(i.BareMetal) },
	"hypervisor":                      func(i *ec2types.InstanceTypeInfo) []string { return str(i.Hypervisor) },
	"burstable-performance-supported": func(i *ec2types.InstanceTypeInfo) []string { return boolPtr(i.BurstablePerformanceSupported) },
	"free-tier-eligible":              func(i *ec2types.InstanceTypeInfo) []string { return boolPtr(i.FreeTierEligible) },
	"hibernation-supported":           func(i *ec2types.InstanceTypeInfo) []string { return boolPtr(i.HibernationSupported) },
	"instance-storage-supported":      func(i *ec2types.InstanceTypeInfo) []string { return boolPtr(i.InstanceStorageSupported) },
	"supported-virtualization-type":   func(i *ec2types.InstanceTypeInfo) []string { return strs(i.SupportedVirtualizationTypes) },
	"supported-usage-class":           func(i *ec2types.InstanceTypeInfo) []string { return strs(i.SupportedUsageClasses) },
	"supported-root-device-type":      func(i *ec2types.InstanceTypeInfo) []string { return strs(i.SupportedRootDeviceTypes) },
	"supported-boot-mode":             func(i *ec2types.InstanceTypeInfo) []string { return strs(i.SupportedBootModes) },
	"processor-info.supported-architecture": func(i *ec2types.InstanceTypeInfo) []string {
		if i.ProcessorInfo == nil {
			return nil
		}
		return strs(i.ProcessorInfo.SupportedArchitectures)
	},
	"vcpu-info.default-vcpus": func(i *ec2types.InstanceTypeInfo) []string {
		if i.VCpuInfo == nil {
			return nil
		}
		return int32Ptr(i.VCpuInfo.DefaultVCpus)
	},
	"memory-info.size-in-mib": func(i *ec2types.InstanceTypeInfo) []string {
		if i.MemoryInfo == nil || i.MemoryInfo.SizeInMiB == nil {
			return nil
		}
		return []string{strconv.FormatInt(*i.MemoryInfo.SizeInMiB, 10)}
	},
	"network-info.ena-support": func(i *ec2types.InstanceTypeInfo) []string {
		if i.NetworkInfo == nil {
			return nil
		}
		return str(i.NetworkInfo.EnaSupport)
	},
	"network-info.efa-supported": func(i *ec2types.InstanceTypeInfo) []string {
		if i.NetworkInfo == nil {
			return nil
		}
		return boolPtr(i.NetworkInfo.EfaSupported)
	},
	"network-info.ipv6-supported": func(i *ec2types.InstanceTypeInfo) []string {
		if i.NetworkInfo == nil {
			return nil
		}
		return boolPtr(i.NetworkInfo.Ipv6Supported)
	},
}

func strs[T ~string](vs []T) []string {
	out := make([]string, 0, len(vs))
	for _, v := range vs {
		out = append(out, string(v))
	}
	return out
}

func int32Ptr(p *int32) []string {
	if p == nil {
		return nil
	}
	return []string{strconv.Itoa(int(*p))}
}
