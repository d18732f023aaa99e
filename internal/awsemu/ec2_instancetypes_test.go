package awsemu_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
)

func typeNames(its []ec2types.InstanceTypeInfo) []string {
	out := make([]string, 0, len(its))
	for _, it := range its {
		out = append(out, string(it.InstanceType))
	}
	slices.Sort(out)
	return out
}

func TestDescribeInstanceTypes(t *testing.T) {
	e := newEnv(t, nil, awsemu.Options{}, nil)
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		in    ec2.DescribeInstanceTypesInput
		want  []string
		wantN int
	}{
		{name: "all", wantN: 25},
		{
			name: "by name",
			in:   ec2.DescribeInstanceTypesInput{InstanceTypes: []ec2types.InstanceType{"g5g.xlarge", "m5.large"}},
			want: []string{"g5g.xlarge", "m5.large"},
		},
		{
			name: "instance-type wildcard",
			in:   ec2.DescribeInstanceTypesInput{Filters: []ec2types.Filter{filter("instance-type", "m5.*")}},
			want: []string{"m5.large", "m5.metal", "m5.xlarge"},
		},
		{
			name: "instance-type single-character wildcard",
			in:   ec2.DescribeInstanceTypesInput{Filters: []ec2types.Filter{filter("instance-type", "g?.xlarge")}},
			want: []string{"g5.xlarge"},
		},
		{
			name: "arm64",
			in:   ec2.DescribeInstanceTypesInput{Filters: []ec2types.Filter{filter("processor-info.supported-architecture", "arm64")}},
			want: sorted("a1.large", "c6g.metal", "c7g.large", "g5g.xlarge", "m6g.large", "m6g.xlarge", "r6g.large", "t4g.medium", "x2gd.large"),
		},
		{
			name: "Karpenter's filters drop mac1.metal only",
			in: ec2.DescribeInstanceTypesInput{Filters: []ec2types.Filter{
				filter("supported-virtualization-type", "hvm"),
				filter("processor-info.supported-architecture", "x86_64", "arm64"),
			}},
			wantN: 24,
		},
		{
			name: "paravirtual",
			in:   ec2.DescribeInstanceTypesInput{Filters: []ec2types.Filter{filter("supported-virtualization-type", "paravirtual")}},
			want: []string{"m1.small"},
		},
		{
			name: "previous generation",
			in:   ec2.DescribeInstanceTypesInput{Filters: []ec2types.Filter{filter("current-generation", "false")}},
			want: []string{"m1.small"},
		},
		{
			name: "bare metal",
			in:   ec2.DescribeInstanceTypesInput{Filters: []ec2types.Filter{filter("bare-metal", "true")}},
			want: []string{"c6g.metal", "m5.metal", "mac1.metal"},
		},
		{
			name: "hypervisor xen",
			in:   ec2.DescribeInstanceTypesInput{Filters: []ec2types.Filter{filter("hypervisor", "xen")}},
			want: []string{"m1.small"},
		},
		{
			name:  "hypervisor nitro excludes metal and xen",
			in:    ec2.DescribeInstanceTypesInput{Filters: []ec2types.Filter{filter("hypervisor", "nitro")}},
			wantN: 25 - 3 - 1,
		},
		{
			name: "names and filters are ANDed",
			in: ec2.DescribeInstanceTypesInput{
				InstanceTypes: []ec2types.InstanceType{"m5.large", "m6g.large"},
				Filters:       []ec2types.Filter{filter("processor-info.supported-architecture", "arm64")},
			},
			want: []string{"m6g.large"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := e.EC2.DescribeInstanceTypes(ctx, &tc.in)
			if err != nil {
				t.Fatal(err)
			}
			got := typeNames(out.InstanceTypes)
			if tc.want != nil && !slices.Equal(got, tc.want) || tc.want == nil && len(got) != tc.wantN {
				t.Errorf("got %v, want %v (%d)", got, tc.want, tc.wantN)
			}
		})
	}

	// Decoded details, as Karpenter reads them.
	out, err := e.EC2.DescribeInstanceTypes(ctx, &ec2.DescribeInstanceTypesInput{
		InstanceTypes: []ec2types.InstanceType{"g5g.xlarge", "inf1.xlarge", "p4d.24xlarge"},
	})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]ec2types.InstanceTypeInfo{}
	for _, it := range out.InstanceTypes {
		byName[string(it.InstanceType)] = it
	}
	g := byName["g5g.xlarge"]
	if gpu := g.GpuInfo.Gpus[0]; *gpu.Name != "T4g" || *gpu.Manufacturer != "NVIDIA" || *gpu.Count != 1 ||
		g.ProcessorInfo.SupportedArchitectures[0] != ec2types.ArchitectureTypeArm64 || *g.VCpuInfo.DefaultVCpus != 4 || *g.MemoryInfo.SizeInMiB != 8192 {
		t.Errorf("g5g.xlarge decoded wrongly: %+v", g)
	}
	inf1 := byName["inf1.xlarge"]
	if *inf1.NeuronInfo.NeuronDevices[0].Name != "Inferentia" || *inf1.InferenceAcceleratorInfo.Accelerators[0].Count != 1 {
		t.Errorf("inf1.xlarge accelerators decoded wrongly: %+v %+v", inf1.NeuronInfo, inf1.InferenceAcceleratorInfo)
	}
	p4d := byName["p4d.24xlarge"]
	if *p4d.NetworkInfo.MaximumNetworkInterfaces != 60 || len(p4d.NetworkInfo.NetworkCards) != 4 || *p4d.NetworkInfo.NetworkCards[0].MaximumNetworkInterfaces != 15 {
		t.Errorf("p4d.24xlarge network decoded wrongly: %+v", p4d.NetworkInfo)
	}
}

func TestDescribeInstanceTypesErrors(t *testing.T) {
	e := newEnv(t, nil, awsemu.Options{}, nil)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		in   ec2.DescribeInstanceTypesInput
		code string
	}{
		{"unknown type", ec2.DescribeInstanceTypesInput{InstanceTypes: []ec2types.InstanceType{"m5.large", "x9.huge"}}, "InvalidInstanceType"},
		{"unknown filter", ec2.DescribeInstanceTypesInput{Filters: []ec2types.Filter{filter("flavour", "x")}}, "InvalidParameterValue"},
		{"MaxResults too small", ec2.DescribeInstanceTypesInput{MaxResults: aws.Int32(4)}, "InvalidParameterValue"},
		{"MaxResults too large", ec2.DescribeInstanceTypesInput{MaxResults: aws.Int32(101)}, "InvalidParameterValue"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.EC2.DescribeInstanceTypes(ctx, &tc.in)
			if code := apiCode(t, err); code != tc.code {
				t.Errorf("code %s, want %s (%v)", code, tc.code, err)
			}
		})
	}
}

func TestDescribeInstanceTypesPagination(t *testing.T) {
	f := defaultFixtures(t)
	for i := range 150 {
		f.AddInstanceTypes(ec2types.InstanceTypeInfo{
			InstanceType:  ec2types.InstanceType(fmt.Sprintf("gen%d.large", i)),
			ProcessorInfo: &ec2types.ProcessorInfo{SupportedArchitectures: []ec2types.ArchitectureType{"x86_64"}},
		})
	}
	e := newEnv(t, f, awsemu.Options{}, nil)
	ctx := context.Background()
	pageSizes := func(in *ec2.DescribeInstanceTypesInput) []int {
		t.Helper()
		var sizes []int
		seen := map[ec2types.InstanceType]bool{}
		p := ec2.NewDescribeInstanceTypesPaginator(e.EC2, in)
		for p.HasMorePages() {
			page, err := p.NextPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range page.InstanceTypes {
				if seen[it.InstanceType] {
					t.Fatalf("%s returned twice", it.InstanceType)
				}
				seen[it.InstanceType] = true
			}
			sizes = append(sizes, len(page.InstanceTypes))
		}
		return sizes
	}
	// Without MaxResults EC2 pages by 100.
	if got := pageSizes(&ec2.DescribeInstanceTypesInput{}); !slices.Equal(got, []int{100, 75}) {
		t.Errorf("default paging %v, want [100 75]", got)
	}
	got := pageSizes(&ec2.DescribeInstanceTypesInput{
		MaxResults: aws.Int32(10),
		Filters:    []ec2types.Filter{filter("instance-type", "*.*large", "*.metal")},
	})
	if !slices.Equal(got[:2], []int{10, 10}) || sum(got) != 175-3 { // m1.small, t3.micro and t4g.medium do not match
		t.Errorf("MaxResults 10: pages %v", got)
	}
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}
