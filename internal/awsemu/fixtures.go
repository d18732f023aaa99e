package awsemu

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
)

//go:generate go run ./internal/fixturegen -dir .

// The project's own fixture set (see testdata/README.md for its traps).
//
//go:embed testdata/images.json testdata/instance-types.json testdata/parameters.json
//go:embed testdata/parameter-history.json testdata/clusters.json
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
}

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

func loadFixtures(fsys fs.FS, where string) (*Fixtures, error) {
	var (
		f   Fixtures
		img imagesDoc
		it  instanceTypesDoc
		ps  parametersDoc
		ph  parameterHistoryDoc
		cl  clustersDoc
	)
	for _, file := range []struct {
		name string
		dst  any
	}{{ImagesFile, &img}, {InstanceTypesFile, &it}, {ParametersFile, &ps}, {ParameterHistoryFile, &ph}, {ClustersFile, &cl}} {
		data, err := fs.ReadFile(fsys, file.name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("fixtures: %w", err)
		}
		if err := json.Unmarshal(data, file.dst); err != nil {
			return nil, fmt.Errorf("fixtures: %s: %w", filepath.Join(where, file.name), err)
		}
	}
	f.Images, f.InstanceTypes, f.Parameters, f.Clusters = img.Images, it.InstanceTypes, ps.Parameters, cl.Clusters
	f.ParameterHistory = ph.Parameters
	if ps.Parameter != nil {
		f.Parameters = append(f.Parameters, *ps.Parameter)
	}
	if cl.Cluster != nil {
		f.Clusters = append(f.Clusters, *cl.Cluster)
	}
	return &f, nil
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
