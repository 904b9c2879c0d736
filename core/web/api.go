package web

import (
	"context"
	_ "embed" // the page's files
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/diag"
)

// The page: plain files, compiled in.
var (
	//go:embed static/index.html
	indexHTML string
	//go:embed static/app.js
	appJS string
	//go:embed static/style.css
	styleCSS string
)

// file serves one of the page's files.
func file(body, contentType string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Cache-Control", "no-cache")
		_, _ = io.WriteString(w, body)
	}
}

// sessionInfo tells the page what it may do.
type sessionInfo struct {
	Version    string `json:"version"`
	Board      string `json:"board"`
	Technician bool   `json:"technician"`
	// Talk is "open" (anyone may talk) or "technician".
	Talk     string `json:"talk"`
	MayTalk  bool   `json:"may_talk"`
	PIN      bool   `json:"pin_configured"`
	IdleLock int    `json:"idle_lock_s,omitempty"`
}

func (s *Server) sessionInfo(technician bool) sessionInfo {
	si := sessionInfo{Version: s.cfg.Version, Board: s.cfg.Board, Technician: technician, Talk: "technician",
		MayTalk: s.loopback || technician}
	if s.loopback {
		si.Talk = "open"
	}
	if sh := s.cfg.Shell; sh != nil {
		si.PIN = sh.HasPIN()
		si.IdleLock = int(sh.IdleLock().Seconds())
	}
	return si
}

func (s *Server) handleSession(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.sessionInfo(s.technician(r)))
}

func (s *Server) handleStatus(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Shell == nil {
		writeError(w, http.StatusNotFound, "this robot has no diagnostics shell to report its status")
		return
	}
	v, err := s.status.get(s.now(), statusCache, func() (any, error) {
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		return s.cfg.Shell.Status(ctx), nil
	})
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, v)
}

func (s *Server) handleSkills(w http.ResponseWriter, r *http.Request) {
	v, err := s.skills.get(s.now(), skillsCache, func() (any, error) { return s.listSkills(r.Context()) })
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, v)
}

func (s *Server) handleConfig(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Shell == nil {
		writeError(w, http.StatusNotFound, "this robot has no configuration keys to show")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"settings": s.cfg.Shell.Config()})
}

// checkUtterance validates typed text: what a person could type in one
// line.
func checkUtterance(text string) (string, error) {
	if !utf8.ValidString(text) {
		return "", errors.New("the text is not valid UTF-8")
	}
	text = strings.TrimSpace(text)
	switch {
	case text == "":
		return "", errors.New("type something to say to the robot")
	case len(text) > MaxTextLen:
		return "", fmt.Errorf("the text is %d bytes; at most %d", len(text), MaxTextLen)
	}
	for _, c := range text {
		if unicode.IsControl(c) {
			return "", fmt.Errorf("the text has a control character (%U)", c)
		}
	}
	return text, nil
}

func (s *Server) handleSay(w http.ResponseWriter, r *http.Request) {
	if !s.mayTalk(r) {
		writeError(w, http.StatusForbidden, "talking to the robot from another machine needs technician mode: unlock with the PIN")
		return
	}
	var req struct {
		Text string `json:"text"`
	}
	if err := decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	text, err := checkUtterance(req.Text)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	s.inputMu.Lock()
	s.nextInput++
	id := "web-" + strconv.FormatUint(s.nextInput, 10)
	s.inputMu.Unlock()
	m := bus.NewMessage(topicHandle, map[string]any{"utterances": []any{text}})
	m.Context[bus.KeySource] = "web"
	m.Context[keyInput] = id
	if err := s.publish(r.Context(), m); err != nil {
		writeError(w, http.StatusServiceUnavailable, "the robot did not take the utterance: "+err.Error())
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]string{"input": id})
}

// handleStop stops whatever the robot is doing, as saying "stop" does:
// anyone who may talk may stop.
func (s *Server) handleStop(w http.ResponseWriter, r *http.Request) {
	if !s.mayTalk(r) {
		writeError(w, http.StatusForbidden, "stopping the robot from another machine needs technician mode: unlock with the PIN")
		return
	}
	var req struct{}
	if err := decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	m := bus.NewMessage(topicStop, map[string]any{})
	m.Context[bus.KeySource] = "web"
	if err := s.publish(r.Context(), m); err != nil {
		writeError(w, http.StatusServiceUnavailable, "the robot did not take the stop: "+err.Error())
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]bool{"stopping": true})
}

// publish puts m on the bus, bounded: a wedged subscriber must not hold
// the request forever.
func (s *Server) publish(ctx context.Context, m bus.Message) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	return s.cfg.Bus.Publish(ctx, m)
}

func (s *Server) handleUnlock(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Shell == nil || !s.cfg.Shell.HasPIN() {
		writeError(w, http.StatusConflict, "no technician PIN is configured on this robot (see `jibod shell --hash-pin`)")
		return
	}
	var req struct {
		PIN string `json:"pin"`
	}
	if err := decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if len(req.PIN) > 64 {
		writeError(w, http.StatusBadRequest, "a PIN has at most 12 digits")
		return
	}
	select {
	case s.unlocking <- struct{}{}:
		defer func() { <-s.unlocking }()
	default:
		writeError(w, http.StatusTooManyRequests, "another PIN is being checked; try again")
		return
	}
	err := s.cfg.Shell.VerifyPIN(r.Context(), strings.TrimSpace(req.PIN), "web "+r.RemoteAddr)
	switch {
	case err == nil:
	case errors.Is(err, diag.ErrLockedOut):
		writeError(w, http.StatusTooManyRequests, err.Error())
		return
	case errors.Is(err, diag.ErrWrongPIN):
		writeError(w, http.StatusForbidden, err.Error())
		return
	case errors.Is(err, diag.ErrNoPIN):
		writeError(w, http.StatusConflict, err.Error())
		return
	default:
		writeError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	tok, err := s.tech.add(s.now())
	if err != nil {
		writeError(w, http.StatusInternalServerError, "starting technician mode: "+err.Error())
		return
	}
	http.SetCookie(w, techCookieFor(tok, 0))
	writeJSON(w, http.StatusOK, s.sessionInfo(true))
}

func (s *Server) handleLock(w http.ResponseWriter, r *http.Request) {
	var req struct{}
	if err := decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if c, err := r.Cookie(techCookie); err == nil {
		s.tech.remove(c.Value)
	}
	http.SetCookie(w, techCookieFor("", -1))
	writeJSON(w, http.StatusOK, s.sessionInfo(false))
}

func (s *Server) handleSetConfig(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Shell == nil {
		writeError(w, http.StatusNotFound, "this robot has no configuration keys to set")
		return
	}
	if !s.technician(r) {
		writeError(w, http.StatusForbidden, "changing the configuration needs technician mode: unlock with the PIN")
		return
	}
	var req struct {
		Set map[string]string `json:"set"`
	}
	if err := decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if len(req.Set) == 0 || len(req.Set) > 16 {
		writeError(w, http.StatusBadRequest, `give 1 to 16 keys to set, as {"set": {"volume": "5"}}`)
		return
	}
	pairs := make([][2]string, 0, len(req.Set))
	for k, v := range req.Set {
		pairs = append(pairs, [2]string{k, v})
	}
	sort.Slice(pairs, func(i, j int) bool { return pairs[i][0] < pairs[j][0] })
	changes, err := s.cfg.Shell.SetConfig(pairs, "web "+r.RemoteAddr)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"changes": changes})
}

// cached keeps an answer for a while, so pages polling cannot make the
// robot do the work more often than that. One caller computes at a
// time; the others wait for its answer.
type cached struct {
	mu sync.Mutex
	at time.Time
	v  any
}

func (c *cached) get(now time.Time, ttl time.Duration, compute func() (any, error)) (any, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.at.IsZero() && now.Sub(c.at) < ttl && now.Sub(c.at) >= 0 {
		return c.v, nil
	}
	v, err := compute()
	if err != nil {
		return nil, err // not kept: the next caller tries again
	}
	c.v, c.at = v, now
	return v, nil
}
