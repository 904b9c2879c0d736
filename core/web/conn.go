package web

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"
)

// The page is served one request per connection: net/http parses each
// request (http.ReadRequest) and the answer is written with its headers
// and "Connection: close". net/http's Server is not used because its
// connection machinery (keep-alives, pipelining, HTTP/2 upgrades, content
// sniffing, the ServeMux it always links) adds about 130 KB to the ARM
// binary, which its size limit cannot afford (docs/web.md); a page of a
// few small requests and one live stream needs none of it.

// Connection limits.
const (
	// maxConns bounds the connections open at once; more are closed at
	// once.
	maxConns = 64
	// maxRequest bounds a request's head and body together.
	maxRequest = 16 << 10
	// requestTimeout bounds receiving a request: a client that sends it
	// slower is cut off.
	requestTimeout = 10 * time.Second
)

// serve accepts connections on ln until it is closed.
func (s *Server) serve(ln net.Listener) {
	defer s.conns.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of file descriptors, or the like: wait a little
			// rather than spin.
			s.log.Warn("web: accepting a connection", "err", err)
			select {
			case <-time.After(100 * time.Millisecond):
			case <-s.base.Done():
				return
			}
			continue
		}
		if !s.track(c, true) {
			_ = c.Close()
			continue
		}
		s.conns.Add(1)
		go func() { // owned: Close ends it and waits
			defer s.conns.Done()
			defer s.track(c, false)
			s.serveConn(c)
		}()
	}
}

// track adds or removes an open connection; false when too many are open
// or the server is closing.
func (s *Server) track(c net.Conn, add bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !add {
		delete(s.open, c)
		return true
	}
	if s.closed || len(s.open) >= s.maxConns {
		return false
	}
	s.open[c] = struct{}{}
	return true
}

// serveConn reads one request from c, answers it and closes c.
func (s *Server) serveConn(c net.Conn) {
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(s.reqTimeout))
	br := bufio.NewReaderSize(io.LimitReader(c, maxRequest), 4<<10)
	r, err := http.ReadRequest(br)
	if err != nil {
		if !errors.Is(err, io.EOF) {
			w := newConnWriter(c, http.MethodGet)
			writeError(w, http.StatusBadRequest, "malformed or oversized request")
			_ = w.finish()
			linger(c)
		}
		return
	}
	ctx, cancel := context.WithCancel(s.base)
	defer cancel()
	r = r.WithContext(ctx)
	r.RemoteAddr = c.RemoteAddr().String()
	w := newConnWriter(c, r.Method)
	if r.ContentLength == 0 && len(r.TransferEncoding) == 0 {
		// A request without a body has been read whole, and a client
		// sends nothing more on a connection that carries one request:
		// a read that ends means it has gone (a live page closed).
		watch := make(chan struct{})
		go func() { // owned: ends when c is closed, which happens before serveConn returns
			defer close(watch)
			_ = c.SetReadDeadline(time.Time{})
			if _, err := c.Read(make([]byte, 1)); err != nil {
				cancel()
			}
		}()
		defer func() { _ = c.Close(); <-watch }()
	}
	s.ServeHTTP(w, r)
	_ = w.finish()
	linger(c)
}

// lingerTimeout bounds waiting for a client to take its answer and close.
const lingerTimeout = time.Second

// linger ends the answer on c and lets the client read it before c is
// closed: closing with unread request bytes would reset the connection
// and could destroy the answer in flight.
func linger(c net.Conn) {
	if hc, ok := c.(interface{ CloseWrite() error }); ok {
		_ = hc.CloseWrite()
	}
	_ = c.SetReadDeadline(time.Now().Add(lingerTimeout))
	_, _ = io.CopyN(io.Discard, c, maxRequest)
}

// connWriter is the answer to one request on a connection of its own.
// Until the handler flushes, the body is kept, so the answer goes out
// whole with its length; a flush (a live stream) sends the headers then
// and the body as it comes, ended by closing the connection.
type connWriter struct {
	c      net.Conn
	head   bool // a HEAD request: headers only
	header http.Header
	code   int
	body   bytes.Buffer
	sent   bool // the headers have gone
	err    error
}

func newConnWriter(c net.Conn, method string) *connWriter {
	return &connWriter{c: c, head: method == http.MethodHead, header: http.Header{}}
}

func (w *connWriter) Header() http.Header { return w.header }

func (w *connWriter) WriteHeader(code int) {
	if w.code == 0 && code >= 100 && code <= 999 {
		w.code = code
	}
}

func (w *connWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	if w.err != nil {
		return 0, w.err
	}
	if w.head {
		return len(p), nil
	}
	if !w.sent {
		return w.body.Write(p)
	}
	n, err := w.c.Write(p)
	w.err = err
	return n, err
}

// SetWriteDeadline bounds the writes to come (http.ResponseController).
func (w *connWriter) SetWriteDeadline(t time.Time) error { return w.c.SetWriteDeadline(t) }

// FlushError sends what is written so far (http.ResponseController).
func (w *connWriter) FlushError() error {
	w.WriteHeader(http.StatusOK)
	if w.err != nil {
		return w.err
	}
	if !w.sent {
		w.err = w.send(-1)
	}
	return w.err
}

// Flush is FlushError for http.Flusher.
func (w *connWriter) Flush() { _ = w.FlushError() }

// send writes the status line, the headers (with length unless it is -1)
// and whatever body is kept.
func (w *connWriter) send(length int) error {
	w.sent = true
	h := w.header
	h.Set("Connection", "close")
	if length >= 0 {
		h.Set("Content-Length", strconv.Itoa(length))
	}
	if h.Get("Content-Type") == "" && length > 0 {
		h.Set("Content-Type", "application/octet-stream")
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "HTTP/1.1 %d %s\r\n", w.code, http.StatusText(w.code))
	if err := h.Write(&buf); err != nil {
		return err
	}
	buf.WriteString("\r\n")
	if !w.head {
		buf.Write(w.body.Bytes())
	}
	w.body.Reset()
	_, err := w.c.Write(buf.Bytes())
	return err
}

// finish sends the answer if it has not gone yet.
func (w *connWriter) finish() error {
	if w.sent || w.err != nil {
		return w.err
	}
	w.WriteHeader(http.StatusOK)
	_ = w.c.SetWriteDeadline(time.Now().Add(writeTimeout))
	return w.send(w.body.Len())
}

var _ http.Flusher = (*connWriter)(nil)
