package awsemu

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
)

//go:generate go run ./internal/fixturegen -dir .

// The project's own fixture set (see testdata/README.md for its traps).
//
//go:embed testdata/images.json testdata/instance-types.json testdata/parameters.json
//go:embed testdata/parameter-history.json testdata/clusters.json
//go:embed testdata/subnets.json testdata/security-groups.json testdata/instance-type-offerings.json
//go:embed testdata/roles.json testdata/instance-profiles.json testdata/capacity-reservations.json
//go:embed testdata/pricing/pricing-products.json testdata/pricing/spot-price-history.json
var defaultFixtures embed.FS

// Fixture file names inside a fixtures directory; each holds AWS CLI output.
const (
	ImagesFile        = "images.json"         // aws ec2 describe-images
	InstanceTypesFile = "instance-types.json" // aws ec2 describe-instance-types
	ParametersFile    = "parameters.json"     // aws ssm get-parameters (or get-parameter)
	// aws ssm get-parameter-history, of one or several names: earlier
	// versions and labels for version/label selectors ("name:3", "name:prod").
	ParameterHistoryFile = "parameter-history.json"
	ClustersFile         = "clusters.json" // {"Clusters": [<aws eks describe-cluster>.cluster, ...]} (or one describe-cluster output)

	// The network and identity files readiness checks read. Without
	// SubnetsFile the emulator does not serve DescribeSubnets at all (see
	// Fixtures.Subnets); the others simply hold none when missing.
	SubnetsFile               = "subnets.json"                 // aws ec2 describe-subnets
	SecurityGroupsFile        = "security-groups.json"         // aws ec2 describe-security-groups
	InstanceTypeOfferingsFile = "instance-type-offerings.json" // aws ec2 describe-instance-type-offerings (any --location-type)
	CapacityReservationsFile  = "capacity-reservations.json"   // aws ec2 describe-capacity-reservations
	RolesFile                 = "roles.json"                   // aws iam list-roles
	InstanceProfilesFile      = "instance-profiles.json"       // aws iam list-instance-profiles

	// The prices of the scheduling decision. Without the file the call is
	// not served (NotServedCode), as DescribeSubnets without SubnetsFile.
	PricingProductsFile  = "pricing-products.json"   // aws pricing get-products --service-code AmazonEC2 (PriceList entries as JSON strings or objects)
	SpotPriceHistoryFile = "spot-price-history.json" // aws ec2 describe-spot-price-history
)

// Fixtures is what the emulator serves. The fields are the SDK's own types, so
// tests can build or tweak fixtures in Go as well as load them from JSON.
type Fixtures struct {
	Images        []ec2types.Image
	InstanceTypes []ec2types.InstanceTypeInfo
	Parameters    []ssmtypes.Parameter
	// ParameterHistory holds versions of Parameters (earlier ones, and the
	// current one again if it has labels) with their labels, for
	// GetParameter(s) selectors. A parameter without history has only its
	// current version and no labels.
	ParameterHistory []ssmtypes.ParameterHistory
	Clusters         []ekstypes.Cluster

	// Subnets nil means the fixture set has no subnets.json: DescribeSubnets
	// then answers UnsupportedOperation (NotServedCode), which callers
	// read as "this endpoint cannot answer readiness questions", unlike an
	// empty non-nil list (a subnets.json without subnets), which answers
	// that no subnet matches.
	Subnets               []ec2types.Subnet
	SecurityGroups        []ec2types.SecurityGroup
	InstanceTypeOfferings []ec2types.InstanceTypeOffering
	CapacityReservations  []ec2types.CapacityReservation
	Roles                 []iamtypes.Role
	InstanceProfiles      []iamtypes.InstanceProfile

	// PriceList are pricing:GetProducts' entries (each a JSON document, as
	// the API returns them); SpotPriceHistory DescribeSpotPriceHistory's
	// records. nil means not served (see PricingProductsFile).
	PriceList        []string
	SpotPriceHistory []ec2types.SpotPrice
}

// ServesSubnets reports whether the fixture set has subnets (a subnets.json,
// possibly empty), i.e. whether DescribeSubnets is served.
func (f *Fixtures) ServesSubnets() bool { return f.Subnets != nil }

// The file shapes. encoding/json matches keys case-insensitively, so the
// CLI's PascalCase (EC2, SSM) and camelCase (EKS) keys land in the SDK
// types' fields; ISO 8601 timestamps decode into time.Time.
type (
	imagesDoc struct {
		Images []ec2types.Image
	}
	instanceTypesDoc struct {
		InstanceTypes []ec2types.InstanceTypeInfo
	}
	parametersDoc struct {
		Parameters []ssmtypes.Parameter
		Parameter  *ssmtypes.Parameter // a single `aws ssm get-parameter` output
	}
	parameterHistoryDoc struct {
		Parameters []ssmtypes.ParameterHistory
	}
	clustersDoc struct {
		Clusters []ekstypes.Cluster
		Cluster  *ekstypes.Cluster // a single `aws eks describe-cluster` output
	}
	subnetsDoc struct {
		Subnets []ec2types.Subnet
	}
	securityGroupsDoc struct {
		SecurityGroups []ec2types.SecurityGroup
	}
	offeringsDoc struct {
		InstanceTypeOfferings []ec2types.InstanceTypeOffering
	}
	capacityReservationsDoc struct {
		CapacityReservations []ec2types.CapacityReservation
	}
	// The IAM files pass through iamJSON first: the CLI prints policy
	// documents as JSON objects, the SDK types hold them as strings.
	rolesDoc struct {
		Roles []iamtypes.Role
	}
	instanceProfilesDoc struct {
		InstanceProfiles []iamtypes.InstanceProfile
	}
	pricingDoc struct {
		PriceList []json.RawMessage
	}
	spotPricesDoc struct {
		SpotPriceHistory []ec2types.SpotPrice
	}
)

// LoadFixtures reads the fixture files in dir. A missing file means no
// fixtures of that kind; a missing or unreadable dir is an error, because it
// is almost always a typo.
func LoadFixtures(dir string) (*Fixtures, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("fixtures: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("fixtures: %s is not a directory", dir)
	}
	return loadFixtures(os.DirFS(dir), dir)
}

// DefaultFixtures returns a fresh copy of the project's embedded fixture set;
// callers may modify it freely.
func DefaultFixtures() (*Fixtures, error) {
	sub, err := fs.Sub(defaultFixtures, "testdata")
	if err != nil {
		return nil, err
	}
	return loadFixtures(sub, "embedded testdata")
}

// AddPricing adds the prices of the default catalogue (testdata/pricing,
// see its README section): the default set does not serve them, so the
// scheduling decision of every other test keeps Karpenter's static table.
func (f *Fixtures) AddPricing() error {
	sub, err := fs.Sub(defaultFixtures, "testdata/pricing")
	if err != nil {
		return err
	}
	p, err := loadFixtures(sub, "embedded testdata/pricing")
	if err != nil {
		return err
	}
	f.PriceList, f.SpotPriceHistory = p.PriceList, p.SpotPriceHistory
	return nil
}

func loadFixtures(fsys fs.FS, where string) (*Fixtures, error) {
	var (
		f   Fixtures
		img imagesDoc
		it  instanceTypesDoc
		ps  parametersDoc
		ph  parameterHistoryDoc
		cl  clustersDoc
		sn  subnetsDoc
		sg  securityGroupsDoc
		of  offeringsDoc
		cr  capacityReservationsDoc
		ro  rolesDoc
		ip  instanceProfilesDoc
		pl  pricingDoc
		sp  spotPricesDoc
	)
	haveSubnets := false
	for _, file := range []struct {
		name string
		dst  any
	}{
		{ImagesFile, &img}, {InstanceTypesFile, &it}, {ParametersFile, &ps}, {ParameterHistoryFile, &ph}, {ClustersFile, &cl},
		{SubnetsFile, &sn}, {SecurityGroupsFile, &sg}, {InstanceTypeOfferingsFile, &of}, {CapacityReservationsFile, &cr},
		{RolesFile, &ro}, {InstanceProfilesFile, &ip}, {PricingProductsFile, &pl}, {SpotPriceHistoryFile, &sp},
	} {
		data, err := fs.ReadFile(fsys, file.name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("fixtures: %w", err)
		}
		if file.name == RolesFile || file.name == InstanceProfilesFile {
			if data, err = iamJSON(data); err != nil {
				return nil, fmt.Errorf("fixtures: %s: %w", filepath.Join(where, file.name), err)
			}
		}
		if err := json.Unmarshal(data, file.dst); err != nil {
			return nil, fmt.Errorf("fixtures: %s: %w", filepath.Join(where, file.name), err)
		}
		haveSubnets = haveSubnets || file.name == SubnetsFile
		if file.name == PricingProductsFile {
			if f.PriceList, err = priceListOf(pl.PriceList); err != nil {
				return nil, fmt.Errorf("fixtures: %s: %w", filepath.Join(where, file.name), err)
			}
		}
		if file.name == SpotPriceHistoryFile && sp.SpotPriceHistory == nil {
			sp.SpotPriceHistory = []ec2types.SpotPrice{} // the file exists: served
		}
	}
	f.SpotPriceHistory = sp.SpotPriceHistory
	f.Images, f.InstanceTypes, f.Parameters, f.Clusters = img.Images, it.InstanceTypes, ps.Parameters, cl.Clusters
	f.ParameterHistory = ph.Parameters
	f.Subnets, f.SecurityGroups, f.InstanceTypeOfferings = sn.Subnets, sg.SecurityGroups, of.InstanceTypeOfferings
	f.CapacityReservations, f.Roles, f.InstanceProfiles = cr.CapacityReservations, ro.Roles, ip.InstanceProfiles
	if haveSubnets && f.Subnets == nil {
		f.Subnets = []ec2types.Subnet{} // the file exists: served, and empty
	}
	if ps.Parameter != nil {
		f.Parameters = append(f.Parameters, *ps.Parameter)
	}
	if cl.Cluster != nil {
		f.Clusters = append(f.Clusters, *cl.Cluster)
	}
	return &f, nil
}

// priceListOf reads the PriceList of `aws pricing get-products`: JSON
// strings, as the API and the CLI return them, or the documents
// themselves; each must be a product document.
func priceListOf(list []json.RawMessage) ([]string, error) {
	out := make([]string, 0, len(list))
	for i, raw := range list {
		doc := string(raw)
		if len(raw) > 0 && raw[0] == '"' {
			if err := json.Unmarshal(raw, &doc); err != nil {
				return nil, fmt.Errorf("PriceList[%d]: %w", i, err)
			}
		} else {
			var b bytes.Buffer
			if err := json.Compact(&b, raw); err != nil {
				return nil, fmt.Errorf("PriceList[%d]: %w", i, err)
			}
			doc = b.String()
		}
		if _, err := indexProducts([]string{doc}); err != nil {
			return nil, fmt.Errorf("PriceList[%d]: %w", i, err)
		}
		out = append(out, doc)
	}
	return out, nil
}

// AddImages appends images, e.g. thousands of generated ones for pagination
// tests.
func (f *Fixtures) AddImages(imgs ...ec2types.Image) { f.Images = append(f.Images, imgs...) }

// AddInstanceTypes appends instance types.
func (f *Fixtures) AddInstanceTypes(its ...ec2types.InstanceTypeInfo) {
	f.InstanceTypes = append(f.InstanceTypes, its...)
}

// AddParameters appends SSM parameters. Type, Version, DataType and ARN are
// filled in when served if left empty.
func (f *Fixtures) AddParameters(ps ...ssmtypes.Parameter) {
	f.Parameters = append(f.Parameters, ps...)
}

// AddParameterHistory appends versions of parameters, with their labels.
func (f *Fixtures) AddParameterHistory(hs ...ssmtypes.ParameterHistory) {
	f.ParameterHistory = append(f.ParameterHistory, hs...)
}

// AddClusters appends EKS clusters.
func (f *Fixtures) AddClusters(cs ...ekstypes.Cluster) { f.Clusters = append(f.Clusters, cs...) }

// AddSubnets appends subnets; with none, it still makes DescribeSubnets
// served (answering no subnets).
func (f *Fixtures) AddSubnets(ss ...ec2types.Subnet) {
	f.Subnets = append(append([]ec2types.Subnet{}, f.Subnets...), ss...)
}

// AddSecurityGroups appends security groups.
func (f *Fixtures) AddSecurityGroups(gs ...ec2types.SecurityGroup) {
	f.SecurityGroups = append(f.SecurityGroups, gs...)
}

// AddInstanceTypeOfferings appends offerings (any LocationType).
func (f *Fixtures) AddInstanceTypeOfferings(os ...ec2types.InstanceTypeOffering) {
	f.InstanceTypeOfferings = append(f.InstanceTypeOfferings, os...)
}

// AddCapacityReservations appends capacity reservations.
func (f *Fixtures) AddCapacityReservations(cs ...ec2types.CapacityReservation) {
	f.CapacityReservations = append(f.CapacityReservations, cs...)
}

// AddRoles appends IAM roles; AssumeRolePolicyDocument is plain JSON here
// (the emulator URL-encodes it on the wire, as IAM does).
func (f *Fixtures) AddRoles(rs ...iamtypes.Role) { f.Roles = append(f.Roles, rs...) }

// AddInstanceProfiles appends IAM instance profiles.
func (f *Fixtures) AddInstanceProfiles(ps ...iamtypes.InstanceProfile) {
	f.InstanceProfiles = append(f.InstanceProfiles, ps...)
}

// Image returns the image with the given ImageId or Name.
func (f *Fixtures) Image(idOrName string) (ec2types.Image, bool) {
	for _, img := range f.Images {
		if deref(img.ImageId) == idOrName || deref(img.Name) == idOrName {
			return img, true
		}
	}
	return ec2types.Image{}, false
}

// Parameter returns the SSM parameter with the given name.
func (f *Fixtures) Parameter(name string) (ssmtypes.Parameter, bool) {
	for _, p := range f.Parameters {
		if deref(p.Name) == name {
			return p, true
		}
	}
	return ssmtypes.Parameter{}, false
}

func deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

// iamJSON turns the policy documents of `aws iam list-roles` and
// `list-instance-profiles` output (JSON objects, as the CLI prints them
// after URL-decoding) into the JSON strings the SDK types hold. A document
// that already is a string is kept; other top-level keys pass unchanged.
func iamJSON(data []byte) ([]byte, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	for _, key := range []string{"Roles", "InstanceProfiles"} {
		if raw, ok := doc[key]; ok {
			fixed, err := stringifyPolicies(raw, key == "InstanceProfiles")
			if err != nil {
				return nil, fmt.Errorf("%s: %w", key, err)
			}
			doc[key] = fixed
		}
	}
	return json.Marshal(doc)
}

// stringifyPolicies rewrites a list of roles (or of instance profiles, whose
// Roles are rewritten) so that AssumeRolePolicyDocument is a string.
func stringifyPolicies(list json.RawMessage, profiles bool) (json.RawMessage, error) {
	var items []map[string]json.RawMessage
	if err := json.Unmarshal(list, &items); err != nil {
		return nil, err
	}
	for _, item := range items {
		if profiles {
			if roles, ok := item["Roles"]; ok {
				fixed, err := stringifyPolicies(roles, false)
				if err != nil {
					return nil, err
				}
				item["Roles"] = fixed
			}
			continue
		}
		raw, ok := item["AssumeRolePolicyDocument"]
		if !ok || len(raw) == 0 || raw[0] != '{' {
			continue
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, raw); err != nil {
			return nil, err
		}
		s, err := json.Marshal(compact.String())
		if err != nil {
			return nil, err
		}
		item["AssumeRolePolicyDocument"] = s
	}
	return json.Marshal(items)
}
