package awsemu

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// pageRequest is the pagination part of an EC2 Describe* call.
type pageRequest struct {
	maxResults int // 0: not given
	token      string
	query      string // fingerprint of everything else in the request
}

// parsePageRequest validates MaxResults against [lo, hi] as EC2 does.
func parsePageRequest(form url.Values, lo, hi int) (pageRequest, *apiError) {
	pr := pageRequest{token: form.Get("NextToken"), query: queryFingerprint(form)}
	if v := form.Get("MaxResults"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < lo || n > hi {
			return pr, badRequest("InvalidParameterValue",
				fmt.Sprintf("Value ( %s ) for parameter maxResults is invalid. Expecting a value between %d and %d.", v, lo, hi))
		}
		pr.maxResults = n
	}
	return pr, nil
}

// page returns the slice bounds of the requested page of total results and
// the token of the next one ("" on the last page). pageSize applies when the
// caller gave no MaxResults; 0 means everything at once.
//
// Tokens are opaque to clients but bind to the query they came from, so a
// token replayed with different filters is rejected like EC2 does.
func (pr pageRequest) page(total, pageSize int) (start, end int, next string, err *apiError) {
	if pr.token != "" {
		start, err = pr.decodeToken()
		if err != nil {
			return 0, 0, "", err
		}
	}
	size := pr.maxResults
	if size == 0 {
		size = pageSize
	}
	start = min(start, total)
	end = total
	if size > 0 {
		end = min(start+size, total)
	}
	if end < total {
		next = base64.RawURLEncoding.EncodeToString([]byte("awsemu1|" + pr.query + "|" + strconv.Itoa(end)))
	}
	return start, end, next, nil
}

func (pr pageRequest) decodeToken() (int, *apiError) {
	invalid := badRequest("InvalidPaginationToken", "The pagination token is invalid.")
	raw, err := base64.RawURLEncoding.DecodeString(pr.token)
	if err != nil {
		return 0, invalid
	}
	parts := strings.Split(string(raw), "|")
	if len(parts) != 3 || parts[0] != "awsemu1" || parts[1] != pr.query {
		return 0, invalid
	}
	n, err := strconv.Atoi(parts[2])
	if err != nil || n < 0 {
		return 0, invalid
	}
	return n, nil
}

// queryFingerprint hashes the request without its pagination parameters.
func queryFingerprint(form url.Values) string {
	h := sha256.New()
	for _, k := range slices.Sorted(maps.Keys(form)) {
		if k == "NextToken" || k == "MaxResults" {
			continue
		}
		_, _ = fmt.Fprintf(h, "%s=%q;", k, form[k]) // hash.Hash writes never fail
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}
