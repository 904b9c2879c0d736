package web

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"
)

var (
	errTooManyPages = errors.New("too many pages are watching the robot")
	errClosing      = errors.New("the robot's page is closing")
)

// handleEvents streams the robot's updates to one page as server-sent
// events until the page goes, falls silent or the server closes.
func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request) {
	if wait, ok := s.limits.events.take(s.now()); !ok {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
		writeError(w, http.StatusTooManyRequests, "too many live connections opened; try again shortly")
		return
	}
	c, first, err := s.live.join(s.cfg.MaxClients)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	defer s.live.leave(c)
	err = s.stream(r.Context(), w, c, first)
	s.log.Debug("web: live page gone", "from", r.RemoteAddr, "why", err)
}

// stream writes first, then every update queued for c, until ctx ends,
// the server closes or a write fails; it says why it ended.
func (s *Server) stream(ctx context.Context, w http.ResponseWriter, c *client, first [][]byte) error {
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	write := func(b []byte) error {
		if err := rc.SetWriteDeadline(time.Now().Add(writeTimeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return err
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
		return rc.Flush()
	}
	if err := write([]byte("retry: 3000\n\n")); err != nil {
		return err
	}
	for _, f := range first {
		if err := write(f); err != nil {
			return err
		}
	}
	ping := time.NewTicker(keepAlive)
	defer ping.Stop()
	for {
		var err error
		select {
		case f := <-c.ch:
			err = write(f)
			if n := c.dropped.Swap(0); n > 0 && err == nil {
				err = write(frame("note", map[string]string{
					"text": fmt.Sprintf("%d updates were dropped: this page fell behind the robot", n)}))
			}
		case <-ping.C:
			err = write([]byte(": still here\n\n"))
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-s.live.quit:
			return errClosing
		}
		if err != nil {
			return err
		}
	}
}
