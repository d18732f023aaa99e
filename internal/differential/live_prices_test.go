package differential

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/log"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/aws/karpenter-provider-aws/pkg/providers/pricing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/capacity"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling/schedulingtest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// TestLivePricesAreKarpenters: on the same emulator answers (the
// catalogue's Price List products and spot price history), the prices the
// decision uses equal karpenter-provider-aws's own pricing provider's,
// updated as its controller updates it with plain SDK clients: for every
// type of the catalogue, the on-demand price (or its absence), and every
// available offering's price, spot per zone, with a spot offering exactly
// where Karpenter has a spot price.
func TestLivePricesAreKarpenters(t *testing.T) {
	f, err := awsemu.DefaultFixtures()
	if err != nil {
		t.Fatal(err)
	}
	if err := f.AddPricing(); err != nil {
		t.Fatal(err)
	}
	e := schedulingtest.Start(t, f)
	ctx := log.IntoContext(context.Background(), logr.Discard())

	cfg := awsemutest.Config(e.URL)
	ref := pricing.NewDefaultProvider(pricing.NewAPI(cfg), ec2.NewFromConfig(cfg), cfg.Region, false)
	if err := ref.UpdateOnDemandPricing(ctx); err != nil {
		t.Fatal(err)
	}
	if err := ref.UpdateSpotPricing(ctx); err != nil {
		t.Fatal(err)
	}

	c := awsclient.NewCache(awsclient.NewClients(awsclient.Config{Region: "us-east-1", MaxRetries: 0,
		Endpoints: awsclient.Endpoints{EC2: e.URL, Pricing: e.URL}}))
	p, err := c.Prices(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !p.OnDemand.Live || !p.Spot.Live {
		t.Fatalf("the engine's reads: %+v %+v", p.OnDemand, p.Spot)
	}
	src := scheduling.LiveSource(p.Provider, p.Region, scheduling.PriceRead{Live: true}, scheduling.PriceRead{Live: true})

	var m manifest.EC2NodeClass
	doc := nodeClass("c", "al2023@latest", "")
	mustDecode(t, []byte(doc), &m)
	its, err := e.Catalogue.PricedInstanceTypes(m, e.Status(t, m), capacity.DefaultSettings(), versions.DefaultKarpenter, src.Pricer)
	if err != nil {
		t.Fatal(err)
	}
	live, offerings := 0, 0
	for _, info := range e.Catalogue.Types {
		name := info.InstanceType
		want, wok := ref.OnDemandPrice(name)
		got, gok := src.Pricer.OnDemandPrice(name)
		if want != got || wok != gok {
			t.Errorf("%s on-demand: %v %v, Karpenter %v %v", name, got, gok, want, wok)
		}
		if static, _ := scheduling.PricesFor("us-east-1").OnDemand(string(name)); wok && want != static {
			live++
		}
	}
	for _, it := range its {
		spotZones := map[string]bool{}
		for _, o := range it.Offerings {
			offerings++
			zone := o.Zone()
			var want float64
			var ok bool
			switch o.CapacityType() {
			case karpv1.CapacityTypeSpot:
				want, ok = ref.SpotPrice(ec2types.InstanceType(it.Name), zone)
				spotZones[zone] = true
			case karpv1.CapacityTypeOnDemand:
				want, ok = ref.OnDemandPrice(ec2types.InstanceType(it.Name))
			default:
				continue
			}
			if !ok || o.Price != want {
				t.Errorf("%s %s %s: %v, Karpenter %v %v", it.Name, o.CapacityType(), zone, o.Price, want, ok)
			}
		}
		if !it.Requirements.Get(karpv1.CapacityTypeLabelKey).Has(karpv1.CapacityTypeSpot) || len(it.Offerings) == 0 {
			continue
		}
		for _, zone := range it.Requirements.Get("topology.kubernetes.io/zone").Values() {
			if _, ok := ref.SpotPrice(ec2types.InstanceType(it.Name), zone); ok != spotZones[zone] {
				t.Errorf("%s spot in %s: offering %v, Karpenter's price %v", it.Name, zone, spotZones[zone], ok)
			}
		}
	}
	if live < 20 || offerings < 100 {
		t.Errorf("only %d live on-demand prices and %d offerings compared", live, offerings)
	}
	t.Logf("%d types, %d live on-demand prices, %d offerings", len(e.Catalogue.Types), live, offerings)
}

// TestStaticTableDateIsKarpenters: the date the cost's source names is
// the one the pinned module's generated table carries.
func TestStaticTableDateIsKarpenters(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/aws/karpenter-provider-aws").Output()
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "pkg/providers/pricing/zz_generated.pricing_aws.go"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "// generated at " + scheduling.StaticTableDate + "T"; !strings.Contains(string(src), want) {
		t.Errorf("the table is not generated on %s: %q not in the module's file", scheduling.StaticTableDate, want)
	}
}
