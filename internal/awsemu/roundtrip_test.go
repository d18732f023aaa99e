package awsemu_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
)

// TestWireRoundTripEveryField fills every field of the served SDK types,
// serves them and decodes them with the real clients: the emulator's
// hand-written serialisation must lose nothing (a missing EC2 element-name
// override, a wrong JSON key or timestamp format shows up here).
func TestWireRoundTripEveryField(t *testing.T) {
	var img ec2types.Image
	fill(reflect.ValueOf(&img).Elem(), "img", 0)
	img.ImageId = aws.String("ami-0123456789abcdef0")
	img.State = ec2types.ImageStateAvailable
	img.DeprecationTime = aws.String("2099-01-01T00:00:00.000Z")

	var it ec2types.InstanceTypeInfo
	fill(reflect.ValueOf(&it).Elem(), "it", 0)
	it.InstanceType = "full.large"

	var cluster ekstypes.Cluster
	fill(reflect.ValueOf(&cluster).Elem(), "cluster", 0)
	cluster.Name = aws.String("full")

	var param ssmtypes.Parameter
	fill(reflect.ValueOf(&param).Elem(), "param", 0)
	param.Name = aws.String("/full/param")

	f := &awsemu.Fixtures{}
	f.AddImages(img)
	f.AddInstanceTypes(it)
	f.AddClusters(cluster)
	f.AddParameters(param)
	e := newEnv(t, f, awsemu.Options{}, nil)
	ctx := context.Background()

	imgs, err := e.EC2.DescribeImages(ctx, &ec2.DescribeImagesInput{ImageIds: []string{*img.ImageId}})
	if err != nil {
		t.Fatal(err)
	}
	if len(imgs.Images) != 1 {
		t.Fatalf("%d images", len(imgs.Images))
	}
	assertSame(t, "Image", img, imgs.Images[0])

	its, err := e.EC2.DescribeInstanceTypes(ctx, &ec2.DescribeInstanceTypesInput{InstanceTypes: []ec2types.InstanceType{it.InstanceType}})
	if err != nil {
		t.Fatal(err)
	}
	assertSame(t, "InstanceTypeInfo", it, its.InstanceTypes[0])

	cl, err := e.EKS.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: cluster.Name})
	if err != nil {
		t.Fatal(err)
	}
	assertSame(t, "Cluster", cluster, *cl.Cluster)

	p, err := e.SSM.GetParameter(ctx, &ssm.GetParameterInput{Name: param.Name})
	if err != nil {
		t.Fatal(err)
	}
	assertSame(t, "Parameter", param, *p.Parameter)
}

// TestDefaultFixturesRoundTrip serves every default fixture and checks the
// clients decode exactly what the JSON files hold.
func TestDefaultFixturesRoundTrip(t *testing.T) {
	f := defaultFixtures(t)
	e := newEnv(t, f, awsemu.Options{}, nil)
	ctx := context.Background()
	for _, want := range f.Images {
		out, err := e.EC2.DescribeImages(ctx, &ec2.DescribeImagesInput{ImageIds: []string{*want.ImageId}, IncludeDisabled: aws.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Images) != 1 {
			t.Fatalf("%s: %d images", *want.Name, len(out.Images))
		}
		assertSame(t, *want.Name, want, out.Images[0])
	}
	its, err := e.EC2.DescribeInstanceTypes(ctx, &ec2.DescribeInstanceTypesInput{})
	if err != nil {
		t.Fatal(err)
	}
	if len(its.InstanceTypes) != len(f.InstanceTypes) {
		t.Fatalf("%d instance types, want %d", len(its.InstanceTypes), len(f.InstanceTypes))
	}
	for i := range f.InstanceTypes {
		assertSame(t, string(f.InstanceTypes[i].InstanceType), f.InstanceTypes[i], its.InstanceTypes[i])
	}
	for _, want := range f.Clusters {
		out, err := e.EKS.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: want.Name})
		if err != nil {
			t.Fatal(err)
		}
		assertSame(t, *want.Name, want, *out.Cluster)
	}
	for _, want := range f.Parameters {
		out, err := e.SSM.GetParameter(ctx, &ssm.GetParameterInput{Name: want.Name})
		if err != nil {
			t.Fatal(err)
		}
		assertSame(t, *want.Name, want, *out.Parameter)
	}
}

var fixedTime = time.Date(2025, 6, 7, 8, 9, 10, 123e6, time.UTC)

// fill sets every exported field to a non-zero value: strings carry XML and
// JSON metacharacters so escaping is exercised too.
func fill(v reflect.Value, path string, depth int) {
	if depth > 8 {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.Type().Elem().Kind() == reflect.Interface {
			return
		}
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), path, depth+1)
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			v.Set(reflect.ValueOf(fixedTime))
			return
		}
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() {
				fill(v.Field(i), path+"."+f.Name, depth+1)
			}
		}
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			fill(s.Index(i), fmt.Sprintf("%s[%d]", path, i), depth+1)
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, val := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k, path+".key", depth+1)
		fill(val, path+".value", depth+1)
		m.SetMapIndex(k, val)
		v.Set(m)
	case reflect.String:
		v.SetString(path + ` <&>"'`)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(7 + depth))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(2.5)
	}
}

func assertSame(t *testing.T, what string, want, got any) {
	t.Helper()
	if path := differ(reflect.ValueOf(want), reflect.ValueOf(got), what); path != "" {
		t.Errorf("%s does not survive the wire: first difference at %s", what, path)
	}
}

// differ compares like reflect.DeepEqual, except that times compare with
// Equal (the SDK decodes into UTC or local zones), and returns the path of
// the first difference.
func differ(a, b reflect.Value, path string) string {
	if a.Kind() != b.Kind() {
		return path + " (kind)"
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return fmt.Sprintf("%s (nil %v vs %v)", path, a.IsNil(), b.IsNil())
			}
			return ""
		}
		return differ(a.Elem(), b.Elem(), path)
	case reflect.Struct:
		if ta, ok := a.Interface().(time.Time); ok {
			if !ta.Equal(b.Interface().(time.Time)) {
				return fmt.Sprintf("%s (%v vs %v)", path, ta, b.Interface())
			}
			return ""
		}
		for i := range a.NumField() {
			if f := a.Type().Field(i); f.IsExported() && f.Name != "ResultMetadata" {
				if p := differ(a.Field(i), b.Field(i), path+"."+f.Name); p != "" {
					return p
				}
			}
		}
		return ""
	case reflect.Slice:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return fmt.Sprintf("%s (len %d vs %d, nil %v vs %v)", path, a.Len(), b.Len(), a.IsNil(), b.IsNil())
		}
		for i := range a.Len() {
			if p := differ(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
		return ""
	case reflect.Map:
		if a.Len() != b.Len() {
			return path + " (map len)"
		}
		for _, k := range a.MapKeys() {
			if p := differ(a.MapIndex(k), b.MapIndex(k), fmt.Sprintf("%s[%v]", path, k)); p != "" {
				return p
			}
		}
		return ""
	default:
		if !reflect.DeepEqual(a.Interface(), b.Interface()) {
			return fmt.Sprintf("%s (%v vs %v)", path, a.Interface(), b.Interface())
		}
		return ""
	}
}
