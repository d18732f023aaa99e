package awsemu

import (
	"encoding/json"
	"maps"
	"net/http"
	"sync"
)

// Keys of Stats besides the per-action "service:Action" counters.
const (
	statThrottled = "throttled" // requests answered with a throttling error
	statDenied    = "denied"    // requests answered with an access-denied error (Options.Deny)
	statTotal     = "total"     // all API requests, throttled and denied ones included
)

// stats counts API requests per "service:Action" (e.g. "ec2:DescribeImages").
// Throttled and denied requests count towards their action as well: the
// counters answer "how many calls did the client make", which is what caching
// tests assert.
type stats struct {
	mu     sync.Mutex
	counts map[string]int
}

func (st *stats) count(key string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.counts == nil {
		st.counts = make(map[string]int)
	}
	st.counts[key]++
	if key != statThrottled && key != statDenied {
		st.counts[statTotal]++
	}
}

func (st *stats) snapshot() map[string]int {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := maps.Clone(st.counts)
	if out == nil {
		out = make(map[string]int)
	}
	out[statTotal] += 0
	out[statThrottled] += 0
	return out
}

func (st *stats) reset() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.counts = nil
}

// Stats returns a copy of the request counters: "service:Action" keys plus
// "throttled" and "total" (always present) and "denied" (once a request was
// denied).
func (s *Server) Stats() map[string]int { return s.stats.snapshot() }

// ResetStats zeroes the request counters.
func (s *Server) ResetStats() { s.stats.reset() }

// serveAdmin handles the emulator's own endpoints; they are neither counted,
// delayed nor throttled.
func (s *Server) serveAdmin(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/_emulator/stats" && r.Method == http.MethodGet:
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(s.Stats())
	case r.URL.Path == "/_emulator/reset" && r.Method == http.MethodPost:
		s.ResetStats()
		w.WriteHeader(http.StatusNoContent)
	case r.URL.Path == "/_emulator/stats" || r.URL.Path == "/_emulator/reset":
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	default:
		http.NotFound(w, r)
	}
}
