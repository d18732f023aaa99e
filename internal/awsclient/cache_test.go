package awsclient

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// SSM answers a parameter asked for with a version selector ("/x:3") under
// its plain name with Selector ":3"; the cache must file it under what was
// asked.
func TestGetParametersMapsSelectorsBack(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Names []string }
		_ = json.NewDecoder(r.Body).Decode(&in)
		out := map[string]any{"Parameters": []any{}, "InvalidParameters": []string{}}
		for _, n := range in.Names {
			switch {
			case n == "/x:3":
				out["Parameters"] = append(out["Parameters"].([]any), map[string]any{"Name": "/x", "Selector": ":3", "Value": "ami-3", "Type": "String", "Version": 3})
			case n == "/y":
				out["Parameters"] = append(out["Parameters"].([]any), map[string]any{"Name": "/y", "Value": "ami-y", "Type": "String", "Version": 1})
			case strings.HasPrefix(n, "arn:"):
				out["Parameters"] = append(out["Parameters"].([]any), map[string]any{"Name": "/z", "ARN": n, "Value": "ami-z", "Type": "String", "Version": 1})
			default:
				out["InvalidParameters"] = append(out["InvalidParameters"].([]string), n)
			}
		}
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		_ = json.NewEncoder(w).Encode(out)
	}))
	defer srv.Close()
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	c := NewCache(NewClients(Config{Region: "us-east-1", Endpoints: Endpoints{SSM: srv.URL}, MaxRetries: 0}))
	arn := "arn:aws:ssm:us-east-1:123456789012:parameter/z"
	got, err := c.GetParameters(context.Background(), []string{"/x:3", "/y", arn, "/missing"})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"/x:3": "ami-3", "/y": "ami-y", arn: "ami-z"} {
		if p := got[name]; !p.Found || p.Value != want {
			t.Errorf("%s: %+v, want %s", name, p, want)
		}
	}
	if got["/missing"].Found {
		t.Error("/missing must be reported not found")
	}
}

// Queries that ask EC2 different questions have different keys: an owner
// written "amazon,self" (one owner EC2 rejects) is not the owners [self,
// amazon], and order inside owners and values does not matter.
func TestImageQueryKey(t *testing.T) {
	def := ImageQuery{Owners: []string{"self", "amazon"}, Filters: []Filter{{Name: "name", Values: []string{"a*", "b*"}}}}
	same := ImageQuery{Owners: []string{"amazon", "self"}, Filters: []Filter{{Name: "name", Values: []string{"b*", "a*"}}}}
	if def.Key() != same.Key() {
		t.Errorf("%s != %s", def.Key(), same.Key())
	}
	for _, other := range []ImageQuery{
		{Owners: []string{"amazon,self"}, Filters: def.Filters},
		{Owners: def.Owners, Filters: []Filter{{Name: "name", Values: []string{"a*,b*"}}}},
		{Owners: def.Owners, Filters: def.Filters, IncludeDisabled: true},
		{Owners: def.Owners, Filters: def.Filters, IncludeDeprecated: true},
	} {
		if other.Key() == def.Key() {
			t.Errorf("%+v has the key of %+v: %s", other, def, def.Key())
		}
	}
}
