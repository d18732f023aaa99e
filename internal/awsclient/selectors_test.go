package awsclient_test

import (
	"context"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
)

// The Cache reads version and label selectors from the emulator as it does
// from AWS: each name asked, selector included, is found with the value of
// that version, or not found when the version or label does not exist. (The
// contract test compares with moto, which cannot answer selectors this way.)
func TestGetParametersSelectorsAgainstEmulator(t *testing.T) {
	url, _ := awsemutest.Start(t)
	awsemutest.Setenv(t, url) // credentials
	newCache := func() *awsclient.Cache {
		return awsclient.NewCache(awsclient.NewClients(awsclient.Config{
			Region:     "us-east-1",
			Endpoints:  awsclient.Endpoints{EC2: url, SSM: url, EKS: url, STS: url},
			MaxRetries: 2,
		}))
	}
	selectors := map[string]awsclient.Parameter{
		awsemu.ParamCustomX86 + ":2":        {Value: awsemu.CustomAvailableOldID, Found: true},
		awsemu.ParamCustomX86 + ":prod":     {Value: awsemu.CustomAvailableOldID, Found: true},
		awsemu.ParamCustomX86 + ":1":        {Value: awsemu.CustomDeregisteredID, Found: true},
		awsemu.ParamCustomX86 + ":rollback": {Value: awsemu.CustomDeregisteredID, Found: true},
		awsemu.ParamCustomArm64 + ":1":      {Value: awsemu.CustomArm64ID, Found: true},
		awsemu.ParamCustomX86 + ":3":        {},
		awsemu.ParamCustomX86 + ":staging":  {},
		"/kt/no-such-parameter:1":           {},
	}
	plain := map[string]awsclient.Parameter{
		awsemu.ParamCustomX86: {Value: awsemu.CustomAvailableOldID, Found: true},
	}
	check := func(t *testing.T, c *awsclient.Cache, want map[string]awsclient.Parameter) {
		t.Helper()
		var names []string
		for n := range want {
			names = append(names, n)
		}
		got, err := c.GetParameters(context.Background(), names)
		if err != nil {
			t.Fatal(err)
		}
		for n, w := range want {
			w.Name = n
			if got[n] != w {
				t.Errorf("%s: got %+v, want %+v", n, got[n], w)
			}
		}
	}

	t.Run("selectors, then the plain name", func(t *testing.T) {
		c := newCache()
		check(t, c, selectors)
		check(t, c, plain)
	})
	t.Run("plain name and selectors in one batch", func(t *testing.T) {
		// An answer with a Selector (Name "/x", Selector ":1") must not be
		// filed under the plain "/x" asked in the same batch.
		all := map[string]awsclient.Parameter{}
		for n, p := range selectors {
			all[n] = p
		}
		for n, p := range plain {
			all[n] = p
		}
		check(t, newCache(), all)
	})
}
