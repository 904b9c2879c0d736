package web

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"sync"
	"time"
)

// Technician sessions: unlocking with the PIN gives the browser a random
// token in a cookie the page's scripts cannot read and other sites'
// requests do not carry. Only the token's hash is kept, so the map's
// lookups reveal nothing by their timing.
const (
	techCookie = "jibod_technician"
	// maxTechSessions bounds the unlocked browsers; a new one pushes out
	// the one used longest ago.
	maxTechSessions = 4
	tokenBytes      = 32
)

type techSessions struct {
	mu   sync.Mutex
	last map[[sha256.Size]byte]time.Time // token hash → last use
}

func newTechSessions() *techSessions {
	return &techSessions{last: map[[sha256.Size]byte]time.Time{}}
}

// add starts a session and returns its token.
func (t *techSessions) add(now time.Time) (string, error) {
	b := make([]byte, tokenBytes)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	tok := base64.RawURLEncoding.EncodeToString(b)
	t.mu.Lock()
	defer t.mu.Unlock()
	for len(t.last) >= maxTechSessions {
		var oldest [sha256.Size]byte
		first := true
		for k, at := range t.last {
			if first || at.Before(t.last[oldest]) {
				oldest, first = k, false
			}
		}
		delete(t.last, oldest)
	}
	t.last[sha256.Sum256([]byte(tok))] = now
	return tok, nil
}

// check reports whether tok is a session used within idle, and marks it
// used now; an idle one is forgotten.
func (t *techSessions) check(tok string, now time.Time, idle time.Duration) bool {
	if tok == "" {
		return false
	}
	k := sha256.Sum256([]byte(tok))
	t.mu.Lock()
	defer t.mu.Unlock()
	at, ok := t.last[k]
	if !ok {
		return false
	}
	if now.Sub(at) > idle {
		delete(t.last, k)
		return false
	}
	t.last[k] = now
	return true
}

func (t *techSessions) remove(tok string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.last, sha256.Sum256([]byte(tok)))
}

// technician reports whether r comes from an unlocked browser.
func (s *Server) technician(r *http.Request) bool {
	if s.cfg.Shell == nil {
		return false
	}
	c, err := r.Cookie(techCookie)
	if err != nil {
		return false
	}
	return s.tech.check(c.Value, s.now(), s.cfg.Shell.IdleLock())
}

// mayTalk reports whether r may talk to the robot: anyone on a loopback
// address, a technician otherwise.
func (s *Server) mayTalk(r *http.Request) bool { return s.loopback || s.technician(r) }

func techCookieFor(tok string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: techCookie, Value: tok, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, MaxAge: maxAge}
}
