package awsemu

import (
	"bytes"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/internal/shape"
)

// DescribeImages semantics (AWS documents some, the rest is modelled on
// observed behaviour and kept deliberately simple):
//
//   - ImageId.N, Owner.N, ExecutableBy.N and Filter.N are ANDed; values
//     inside one of them are ORed. Filter values take EC2 wildcards.
//   - Owner.N: an account id, "self" (the emulator's account) or an owner
//     alias ("amazon", "aws-marketplace", "aws-backup-vault") matched against
//     ImageOwnerAlias. Anything else is InvalidUserID.Malformed.
//   - Deprecated images (DeprecationTime <= Now) are hidden unless
//     IncludeDeprecated=true or the image is named in ImageId.N. AWS also
//     shows an owner its own deprecated images regardless of the flag; the
//     emulator does not, so "IncludeDeprecated absent" behaves the same for
//     every image (Karpenter always sends IncludeDeprecated=true anyway).
//   - Images in state "disabled" appear only with IncludeDisabled=true.
//   - Images in state "deregistered" appear only when named in ImageId.N.
//     AWS keeps returning a deregistered image "for a short interval"; the
//     emulator models that interval for lookups by id (so an id selector or
//     an SSM parameter pointing at a deregistered image shows the state)
//     but never lists one in filter or owner queries.
//   - ImageId.N naming an unknown image is InvalidAMIID.NotFound, a
//     malformed id InvalidAMIID.Malformed; the image-id filter just
//     matches nothing, as in AWS.
//   - MaxResults (5..1000) together with ImageId.N is
//     InvalidParameterCombination. Without MaxResults everything comes back
//     in one page, as AWS does.
//   - Results are in fixture order; AWS promises no order either.
func (s *Server) describeImages(form url.Values) (func(*bytes.Buffer), *apiError) {
	ids := indexedValues(form, "ImageId")
	owners := indexedValues(form, "Owner")
	executableBy := indexedValues(form, "ExecutableBy")
	if len(ids) > 0 && form.Get("MaxResults") != "" {
		return nil, badRequest("InvalidParameterCombination",
			"The parameter imageIdsSet cannot be used with the parameter maxResults")
	}
	pr, err := parsePageRequest(form, 5, 1000)
	if err != nil {
		return nil, err
	}
	filters, err := parseFilters(form)
	if err != nil {
		return nil, err
	}
	for _, f := range filters {
		if imageFilter(f.name) == nil {
			return nil, badRequest("InvalidParameterValue", "The filter '"+f.name+"' is invalid")
		}
	}
	includeDeprecated, err := formBool(form, "IncludeDeprecated")
	if err != nil {
		return nil, err
	}
	includeDisabled, err := formBool(form, "IncludeDisabled")
	if err != nil {
		return nil, err
	}
	for _, o := range owners {
		if !validOwner(o) {
			return nil, badRequest("InvalidUserID.Malformed", `Invalid user id: "`+o+`"`)
		}
	}

	byID := map[string]bool{}
	var missing []string
	for _, id := range ids {
		if !amiIDPattern.MatchString(id) {
			return nil, badRequest("InvalidAMIID.Malformed", `Invalid id: "`+id+`" (expecting "ami-...")`)
		}
		if _, ok := s.imageIndex[id]; !ok {
			missing = append(missing, id)
		}
		byID[id] = true
	}
	if len(missing) > 0 {
		return nil, badRequest("InvalidAMIID.NotFound", "The image id '["+strings.Join(missing, ", ")+"]' does not exist")
	}

	matched := make([]ec2types.Image, 0)
	for i := range s.images {
		img := &s.images[i]
		named := byID[deref(img.ImageId)]
		switch {
		case len(ids) > 0 && !named,
			!s.imageVisible(img, named, includeDeprecated, includeDisabled),
			len(owners) > 0 && !s.ownedByAny(img, owners),
			len(executableBy) > 0 && !s.executableByAny(img, executableBy),
			!imageMatches(img, filters):
			continue
		}
		matched = append(matched, *img)
	}

	start, end, next, err := pr.page(len(matched), 0)
	if err != nil {
		return nil, err
	}
	return func(b *bytes.Buffer) {
		shape.WriteEC2XML(b, "imagesSet", matched[start:end])
		if next != "" {
			xmlElem(b, "nextToken", next)
		}
	}, nil
}

var amiIDPattern = regexp.MustCompile(`^ami-([0-9a-f]{8}|[0-9a-f]{17})$`)

func (s *Server) imageVisible(img *ec2types.Image, named, includeDeprecated, includeDisabled bool) bool {
	switch img.State {
	case ec2types.ImageStateDeregistered:
		return named
	case ec2types.ImageStateDisabled:
		if !includeDisabled {
			return false
		}
	}
	return includeDeprecated || named || !s.deprecated(img)
}

// deprecated follows Karpenter and EC2: DeprecationTime <= now.
func (s *Server) deprecated(img *ec2types.Image) bool {
	if img.DeprecationTime == nil {
		return false
	}
	t, err := time.Parse(time.RFC3339, *img.DeprecationTime)
	return err == nil && !t.After(s.now())
}

var ownerAliases = map[string]bool{"amazon": true, "aws-marketplace": true, "aws-backup-vault": true}

var accountIDPattern = regexp.MustCompile(`^[0-9]{12}$`)

func validOwner(o string) bool {
	return o == "self" || ownerAliases[o] || accountIDPattern.MatchString(o)
}

func (s *Server) ownedByAny(img *ec2types.Image, owners []string) bool {
	for _, o := range owners {
		switch {
		case o == "self" && deref(img.OwnerId) == s.opts.AccountID,
			ownerAliases[o] && deref(img.ImageOwnerAlias) == o,
			o == deref(img.OwnerId):
			return true
		}
	}
	return false
}

// executableByAny: launch permissions are not modelled; "all" means public
// images, the emulator's own account (or "self") can launch everything it
// can see, other accounts nothing.
func (s *Server) executableByAny(img *ec2types.Image, users []string) bool {
	for _, u := range users {
		switch {
		case u == "all" && deref(img.Public),
			u == "self" || u == s.opts.AccountID:
			return true
		}
	}
	return false
}

func imageMatches(img *ec2types.Image, filters []filter) bool {
	for _, f := range filters {
		if !f.matchAny(imageFilter(f.name)(img)) {
			return false
		}
	}
	return true
}

// imageFilter returns the values an image has for a DescribeImages filter
// name, or nil for a name EC2 does not know.
func imageFilter(name string) func(*ec2types.Image) []string {
	if key, ok := strings.CutPrefix(name, "tag:"); ok {
		return func(img *ec2types.Image) []string {
			var out []string
			for _, t := range img.Tags {
				if deref(t.Key) == key {
					out = append(out, deref(t.Value))
				}
			}
			return out
		}
	}
	return imageFilters[name]
}

var imageFilters = map[string]func(*ec2types.Image) []string{
	"architecture":              func(i *ec2types.Image) []string { return str(i.Architecture) },
	"boot-mode":                 func(i *ec2types.Image) []string { return str(i.BootMode) },
	"creation-date":             func(i *ec2types.Image) []string { return ptr(i.CreationDate) },
	"description":               func(i *ec2types.Image) []string { return ptr(i.Description) },
	"ena-support":               func(i *ec2types.Image) []string { return boolPtr(i.EnaSupport) },
	"hypervisor":                func(i *ec2types.Image) []string { return str(i.Hypervisor) },
	"image-id":                  func(i *ec2types.Image) []string { return ptr(i.ImageId) },
	"image-type":                func(i *ec2types.Image) []string { return str(i.ImageType) },
	"is-public":                 func(i *ec2types.Image) []string { return boolPtr(i.Public) },
	"kernel-id":                 func(i *ec2types.Image) []string { return ptr(i.KernelId) },
	"manifest-location":         func(i *ec2types.Image) []string { return ptr(i.ImageLocation) },
	"name":                      func(i *ec2types.Image) []string { return ptr(i.Name) },
	"owner-alias":               func(i *ec2types.Image) []string { return ptr(i.ImageOwnerAlias) },
	"owner-id":                  func(i *ec2types.Image) []string { return ptr(i.OwnerId) },
	"platform":                  func(i *ec2types.Image) []string { return str(i.Platform) },
	"public-ssm-parameter-name": func(i *ec2types.Image) []string { return ptr(i.PublicSsmParameterName) },
	"ramdisk-id":                func(i *ec2types.Image) []string { return ptr(i.RamdiskId) },
	"root-device-name":          func(i *ec2types.Image) []string { return ptr(i.RootDeviceName) },
	"root-device-type":          func(i *ec2types.Image) []string { return str(i.RootDeviceType) },
	"source-image-id":           func(i *ec2types.Image) []string { return ptr(i.SourceImageId) },
	"source-image-region":       func(i *ec2types.Image) []string { return ptr(i.SourceImageRegion) },
	"source-instance-id":        func(i *ec2types.Image) []string { return ptr(i.SourceInstanceId) },
	"sriov-net-support":         func(i *ec2types.Image) []string { return ptr(i.SriovNetSupport) },
	"state":                     func(i *ec2types.Image) []string { return str(i.State) },
	"virtualization-type":       func(i *ec2types.Image) []string { return str(i.VirtualizationType) },
	"tag-key": func(i *ec2types.Image) []string {
		var out []string
		for _, t := range i.Tags {
			out = append(out, deref(t.Key))
		}
		return out
	},
	"state-reason-code": func(i *ec2types.Image) []string {
		if i.StateReason == nil {
			return nil
		}
		return ptr(i.StateReason.Code)
	},
	"state-reason-message": func(i *ec2types.Image) []string {
		if i.StateReason == nil {
			return nil
		}
		return ptr(i.StateReason.Message)
	},
	"product-code": func(i *ec2types.Image) []string {
		var out []string
		for _, pc := range i.ProductCodes {
			out = append(out, deref(pc.ProductCodeId))
		}
		return out
	},
	"product-code.type": func(i *ec2types.Image) []string {
		var out []string
		for _, pc := range i.ProductCodes {
			out = append(out, string(pc.ProductCodeType))
		}
		return out
	},
	"block-device-mapping.device-name": bdm(func(m ec2types.BlockDeviceMapping) []string { return ptr(m.DeviceName) }),
	"block-device-mapping.snapshot-id": bdm(func(m ec2types.BlockDeviceMapping) []string {
		if m.Ebs == nil {
			return nil
		}
		return ptr(m.Ebs.SnapshotId)
	}),
	"block-device-mapping.volume-size": bdm(func(m ec2types.BlockDeviceMapping) []string {
		if m.Ebs == nil || m.Ebs.VolumeSize == nil {
			return nil
		}
		return []string{strconv.Itoa(int(*m.Ebs.VolumeSize))}
	}),
	"block-device-mapping.volume-type": bdm(func(m ec2types.BlockDeviceMapping) []string {
		if m.Ebs == nil {
			return nil
		}
		return str(m.Ebs.VolumeType)
	}),
	"block-device-mapping.delete-on-termination": bdm(func(m ec2types.BlockDeviceMapping) []string {
		if m.Ebs == nil {
			return nil
		}
		return boolPtr(m.Ebs.DeleteOnTermination)
	}),
	"block-device-mapping.encrypted": bdm(func(m ec2types.BlockDeviceMapping) []string {
		if m.Ebs == nil {
			return nil
		}
		return boolPtr(m.Ebs.Encrypted)
	}),
}

func bdm(f func(ec2types.BlockDeviceMapping) []string) func(*ec2types.Image) []string {
	return func(i *ec2types.Image) []string {
		var out []string
		for _, m := range i.BlockDeviceMappings {
			out = append(out, f(m)...)
		}
		return out
	}
}

// Small adapters from SDK field shapes to filter values.

func str[T ~string](v T) []string {
	if v == "" {
		return nil
	}
	return []string{string(v)}
}

func ptr(p *string) []string {
	if p == nil {
		return nil
	}
	return []string{*p}
}

func boolPtr(p *bool) []string {
	if p == nil {
		return nil
	}
	return []string{strconv.FormatBool(*p)}
}
