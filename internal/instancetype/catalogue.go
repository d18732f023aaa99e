package instancetype

import (
	"bufio"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/requirements"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/suggest"
)

// Source says which facts served an answer.
type Source string

const (
	// SourceLive: ec2:DescribeInstanceTypes of the provider's region.
	SourceLive Source = "live"
	// SourceEmbedded: the offline family facts (family level only).
	SourceEmbedded Source = "embedded"
)

// Catalogue is the set of instance types an answer is computed from.
type Catalogue struct {
	Source Source
	// Note says why this source serves (e.g. "AWS is not configured"), for
	// diagnostics.
	Note string

	types       []Type // sorted by name
	byName      map[string]int
	families    map[string]Family
	familyNames []string
	// names are the values each name-like label takes across the
	// catalogue, to tell typos ("g5g.medium") from real names.
	names map[string]map[string]bool
	// undecided are the label keys whose values this source does not know
	// per type; requirements on them "may match".
	undecided map[string]bool
	// memo is shared by the shallow copies withNote makes.
	memo *admitMemo
}

// Types returns every type of the catalogue, sorted by name.
func (c *Catalogue) Types() []Type { return c.types }

// Type returns a type by name.
func (c *Catalogue) Type(name string) (Type, bool) {
	i, ok := c.byName[name]
	if !ok {
		return Type{}, false
	}
	return c.types[i], true
}

// Family returns the facts of a family present in the catalogue.
func (c *Catalogue) Family(name string) (Family, bool) {
	f, ok := c.families[name]
	return f, ok
}

//go:embed known_types.txt
var knownTypes string

var embedded = sync.OnceValue(func() *Catalogue {
	c, err := parseKnown(knownTypes)
	if err != nil {
		panic(err) // the embedded file is part of the build; tests cover it
	}
	return c
})

// Embedded returns the offline catalogue.
func Embedded() *Catalogue { return embedded() }

func parseKnown(text string) (*Catalogue, error) {
	families := map[string]Family{}
	var types []Type
	seen := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		legacy := fields[0] == "legacy"
		if legacy {
			fields = fields[1:]
		}
		if len(fields) < 2 {
			return nil, fmt.Errorf("known_types.txt:%d: want a family and its sizes", line)
		}
		name := fields[0]
		f, ok := families[name]
		if !ok {
			if f, ok = derive(name); !ok {
				return nil, fmt.Errorf("known_types.txt:%d: family %q fits neither the naming rule nor an exception", line, name)
			}
			f.Legacy = legacy
		} else if !legacy {
			f.Legacy = false
		}
		for _, size := range fields[1:] {
			if seen[name+"."+size] {
				return nil, fmt.Errorf("known_types.txt:%d: %s.%s listed twice", line, name, size)
			}
			seen[name+"."+size] = true
			f.Sizes = append(f.Sizes, size)
			types = append(types, embeddedType(f, size))
		}
		families[name] = f
	}
	c := newCatalogue(SourceEmbedded, types, families)
	c.undecided = union(offlineUndecided, notEvaluated)
	return c, nil
}

// NewLive builds the live catalogue from DescribeInstanceTypes output. Types
// Karpenter would not offer (no x86_64/arm64) are left out. Family facts come
// from the types; a family's Legacy/Sizes come from what EC2 listed.
func NewLive(infos []ec2types.InstanceTypeInfo) *Catalogue {
	var types []Type
	families := map[string]Family{}
	for _, info := range infos {
		t, ok := FromEC2(info)
		if !ok {
			continue
		}
		types = append(types, t)
		f, seen := families[t.Family]
		if !seen {
			f = Family{Name: t.Family, Architecture: t.Architecture}
			if d, ok := derive(t.Family); ok {
				f.Category, f.Generation = d.Category, d.Generation
			}
		}
		f.Sizes = append(f.Sizes, t.Size)
		if f.GPUManufacturer == "" {
			f.GPUManufacturer = t.GPUManufacturer
		}
		if f.AcceleratorManufacturer == "" {
			f.AcceleratorManufacturer = t.AcceleratorManufacturer
		}
		if info.NeuronInfo != nil {
			f.Accelerator = AcceleratorNeuron
		}
		families[t.Family] = f
	}
	c := newCatalogue(SourceLive, types, families)
	c.undecided = notEvaluated
	return c
}

func newCatalogue(src Source, types []Type, families map[string]Family) *Catalogue {
	sort.Slice(types, func(i, j int) bool { return types[i].Name < types[j].Name })
	c := &Catalogue{Source: src, types: types, byName: make(map[string]int, len(types)), families: families,
		memo: &admitMemo{m: map[string]Admission{}}}
	for i, t := range types {
		c.byName[t.Name] = i
	}
	for n := range families {
		c.familyNames = append(c.familyNames, n)
	}
	sort.Strings(c.familyNames)
	c.names = map[string]map[string]bool{}
	for _, key := range nameKeys {
		c.names[key] = map[string]bool{}
	}
	for _, t := range types {
		for _, key := range nameKeys {
			for _, v := range t.labels.Get(key).Values() {
				if t.labels.Get(key).Operator() == requirements.In {
					c.names[key][v] = true
				}
			}
		}
	}
	return c
}

// nameKeys are the labels whose values are names a user types, checked for
// typos against the catalogue.
var nameKeys = []string{
	requirements.LabelInstanceType, requirements.LabelInstanceFamily, requirements.LabelInstanceSize,
	requirements.LabelInstanceCategory, requirements.LabelArch, requirements.LabelOS,
	requirements.LabelInstanceGPUManufacturer,
}

// Load returns the catalogue for this run: live when AWS is configured
// (awsclient.Clients.Configured), else embedded. A provider configuration
// that is not known yet (plan of a run that creates the cluster) falls back
// to embedded with a note, so checks are made now and never fail on it.
// Other AWS errors are returned: the user asked for live facts.
func Load(ctx context.Context, cache *awsclient.Cache) (*Catalogue, error) {
	if cache == nil || !cache.Clients().Configured() {
		return withNote(Embedded(), "AWS is not configured (no region, profile or endpoint in the provider block, "+
			"and none of AWS_REGION, AWS_DEFAULT_REGION, AWS_PROFILE, AWS_ENDPOINT_URL, AWS_ENDPOINT_URL_EC2 set), "+
			"so the embedded family facts were used"), nil
	}
	infos, err := cache.DescribeInstanceTypes(ctx)
	if errors.Is(err, awsclient.ErrUnknownConfig) {
		return withNote(Embedded(), "the provider's AWS configuration is not known yet, so the embedded family facts were used"), nil
	}
	if err != nil {
		return nil, err
	}
	return liveFor(cache, infos), nil
}

// liveFor caches the live catalogue per provider cache (one per process).
// It is built once: the pools of a plan ask for it concurrently
// (-parallelism=10), and building it from a region's ~1,400 types costs
// ~20 ms and ~9 MB, which each of them would otherwise pay while the first
// build ran.
var liveCatalogues sync.Map // *awsclient.Cache -> *liveEntry

type liveEntry struct {
	once sync.Once
	c    *Catalogue
}

// liveBuilds counts the live catalogues built, for the test that each
// process builds one.
var liveBuilds atomic.Int64

func liveFor(cache *awsclient.Cache, infos []ec2types.InstanceTypeInfo) *Catalogue {
	v, ok := liveCatalogues.Load(cache)
	if !ok {
		v, _ = liveCatalogues.LoadOrStore(cache, &liveEntry{})
	}
	e, _ := v.(*liveEntry) // liveCatalogues holds only *liveEntry
	e.once.Do(func() {
		liveBuilds.Add(1)
		e.c = NewLive(infos)
		e.c.Note = fmt.Sprintf("ec2:DescribeInstanceTypes listed %d instance types Karpenter can use", len(e.c.types))
	})
	return e.c
}

// withNote returns a shallow copy carrying note.
func withNote(c *Catalogue, note string) *Catalogue {
	cp := *c
	cp.Note = note
	return &cp
}

func union(a, b map[string]bool) map[string]bool {
	out := make(map[string]bool, len(a)+len(b))
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

func didYouMean(s string, candidates []string) string { return suggest.Hint(s, candidates) }
