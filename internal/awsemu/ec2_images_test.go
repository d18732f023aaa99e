package awsemu_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
)

func TestDescribeImagesSelection(t *testing.T) {
	e := newEnv(t, nil, awsemu.Options{}, nil)
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		in    ec2.DescribeImagesInput
		want  []string // sorted image names; nil means check wantN
		wantN int
	}{
		{
			name: "name wildcard star",
			in:   ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("name", "amazon-eks-node-al2023-x86_64-standard-1.32-*")}},
			want: sorted("amazon-eks-node-al2023-x86_64-standard-1.32-v20251112", "amazon-eks-node-al2023-x86_64-standard-1.32-v20251209"),
		},
		{
			name: "name wildcard question mark",
			in:   ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("name", "amazon-eks-node-1.3?-v20251209")}},
			want: sorted("amazon-eks-node-1.31-v20251209", "amazon-eks-node-1.32-v20251209"),
		},
		{
			name: "wildcards are case-sensitive",
			in:   ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("name", "AMAZON-EKS-*")}},
			want: []string{},
		},
		{
			name: "values inside a filter are ORed, filters ANDed",
			in: ec2.DescribeImagesInput{Filters: []ec2types.Filter{
				filter("name", "amazon-eks-node-1.31-*", "amazon-eks-arm64-node-1.31-*"),
				filter("architecture", "arm64"),
			}},
			want: sorted("amazon-eks-arm64-node-1.31-v20251112", "amazon-eks-arm64-node-1.31-v20251209"),
		},
		{
			name:  "owner amazon matches the owner alias",
			in:    ec2.DescribeImagesInput{Owners: []string{"amazon"}},
			wantN: 61,
		},
		{
			name:  "owner self is the emulator account (pending and failed included, deprecated/disabled/deregistered not)",
			in:    ec2.DescribeImagesInput{Owners: []string{"self"}},
			wantN: 11,
		},
		{
			name:  "owner self and the account id are the same",
			in:    ec2.DescribeImagesInput{Owners: []string{awsemu.AccountID}},
			wantN: 11,
		},
		{
			name:  "several owners are ORed",
			in:    ec2.DescribeImagesInput{Owners: []string{awsemu.OwnerBottlerocket, awsemu.OwnerWindows}},
			wantN: 16 + 9,
		},
		{
			name:  "owner-id filter",
			in:    ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("owner-id", awsemu.OwnerEKS)}},
			wantN: 36,
		},
		{
			name:  "owner-alias filter",
			in:    ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("owner-alias", "amazon")}},
			wantN: 61,
		},
		{
			name: "tag filter with state and IncludeDeprecated, as Karpenter asks",
			in: ec2.DescribeImagesInput{
				Filters: []ec2types.Filter{
					filter("tag:karpenter.sh/discovery", "demo"),
					filter("state", "available"),
				},
				IncludeDeprecated: aws.Bool(true),
			},
			want: sorted(awsemu.CustomAvailableOldName, awsemu.CustomTieLoserName, awsemu.CustomTieWinnerName,
				awsemu.CustomArm64Name, awsemu.CustomDeprecatedName, awsemu.CustomI386Name, awsemu.CustomMacName),
		},
		{
			name: "tag value wildcard and tag-key",
			in: ec2.DescribeImagesInput{Filters: []ec2types.Filter{
				filter("tag:os", "bottle*"),
				filter("tag-key", "team"),
			}},
			want: []string{awsemu.CustomBottlerocketNvidiaArm64Name},
		},
		{
			name: "tag keys are literal",
			in:   ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("tag:karpenter.sh/*", "demo")}},
			want: []string{},
		},
		{
			name: "state pending",
			in:   ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("state", "pending")}},
			want: sorted(awsemu.CustomPendingName, awsemu.CustomGPUPendingOnlyName),
		},
		{
			name: "state failed",
			in:   ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("state", "failed")}},
			want: []string{awsemu.CustomFailedName},
		},
		{
			name: "state disabled needs IncludeDisabled",
			in:   ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("state", "disabled")}},
			want: []string{},
		},
		{
			name: "IncludeDisabled",
			in:   ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("state", "disabled")}, IncludeDisabled: aws.Bool(true)},
			want: []string{awsemu.CustomDisabledName},
		},
		{
			name: "deregistered images are never listed",
			in:   ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("state", "deregistered")}, IncludeDeprecated: aws.Bool(true), IncludeDisabled: aws.Bool(true)},
			want: []string{},
		},
		{
			name: "deprecated images are hidden by default",
			in:   ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("name", awsemu.CustomDeprecatedName)}},
			want: []string{},
		},
		{
			name: "IncludeDeprecated",
			in:   ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("name", awsemu.CustomDeprecatedName)}, IncludeDeprecated: aws.Bool(true)},
			want: []string{awsemu.CustomDeprecatedName},
		},
		{
			name: "ImageIds show deprecated and deregistered images",
			in:   ec2.DescribeImagesInput{ImageIds: []string{awsemu.CustomDeprecatedID, awsemu.CustomDeregisteredID}},
			want: sorted(awsemu.CustomDeprecatedName, awsemu.CustomDeregisteredName),
		},
		{
			name: "ImageIds and filters are ANDed",
			in: ec2.DescribeImagesInput{
				ImageIds: []string{awsemu.CustomArm64ID, awsemu.CustomTieWinnerID},
				Filters:  []ec2types.Filter{filter("architecture", "arm64")},
			},
			want: []string{awsemu.CustomArm64Name},
		},
		{
			name: "image-id filter values are ORed",
			in:   ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("image-id", awsemu.CustomArm64ID, awsemu.CustomArchLiarID, "ami-0000000000000000f")}},
			want: sorted(awsemu.CustomArm64Name, awsemu.CustomArchLiarName),
		},
		{
			name: "architecture uses the Architecture field, not the name",
			in: ec2.DescribeImagesInput{Owners: []string{"self"}, Filters: []ec2types.Filter{
				filter("name", "team-eks-node-al2023-x86_64-*"), filter("architecture", "arm64"),
			}},
			want: []string{awsemu.CustomArchLiarName},
		},
		{
			name: "unsupported architectures",
			in:   ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("architecture", "i386", "x86_64_mac")}},
			want: sorted(awsemu.CustomI386Name, awsemu.CustomMacName),
		},
		{
			name:  "description wildcard",
			in:    ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("description", "EKS-optimized Kubernetes node based on Amazon Linux 2023, (k8s: 1.32.*")}},
			wantN: 10,
		},
		{
			name:  "image-type",
			in:    ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("image-type", "machine")}},
			wantN: 72, // all but deprecated, disabled, deregistered
		},
		{
			name:  "platform windows",
			in:    ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("platform", "windows")}},
			wantN: 9,
		},
		{
			name:  "block-device-mapping.volume-size",
			in:    ec2.DescribeImagesInput{Owners: []string{"amazon"}, Filters: []ec2types.Filter{filter("block-device-mapping.volume-size", "50")}},
			wantN: 9,
		},
		{
			name: "escaped wildcard is literal",
			in:   ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("name", `amazon-eks-node-1.31-v2025111\?`)}},
			want: []string{},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := e.EC2.DescribeImages(ctx, &tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if out.NextToken != nil {
				t.Errorf("NextToken = %q without MaxResults, want all in one page", *out.NextToken)
			}
			got := names(out.Images)
			if tc.want != nil {
				if !slices.Equal(got, tc.want) {
					t.Errorf("got %v\nwant %v", got, tc.want)
				}
			} else if len(got) != tc.wantN {
				t.Errorf("got %d images, want %d: %v", len(got), tc.wantN, got)
			}
		})
	}
}

func TestDescribeImagesErrors(t *testing.T) {
	e := newEnv(t, nil, awsemu.Options{}, nil)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		in   ec2.DescribeImagesInput
		code string
	}{
		{"unknown filter", ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("colour", "blue")}}, "InvalidParameterValue"},
		{"MaxResults too small", ec2.DescribeImagesInput{MaxResults: aws.Int32(4)}, "InvalidParameterValue"},
		{"MaxResults too large", ec2.DescribeImagesInput{MaxResults: aws.Int32(1001)}, "InvalidParameterValue"},
		{"MaxResults with ImageIds", ec2.DescribeImagesInput{MaxResults: aws.Int32(5), ImageIds: []string{awsemu.CustomArm64ID}}, "InvalidParameterCombination"},
		{"unknown image id", ec2.DescribeImagesInput{ImageIds: []string{"ami-0123456789abcdef0"}}, "InvalidAMIID.NotFound"},
		{"malformed image id", ec2.DescribeImagesInput{ImageIds: []string{"ami-xyz"}}, "InvalidAMIID.Malformed"},
		{"malformed owner", ec2.DescribeImagesInput{Owners: []string{"someone"}}, "InvalidUserID.Malformed"},
		{"bogus NextToken", ec2.DescribeImagesInput{NextToken: aws.String("bogus")}, "InvalidPaginationToken"},
		{"DryRun", ec2.DescribeImagesInput{DryRun: aws.Bool(true)}, "DryRunOperation"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.EC2.DescribeImages(ctx, &tc.in)
			if err == nil {
				t.Fatal("want an error")
			}
			if got := apiCode(t, err); got != tc.code {
				t.Errorf("code = %s, want %s (%v)", got, tc.code, err)
			}
		})
	}
	_, err := e.EC2.DescribeImages(ctx, &ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("colour", "blue")}})
	if want := "The filter 'colour' is invalid"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want it to say %q", err, want)
	}
}

// generatedImages returns n self-owned images named gen-NNNNN.
func generatedImages(n int) []ec2types.Image {
	imgs := make([]ec2types.Image, 0, n)
	for i := range n {
		imgs = append(imgs, ec2types.Image{
			ImageId:      aws.String(fmt.Sprintf("ami-0%016x", 0xabc000000+i)),
			Name:         aws.String(fmt.Sprintf("gen-%05d", i)),
			OwnerId:      aws.String(awsemu.AccountID),
			Architecture: ec2types.ArchitectureValuesX8664,
			State:        ec2types.ImageStateAvailable,
			CreationDate: aws.String("2025-01-01T00:00:00.000Z"),
		})
	}
	return imgs
}

func TestDescribeImagesPagination(t *testing.T) {
	f := defaultFixtures(t)
	f.AddImages(generatedImages(1500)...)
	e := newEnv(t, f, awsemu.Options{}, nil)
	ctx := context.Background()
	in := &ec2.DescribeImagesInput{
		Owners:            []string{"self", "amazon"},
		Filters:           []ec2types.Filter{filter("name", "gen-*"), filter("state", "available")},
		IncludeDeprecated: aws.Bool(true),
		MaxResults:        aws.Int32(1000),
	}
	p := ec2.NewDescribeImagesPaginator(e.EC2, in)
	var sizes []int
	seen := map[string]bool{}
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, len(page.Images))
		for _, img := range page.Images {
			if seen[*img.ImageId] {
				t.Fatalf("image %s returned twice", *img.ImageId)
			}
			seen[*img.ImageId] = true
		}
	}
	if !slices.Equal(sizes, []int{1000, 500}) {
		t.Errorf("page sizes %v, want [1000 500]", sizes)
	}
	if got := e.Srv.Stats()["ec2:DescribeImages"]; got != 2 {
		t.Errorf("%d DescribeImages calls, want 2", got)
	}

	// Without MaxResults everything comes back at once, as in AWS.
	out, err := e.EC2.DescribeImages(ctx, &ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("name", "gen-*")}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Images) != 1500 || out.NextToken != nil {
		t.Errorf("unpaginated: %d images, NextToken %v; want 1500 and none", len(out.Images), out.NextToken)
	}

	// Tokens are bound to their query.
	first, err := e.EC2.DescribeImages(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.EC2.DescribeImages(ctx, &ec2.DescribeImagesInput{
		Filters: []ec2types.Filter{filter("name", "other-*")}, MaxResults: aws.Int32(1000), NextToken: first.NextToken,
	})
	if code := apiCode(t, err); code != "InvalidPaginationToken" {
		t.Errorf("replayed token: code %s, want InvalidPaginationToken", code)
	}
}
