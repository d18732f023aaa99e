package instancetype

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype/realistic"
)

// A plan's pools ask for the catalogue concurrently. With a region-sized
// catalogue (the research data beside the project: ~1,360 types, 14 pages
// of 100) every one of N pools must get the same catalogue from one full
// read: 14 DescribeInstanceTypes requests at N = 60 and at N = 200, counted
// by the emulator (its /_emulator/stats counters), and one catalogue built
// from them.
func TestLoadReadsTheCatalogueOncePerProcess(t *testing.T) {
	dir, err := realistic.Dir()
	if errors.Is(err, realistic.ErrNoData) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	f, err := realistic.Fixtures(dir)
	if err != nil {
		t.Fatal(err)
	}
	pages := (len(f.InstanceTypes) + 99) / 100
	if len(f.InstanceTypes) < 1300 || pages < 14 {
		t.Fatalf("the research data has %d types; the test needs a region-sized catalogue", len(f.InstanceTypes))
	}
	// Each answer takes 2 ms, so the later pools arrive while the pages are
	// still being read, as in a plan.
	url, emu := awsemutest.StartWith(t, f, awsemu.Options{Latency: 2 * time.Millisecond})
	awsemutest.Setenv(t, url)
	for _, n := range []int{60, 200} {
		t.Run(fmt.Sprint("N=", n), func(t *testing.T) {
			emu.ResetStats()
			cache := awsclient.NewCache(awsclient.NewClients(awsclient.Config{Region: "us-east-1", MaxRetries: 0,
				Endpoints: awsclient.Endpoints{EC2: url}}))
			builds := liveBuilds.Load()
			cats := make([]*Catalogue, n)
			errs := make([]error, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() { cats[i], errs[i] = Load(context.Background(), cache) })
				if i%10 == 9 {
					time.Sleep(time.Millisecond) // -parallelism=10: pools come in waves
				}
			}
			wg.Wait()
			for i := range n {
				if errs[i] != nil {
					t.Fatalf("pool %d: %v", i, errs[i])
				}
				if cats[i] != cats[0] {
					t.Fatalf("pool %d got another catalogue than pool 0: the catalogue was built more than once", i)
				}
			}
			if got := liveBuilds.Load() - builds; got != 1 {
				t.Errorf("the live catalogue was built %d times for one process, want once", got)
			}
			if cats[0].Source != SourceLive || len(cats[0].Types()) != len(f.InstanceTypes) {
				t.Fatalf("catalogue: %s with %d types, want live with %d", cats[0].Source, len(cats[0].Types()), len(f.InstanceTypes))
			}
			st := emu.Stats() // what GET /_emulator/stats answers
			if got := st["ec2:DescribeInstanceTypes"]; got != pages {
				t.Errorf("ec2:DescribeInstanceTypes %d, want one full read of %d pages (stats %v)", got, pages, st)
			}
			if st["total"] != pages {
				t.Errorf("%d requests, want only the catalogue's %d pages (stats %v)", st["total"], pages, st)
			}
		})
	}
}
