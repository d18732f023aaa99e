package shape

import (
	"bytes"
	"testing"
	"time"
)

type inner struct {
	Value *string
}

type sample struct {
	Name       *string
	Enum       string
	Count      *int32
	Ratio      *float64
	On         *bool
	When       *time.Time
	Tags       map[string]string
	List       []inner
	Empty      []string
	Missing    []string
	Nested     *inner
	unexported int
}

func ptr[T any](v T) *T { return &v }

func TestMarshalJSONStyles(t *testing.T) {
	when := time.Date(2025, 1, 2, 3, 4, 5, 678e6, time.FixedZone("x", 3600))
	v := sample{
		Name: ptr(`a"<&>`), Count: ptr(int32(3)), Ratio: ptr(2.5), On: ptr(false), When: &when,
		Tags: map[string]string{"z": "1", "a": "2"}, List: []inner{{ptr("x")}}, Empty: []string{}, Nested: &inner{},
		unexported: 7, // not marshalled: absent from every want
	}
	for _, tc := range []struct {
		style JSONStyle
		want  string
	}{
		{SSMWire, `{"Name":"a\"<&>","Count":3,"Ratio":2.5,"On":false,"When":1735783445.678,"Tags":{"a":"2","z":"1"},"List":[{"Value":"x"}],"Empty":[],"Nested":{}}`},
		{CLICamel, `{"name":"a\"<&>","count":3,"ratio":2.5,"on":false,"when":"2025-01-02T02:04:05.678000+00:00","tags":{"a":"2","z":"1"},"list":[{"value":"x"}],"empty":[],"nested":{}}`},
	} {
		if got := string(MarshalJSON(v, tc.style)); got != tc.want {
			t.Errorf("%+v:\n got %s\nwant %s", tc.style, got, tc.want)
		}
	}
}

type Image struct { // named like the EC2 type so the overrides apply
	OwnerId    *string
	Public     *bool
	Tags       []inner
	Hypervisor string
}

func TestWriteEC2XML(t *testing.T) {
	var b bytes.Buffer
	WriteEC2XML(&b, "imagesSet", []Image{{OwnerId: ptr("1<2"), Public: ptr(true), Tags: []inner{{ptr("v")}}}})
	want := `<imagesSet><item><imageOwnerId>1&lt;2</imageOwnerId><isPublic>true</isPublic><tagSet><item><value>v</value></item></tagSet></item></imagesSet>`
	if b.String() != want {
		t.Errorf("got  %s\nwant %s", b.String(), want)
	}
}
