package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"time"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/internal/shape"
)

// Accounts. The EKS and Bottlerocket owners are the real us-east-1 ones;
// the Windows owner is Amazon's general Windows AMI account (see README).
const (
	accountID         = "123456789012"
	ownerEKS          = "602401143452"
	ownerBottlerocket = "092701018921"
	ownerWindows      = "801119661308"
	region            = "us-east-1"
)

// Output paths, relative to the awsemu package directory.
const (
	imagesPath        = "testdata/images.json"
	instanceTypesPath = "testdata/instance-types.json"
	parametersPath    = "testdata/parameters.json"
	historyPath       = "testdata/parameter-history.json"
	clustersPath      = "testdata/clusters.json"
	subnetsPath       = "testdata/subnets.json"
	groupsPath        = "testdata/security-groups.json"
	offeringsPath     = "testdata/instance-type-offerings.json"
	reservationsPath  = "testdata/capacity-reservations.json"
	rolesPath         = "testdata/roles.json"
	profilesPath      = "testdata/instance-profiles.json"
	indexPath         = "fixture_index.go"
)

// generate returns every generated file by its path.
func generate() (map[string][]byte, error) {
	images := append(eksImages(), customImages()...)
	params, history := parameters(images)
	index, err := indexSource(images)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{indexPath: index}
	docs := map[string][]byte{
		imagesPath:        shape.MarshalJSON(struct{ Images []ec2types.Image }{images}, shape.CLIPascal),
		instanceTypesPath: shape.MarshalJSON(struct{ InstanceTypes []ec2types.InstanceTypeInfo }{instanceTypes()}, shape.CLIPascal),
		parametersPath:    shape.MarshalJSON(struct{ Parameters []ssmtypes.Parameter }{params}, shape.CLIPascal),
		// `aws ssm get-parameter-history` prints {"Parameters": [...]} for
		// one name; the file holds the histories of several.
		historyPath: shape.MarshalJSON(struct{ Parameters []ssmtypes.ParameterHistory }{history}, shape.CLIPascal),
		// `aws eks describe-cluster` prints the cluster in camelCase; the
		// file wraps a list of them under "Clusters".
		clustersPath: append(append([]byte(`{"Clusters":`), shape.MarshalJSON(clusters(), shape.CLICamel)...), '}'),
		subnetsPath:  shape.MarshalJSON(struct{ Subnets []ec2types.Subnet }{subnets()}, shape.CLIPascal),
		groupsPath:   shape.MarshalJSON(struct{ SecurityGroups []ec2types.SecurityGroup }{securityGroups()}, shape.CLIPascal),
		offeringsPath: shape.MarshalJSON(struct {
			InstanceTypeOfferings []ec2types.InstanceTypeOffering
		}{offerings()}, shape.CLIPascal),
		reservationsPath: shape.MarshalJSON(struct {
			CapacityReservations []ec2types.CapacityReservation
		}{capacityReservations()}, shape.CLIPascal),
	}
	// `aws iam list-roles` prints policy documents as JSON objects.
	if docs[rolesPath], err = policiesAsObjects(shape.MarshalJSON(struct{ Roles []iamtypes.Role }{roles()}, shape.CLIPascal)); err != nil {
		return nil, err
	}
	if docs[profilesPath], err = policiesAsObjects(shape.MarshalJSON(struct {
		InstanceProfiles []iamtypes.InstanceProfile
	}{instanceProfiles()}, shape.CLIPascal)); err != nil {
		return nil, err
	}
	products, err := pricingProducts()
	if err != nil {
		return nil, err
	}
	// `aws pricing get-products` prints each PriceList entry as a JSON
	// string, as the API returns it.
	if docs[pricingProductsPath], err = json.Marshal(struct {
		FormatVersion string
		PriceList     []string
	}{"aws_v1", products}); err != nil {
		return nil, err
	}
	docs[spotHistoryPath] = shape.MarshalJSON(struct{ SpotPriceHistory []ec2types.SpotPrice }{spotHistory()}, shape.CLIPascal)
	for path, doc := range docs {
		if files[path], err = cliJSON(doc); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// cliJSON indents like the AWS CLI does (4 spaces) and ends with a newline.
func cliJSON(compact []byte) ([]byte, error) {
	var b bytes.Buffer
	if err := json.Indent(&b, compact, "", "    "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// digest is the root of every derived value, namespaced so ids never collide
// across kinds.
func digest(kind, name string) []byte {
	sum := sha256.Sum256([]byte("awsemu/" + kind + "/" + name))
	return sum[:]
}

// amiID is "ami-0" + 16 hex digits: 17 hex digits like real ids.
func amiID(name string) string { return "ami-0" + hex.EncodeToString(digest("ami", name))[:16] }

func snapshotID(name, device string) string {
	return "snap-0" + hex.EncodeToString(digest("snap", name+device))[:16]
}

// timeOfDay spreads images over the day so ties only happen on purpose.
func timeOfDay(name string) time.Duration {
	return time.Duration(binary.BigEndian.Uint32(digest("time", name))%86400) * time.Second
}

func date(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// ec2Time is the format EC2 uses for CreationDate and DeprecationTime.
func ec2Time(t time.Time) *string {
	s := t.UTC().Format("2006-01-02T15:04:05.000Z")
	return &s
}

func ptr[T any](v T) *T { return &v }

// hexOf derives n hex digits for resource ids other than AMIs and snapshots.
func hexOf(kind, name string, n int) string { return hex.EncodeToString(digest(kind, name))[:n] }

// policiesAsObjects replaces every "AssumeRolePolicyDocument" string of an
// IAM document by the JSON object it holds, as the AWS CLI prints it.
func policiesAsObjects(doc []byte) ([]byte, error) {
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return nil, err
	}
	var walk func(any) error
	walk = func(v any) error {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if s, ok := e.(string); ok && k == "AssumeRolePolicyDocument" {
					var obj any
					if err := json.Unmarshal([]byte(s), &obj); err != nil {
						return err
					}
					x[k] = obj
					continue
				}
				if err := walk(e); err != nil {
					return err
				}
			}
		case []any:
			for _, e := range x {
				if err := walk(e); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}
