package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
)

// Custom (non-public) parameters of the emulator's account.
const (
	paramCustomX86          = "/platform/ami/al2023/x86_64"
	paramCustomArm64        = "/platform/ami/al2023/arm64"
	paramCustomDeregistered = "/platform/ami/al2023/deregistered"
	paramCustomNotAMI       = "/platform/ami/not-an-ami"
)

const eksParamRoot = "/aws/service/eks/optimized-ami/"

// parameters publishes, for every image family, the SSM names Karpenter
// resolves aliases through: recommended/latest pointing at the newest
// release, and one pinned name per release.
func parameters(images []ec2types.Image) []ssmtypes.Parameter {
	byName := map[string]ec2types.Image{}
	for _, img := range images {
		byName[*img.Name] = img
	}
	var ps []ssmtypes.Parameter
	// add publishes value under name, last modified a little after the image
	// it describes was created; version counts how often it was updated.
	add := func(name, value, imageName string, version int64) {
		created, err := time.Parse(time.RFC3339, *byName[imageName].CreationDate)
		if err != nil {
			panic(fmt.Sprintf("parameter %s: image %s: %v", name, imageName, err))
		}
		ps = append(ps, publicParameter(name, value, created.Add(2*time.Hour+17*time.Minute), version))
	}
	id := func(imageName string) string {
		img, ok := byName[imageName]
		if !ok {
			panic("parameter for unknown image " + imageName)
		}
		return *img.ImageId
	}

	// AL2023 and AL2, per minor: releases oldest first.
	for _, minor := range []string{"1.31", "1.32", "1.35"} {
		var releases []eksRelease
		for _, r := range eksReleases {
			if _, ok := r.k8sPatch[minor]; ok {
				releases = append(releases, r)
			}
		}
		latest := releases[len(releases)-1]
		n := int64(len(releases))
		releaseVersion := latest.k8sPatch[minor] + "-" + strings.TrimPrefix(latest.version, "v")
		for _, av := range latest.al2023Variants {
			dir := eksParamRoot + minor + "/amazon-linux-2023/" + av[0] + "/" + av[1] + "/"
			for _, r := range releases {
				name := al2023Name(av[0], av[1], minor, r.version)
				add(dir+name+"/image_id", id(name), name, 1)
			}
			name := al2023Name(av[0], av[1], minor, latest.version)
			add(dir+"recommended/image_id", id(name), name, n)
			add(dir+"recommended/release_version", releaseVersion, name, n)
		}
		for _, kind := range latest.al2Architectures {
			dir := eksParamRoot + minor + "/" + map[string]string{
				"x86_64": "amazon-linux-2", "arm64": "amazon-linux-2-arm64", "gpu": "amazon-linux-2-gpu",
			}[kind] + "/"
			for _, r := range releases {
				name := al2Name(kind, minor, r.version)
				add(dir+name+"/image_id", id(name), name, 1)
			}
			name := al2Name(kind, minor, latest.version)
			add(dir+"recommended/image_id", id(name), name, n)
			add(dir+"recommended/release_version", releaseVersion, name, n)
		}
	}

	// Bottlerocket: latest plus <x.y.z> and <x.y.z>-<commit> per release.
	for _, minor := range classicMinors {
		for _, nvidia := range []bool{false, true} {
			flavor := "aws-k8s-" + minor
			if nvidia {
				flavor += "-nvidia"
			}
			for _, arch := range []string{"x86_64", "arm64"} {
				dir := "/aws/service/bottlerocket/" + flavor + "/" + arch + "/"
				for _, r := range bottlerocketReleases {
					name := bottlerocketName(minor, nvidia, arch, r)
					full := r.version + "-" + r.commit
					for _, v := range []string{r.version, full} {
						add(dir+v+"/image_id", id(name), name, 1)
						add(dir+v+"/image_version", full, name, 1)
					}
				}
				r := bottlerocketReleases[len(bottlerocketReleases)-1]
				name := bottlerocketName(minor, nvidia, arch, r)
				n := int64(len(bottlerocketReleases))
				add(dir+"latest/image_id", id(name), name, n)
				add(dir+"latest/image_version", r.version+"-"+r.commit, name, n)
			}
		}
	}

	// Windows: only the latest, as AWS publishes it.
	latestWindows := map[string]time.Time{} // "<version>/<minor>" -> build date
	windowsUpdates := map[string]int64{}
	for _, r := range windowsReleases {
		for _, minor := range r.minors {
			for _, v := range r.versions {
				windowsUpdates[v+"/"+minor]++
				if r.built.After(latestWindows[v+"/"+minor]) {
					latestWindows[v+"/"+minor] = r.built
				}
			}
		}
	}
	for _, key := range sortedKeys(latestWindows) {
		v, minor, _ := strings.Cut(key, "/")
		name := windowsName(v, minor, latestWindows[key])
		add(fmt.Sprintf("/aws/service/ami-windows-latest/Windows_Server-%s-English-Core-EKS_Optimized-%s/image_id", v, minor),
			id(name), name, windowsUpdates[key])
	}

	// The account's own parameters.
	for _, c := range []struct{ name, image string }{
		{paramCustomX86, "team-eks-node-al2023-x86_64-20250901"},
		{paramCustomArm64, "team-eks-node-al2023-arm64-20251015"},
		{paramCustomDeregistered, "team-eks-node-al2023-x86_64-20250701"},
	} {
		p := customParameter(c.name, id(c.image), "aws:ec2:image")
		ps = append(ps, p)
	}
	// A value that is not an AMI id: Karpenter skips such a term.
	ps = append(ps, customParameter(paramCustomNotAMI, "team-eks-node-al2023-x86_64-20250901", "text"))

	slices.SortFunc(ps, func(a, b ssmtypes.Parameter) int { return strings.Compare(*a.Name, *b.Name) })
	return ps
}

// publicParameter: AWS-owned parameters have no account in their ARN.
func publicParameter(name, value string, modified time.Time, version int64) ssmtypes.Parameter {
	return ssmtypes.Parameter{
		ARN:              ptr("arn:aws:ssm:" + region + "::parameter" + name),
		DataType:         ptr("text"),
		LastModifiedDate: ptr(modified),
		Name:             ptr(name),
		Type:             ssmtypes.ParameterTypeString,
		Value:            ptr(value),
		Version:          version,
	}
}

func customParameter(name, value, dataType string) ssmtypes.Parameter {
	return ssmtypes.Parameter{
		ARN:              ptr("arn:aws:ssm:" + region + ":" + accountID + ":parameter" + name),
		DataType:         ptr(dataType),
		LastModifiedDate: ptr(time.Date(2025, 12, 12, 8, 0, 0, 0, time.UTC)),
		Name:             ptr(name),
		Type:             ssmtypes.ParameterTypeString,
		Value:            ptr(value),
		Version:          1,
	}
}
