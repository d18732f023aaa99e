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
