// Package suggest finds the candidate a misspelling most likely meant, for
// "did you mean" hints, with the edit distance HCL itself uses for its own
// suggestions (github.com/agext/levenshtein).
package suggest

import (
	"strings"

	"github.com/agext/levenshtein"
)

// Closest returns the candidate nearest to s (case-insensitively) when it is
// close enough to be a typo of it: at most a third of s's length apart, and
// at least one edit. It returns "" otherwise, or when s is a candidate.
func Closest(s string, candidates []string) string {
	ls := strings.ToLower(s)
	best, bestD := "", -1
	for _, c := range candidates {
		if c == s {
			return ""
		}
		d := levenshtein.Distance(ls, strings.ToLower(c), nil)
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	if bestD >= 0 && bestD <= max(1, len(s)/3) {
		return best
	}
	return ""
}

// ClosestName is the candidate nearest to an argument name s within HCL's
// own threshold for "Did you mean" on block arguments (fewer than three
// edits, case-sensitive), so a key of a module input gets the suggestion
// the same key in a block would: "tpye" → "type", "minGeneration" →
// "min_generation". It returns "" when none is that close, or when s is a
// candidate.
func ClosestName(s string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		if c == s {
			return ""
		}
		if d := levenshtein.Distance(s, c, nil); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// Hint is Closest as a sentence fragment, ` (did you mean "x"?)`, or "".
func Hint(s string, candidates []string) string {
	if c := Closest(s, candidates); c != "" {
		return ` (did you mean "` + c + `"?)`
	}
	return ""
}

// Distance is the edit distance between a and b (case-sensitive), for hints
// with a threshold of their own.
func Distance(a, b string) int { return levenshtein.Distance(a, b, nil) }
