package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"
)

// isLoopbackHost reports whether a listen or Host header's host names
// this machine only.
func isLoopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.IsLoopback()
}

// hostAllowed guards against DNS rebinding: a page of another site whose
// name is made to resolve to the robot would otherwise be same-origin
// with it. On a loopback address only loopback names are answered;
// otherwise IP addresses and local names (one label, or under .local,
// .lan, .home.arpa or .internal), never a public DNS name.
func (s *Server) hostAllowed(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if host == "" {
		return false
	}
	if s.loopback {
		return isLoopbackHost(host)
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return true
	}
	name := strings.ToLower(strings.TrimSuffix(host, "."))
	if !strings.Contains(name, ".") {
		return true
	}
	for _, suffix := range []string{".local", ".lan", ".home.arpa", ".internal"} {
		if strings.HasSuffix(name, suffix) {
			return true
		}
	}
	return false
}

// admitPost checks what every state-changing request must pass, and
// answers it when it fails: a JSON body (so a form on another site cannot
// send it, and a script on another site must ask first, which this
// server never allows), the same origin when the browser says where the
// request comes from, and the rate limit. The body is then bounded.
func (s *Server) admitPost(w http.ResponseWriter, r *http.Request, b *bucket) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		writeError(w, http.StatusUnsupportedMediaType, "send JSON (Content-Type: application/json)")
		return false
	}
	if !sameOrigin(r) {
		writeError(w, http.StatusForbidden, "cross-origin requests may not change the robot")
		return false
	}
	if wait, ok := b.take(s.now()); !ok {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
		writeError(w, http.StatusTooManyRequests, fmt.Sprintf("too many requests; try again in %s", wait.Round(100*time.Millisecond)))
		return false
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	return true
}

// sameOrigin checks what the browser says about where a request comes
// from. Programs that send neither header (curl) are not browsers and
// cannot be tricked into a request by another site.
func sameOrigin(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		return false
	}
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	return o == "http://"+r.Host || o == "https://"+r.Host
}

// decode reads one JSON object of at most maxBody bytes into v, refusing
// unknown fields and anything after the object.
func decode(r *http.Request, v any) error {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return fmt.Errorf("request body over %d bytes", mbe.Limit)
		}
		return fmt.Errorf("reading request body: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("request body is not the JSON object expected: %w", err)
	}
	if dec.More() {
		return errors.New("request body has something after its JSON object")
	}
	return nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":"encoding the answer failed"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// writeError is not inlined: it runs on error paths only, and inlining would
// copy its body into each of its many callers.
//
//go:noinline
func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

// limits are the rate limits, one bucket per kind of request for every
// client together: a robot's page has few visitors, and a global bound
// is what keeps the robot's own work safe.
type limits struct {
	say    *bucket // typed utterances each start a pipeline run
	unlock *bucket // each PIN check is a deliberately slow hash
	other  *bucket
	events *bucket // live page connections
}

func newLimits() limits {
	return limits{
		say:    newBucket(5, time.Second),
		unlock: newBucket(3, 5*time.Second),
		other:  newBucket(10, 500*time.Millisecond),
		events: newBucket(10, 2*time.Second),
	}
}

// bucket is a token bucket: burst tokens, one more every per.
type bucket struct {
	mu     sync.Mutex
	burst  float64
	per    time.Duration
	tokens float64
	last   time.Time
}

func newBucket(burst int, per time.Duration) *bucket {
	return &bucket{burst: float64(burst), per: per, tokens: float64(burst)}
}

// take spends a token; when none is left it says how long until one is.
func (b *bucket) take(now time.Time) (time.Duration, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.last.IsZero() && now.After(b.last) {
		b.tokens = math.Min(b.burst, b.tokens+float64(now.Sub(b.last))/float64(b.per))
	}
	if b.last.IsZero() || now.After(b.last) {
		b.last = now
	}
	if b.tokens >= 1 {
		b.tokens--
		return 0, true
	}
	return time.Duration((1 - b.tokens) * float64(b.per)), false
}
