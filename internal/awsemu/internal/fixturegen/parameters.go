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

// Labels of ParamCustomX86's versions (see parameters).
const (
	labelCustomX86Current  = "prod"
	labelCustomX86Previous = "rollback"
)

// paramVersion is one value a parameter held: the value and the image it
// describes (whose creation dates the version).
type paramVersion struct{ value, imageName string }

// parameters publishes, for every image family, the SSM names Karpenter
// resolves aliases through: recommended/latest pointing at the newest
// release, and one pinned name per release. A parameter that was updated
// (recommended, latest, the Windows names) has its earlier versions in the
// history: what `aws ssm get-parameter-history` prints for it, every version
// including the current one.
func parameters(images []ec2types.Image) ([]ssmtypes.Parameter, []ssmtypes.ParameterHistory) {
	byName := map[string]ec2types.Image{}
	for _, img := range images {
		byName[*img.Name] = img
	}
	var (
		ps   []ssmtypes.Parameter
		hist []ssmtypes.ParameterHistory
	)
	// addVersions publishes name's versions, oldest first (version 1 first),
	// each last modified a little after the image it describes was created;
	// the last is the current value.
	addVersions := func(name string, versions ...paramVersion) {
		var p ssmtypes.Parameter
		for i, v := range versions {
			created, err := time.Parse(time.RFC3339, *byName[v.imageName].CreationDate)
			if err != nil {
				panic(fmt.Sprintf("parameter %s: image %s: %v", name, v.imageName, err))
			}
			p = publicParameter(name, v.value, created.Add(2*time.Hour+17*time.Minute), int64(i+1))
			if len(versions) > 1 {
				hist = append(hist, historyOf(p))
			}
		}
		ps = append(ps, p)
	}
	add := func(name, value, imageName string) { addVersions(name, paramVersion{value, imageName}) }
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
		releaseVersion := func(r eksRelease) string { return r.k8sPatch[minor] + "-" + strings.TrimPrefix(r.version, "v") }
		// recommended moved to each release in turn.
		recommended := func(dir string, imageName func(release string) string) {
			var ids, versions []paramVersion
			for _, r := range releases {
				name := imageName(r.version)
				add(dir+name+"/image_id", id(name), name)
				ids = append(ids, paramVersion{id(name), name})
				versions = append(versions, paramVersion{releaseVersion(r), name})
			}
			addVersions(dir+"recommended/image_id", ids...)
			addVersions(dir+"recommended/release_version", versions...)
		}
		for _, av := range latest.al2023Variants {
			recommended(eksParamRoot+minor+"/amazon-linux-2023/"+av[0]+"/"+av[1]+"/", func(release string) string {
				return al2023Name(av[0], av[1], minor, release)
			})
		}
		for _, kind := range latest.al2Architectures {
			dir := eksParamRoot + minor + "/" + map[string]string{
				"x86_64": "amazon-linux-2", "arm64": "amazon-linux-2-arm64", "gpu": "amazon-linux-2-gpu",
			}[kind] + "/"
			recommended(dir, func(release string) string { return al2Name(kind, minor, release) })
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
				var ids, versions []paramVersion
				for _, r := range bottlerocketReleases {
					name := bottlerocketName(minor, nvidia, arch, r)
					full := r.version + "-" + r.commit
					for _, v := range []string{r.version, full} {
						add(dir+v+"/image_id", id(name), name)
						add(dir+v+"/image_version", full, name)
					}
					ids = append(ids, paramVersion{id(name), name})
					versions = append(versions, paramVersion{full, name})
				}
				addVersions(dir+"latest/image_id", ids...)
				addVersions(dir+"latest/image_version", versions...)
			}
		}
	}

	// Windows: only the latest name, as AWS publishes it, updated to each
	// build in turn.
	windowsBuilds := map[string][]time.Time{} // "<version>/<minor>" -> build dates
	for _, r := range windowsReleases {
		for _, minor := range r.minors {
			for _, v := range r.versions {
				windowsBuilds[v+"/"+minor] = append(windowsBuilds[v+"/"+minor], r.built)
			}
		}
	}
	for _, key := range sortedKeys(windowsBuilds) {
		v, minor, _ := strings.Cut(key, "/")
		builds := slices.SortedFunc(slices.Values(windowsBuilds[key]), time.Time.Compare)
		var ids []paramVersion
		for _, built := range builds {
			name := windowsName(v, minor, built)
			ids = append(ids, paramVersion{id(name), name})
		}
		addVersions(fmt.Sprintf("/aws/service/ami-windows-latest/Windows_Server-%s-English-Core-EKS_Optimized-%s/image_id", v, minor), ids...)
	}

	// The account's own parameters. ParamCustomX86 has a history with
	// labels: version 1 held the (since deregistered) 20250701 image and is
	// labelled rollback; version 2, the current one, is labelled prod.
	x86v1 := customParameter(paramCustomX86, id("team-eks-node-al2023-x86_64-20250701"), "aws:ec2:image")
	x86v1.LastModifiedDate = ptr(time.Date(2025, 7, 2, 8, 0, 0, 0, time.UTC))
	x86 := customParameter(paramCustomX86, id("team-eks-node-al2023-x86_64-20250901"), "aws:ec2:image")
	x86.Version = 2
	ps = append(ps, x86)
	hist = append(hist, historyOf(x86v1, labelCustomX86Previous), historyOf(x86, labelCustomX86Current))
	for _, c := range []struct{ name, image string }{
		{paramCustomArm64, "team-eks-node-al2023-arm64-20251015"},
		{paramCustomDeregistered, "team-eks-node-al2023-x86_64-20250701"},
	} {
		p := customParameter(c.name, id(c.image), "aws:ec2:image")
		ps = append(ps, p)
	}
	// A value that is not an AMI id: Karpenter skips such a term.
	ps = append(ps, customParameter(paramCustomNotAMI, "team-eks-node-al2023-x86_64-20250901", "text"))

	slices.SortFunc(ps, func(a, b ssmtypes.Parameter) int { return strings.Compare(*a.Name, *b.Name) })
	slices.SortStableFunc(hist, func(a, b ssmtypes.ParameterHistory) int { return strings.Compare(*a.Name, *b.Name) })
	return ps, hist
}

// historyOf is version p as `aws ssm get-parameter-history` lists it.
func historyOf(p ssmtypes.Parameter, labels ...string) ssmtypes.ParameterHistory {
	return ssmtypes.ParameterHistory{
		DataType:         p.DataType,
		Labels:           append([]string{}, labels...),
		LastModifiedDate: p.LastModifiedDate,
		Name:             p.Name,
		Policies:         []ssmtypes.ParameterInlinePolicy{},
		Tier:             ssmtypes.ParameterTierStandard,
		Type:             p.Type,
		Value:            p.Value,
		Version:          p.Version,
	}
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
