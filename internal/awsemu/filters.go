package awsemu

import (
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// filter is one EC2 Filter.N: values are ORed, filters are ANDed.
type filter struct {
	name   string
	values []string
}

// matchAny reports whether any of got matches any of the filter's values,
// using EC2's wildcards.
func (f filter) matchAny(got []string) bool {
	for _, v := range f.values {
		for _, g := range got {
			if wildcardMatch(v, g) {
				return true
			}
		}
	}
	return false
}

var (
	filterNameKey  = regexp.MustCompile(`^Filter\.(\d+)\.Name$`)
	filterValueKey = regexp.MustCompile(`^Filter\.(\d+)\.Value\.(\d+)$`)
)

// parseFilters reads Filter.N.Name / Filter.N.Value.M in N, M order. A filter
// that arrives without values matches nothing (the SDK only sends one when
// the caller passes an empty Values list).
func parseFilters(form url.Values) ([]filter, *apiError) {
	type indexed struct {
		name   string
		hasKey bool
		values map[int]string
	}
	byIndex := map[int]*indexed{}
	get := func(n int) *indexed {
		if byIndex[n] == nil {
			byIndex[n] = &indexed{values: map[int]string{}}
		}
		return byIndex[n]
	}
	for key, vals := range form {
		if m := filterNameKey.FindStringSubmatch(key); m != nil {
			n, _ := strconv.Atoi(m[1])
			get(n).name, get(n).hasKey = vals[0], true
		} else if m := filterValueKey.FindStringSubmatch(key); m != nil {
			n, _ := strconv.Atoi(m[1])
			i, _ := strconv.Atoi(m[2])
			get(n).values[i] = vals[0]
		}
	}
	var out []filter
	for _, n := range slices.Sorted(maps.Keys(byIndex)) {
		ix := byIndex[n]
		if !ix.hasKey || ix.name == "" {
			return nil, badRequest("InvalidParameterValue", "The filter 'null' is invalid")
		}
		f := filter{name: ix.name}
		for _, i := range slices.Sorted(maps.Keys(ix.values)) {
			f.values = append(f.values, ix.values[i])
		}
		out = append(out, f)
	}
	return out, nil
}

// indexedValues returns the values of prefix.1, prefix.2, ... in index order
// (the query protocol's flattened lists, e.g. ImageId.N, Owner.N).
func indexedValues(form url.Values, prefix string) []string {
	idx := map[int]string{}
	for key, vals := range form {
		rest, ok := strings.CutPrefix(key, prefix+".")
		if !ok {
			continue
		}
		if n, err := strconv.Atoi(rest); err == nil {
			idx[n] = vals[0]
		}
	}
	var out []string
	for _, n := range slices.Sorted(maps.Keys(idx)) {
		out = append(out, idx[n])
	}
	return out
}

// formBool reads an optional boolean parameter.
func formBool(form url.Values, key string) (bool, *apiError) {
	v := form.Get(key)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, badRequest("InvalidParameterValue", "Value ("+v+") for parameter "+key+" is invalid. Expected: 'true' or 'false'.")
	}
	return b, nil
}

// wildcardMatch implements EC2 filter-value matching: case-sensitive, '*'
// matches any run of characters (also none), '?' exactly one, and a
// backslash makes the next character literal.
func wildcardMatch(pattern, s string) bool {
	type tok struct {
		r    rune
		kind byte // 'l' literal, '*' star, '?' any one
	}
	var toks []tok
	pr := []rune(pattern)
	for i := 0; i < len(pr); i++ {
		switch {
		case pr[i] == '\\' && i+1 < len(pr):
			i++
			toks = append(toks, tok{pr[i], 'l'})
		case pr[i] == '*':
			toks = append(toks, tok{kind: '*'})
		case pr[i] == '?':
			toks = append(toks, tok{kind: '?'})
		default:
			toks = append(toks, tok{pr[i], 'l'})
		}
	}
	sr := []rune(s)
	// Greedy matching with backtracking to the last star: linear in practice.
	ti, si, starT, starS := 0, 0, -1, 0
	for si < len(sr) {
		switch {
		case ti < len(toks) && (toks[ti].kind == '?' || toks[ti].kind == 'l' && toks[ti].r == sr[si]):
			ti++
			si++
		case ti < len(toks) && toks[ti].kind == '*':
			starT, starS = ti, si
			ti++
		case starT >= 0:
			starS++
			ti, si = starT+1, starS
		default:
			return false
		}
	}
	for ti < len(toks) && toks[ti].kind == '*' {
		ti++
	}
	return ti == len(toks)
}
