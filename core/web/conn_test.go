package web

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/openjibo/jibod/core/bus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// started is a page server listening on a loopback port of its own.
func started(t *testing.T, tweak func(*Server)) (*Server, string) {
	t.Helper()
	b := bus.New(bus.Options{})
	s, err := New(Config{Addr: "127.0.0.1:0", Bus: b, Version: "test", Board: "sim"})
	require.NoError(t, err)
	if tweak != nil {
		tweak(s)
	}
	addr, err := s.Start()
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		defer cancel()
		require.NoError(t, s.Close(ctx))
		require.NoError(t, b.Close(ctx))
	})
	return s, addr.String()
}

// raw sends request as is and returns all the server answered before it
// closed the connection.
func raw(t *testing.T, addr, request string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(waitLimit)))
	_, err = io.WriteString(c, request)
	require.NoError(t, err)
	out, err := io.ReadAll(c)
	require.NoError(t, err, "the server closes the connection after its answer")
	return string(out)
}

// Each connection carries one request, answered whole with its length,
// then closed.
func TestOneRequestPerConnection(t *testing.T) {
	_, addr := started(t, nil)
	tests := []struct {
		name, request string
		status        string
		has, hasNot   []string
	}{
		{"a GET", "GET /api/session HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", "HTTP/1.1 200 OK",
			[]string{"Connection: close", "Content-Type: application/json", `"board":"sim"`, "Content-Security-Policy: "}, nil},
		{"a HEAD", "HEAD / HTTP/1.1\r\nHost: localhost\r\n\r\n", "HTTP/1.1 200 OK",
			[]string{"Content-Type: text/html"}, []string{"<!doctype html>"}},
		{"HTTP/1.0", "GET /style.css HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", "HTTP/1.1 200 OK", []string{"text/css"}, nil},
		{"no Host", "GET / HTTP/1.1\r\n\r\n", "HTTP/1.1 421 Misdirected Request", nil, nil},
		{"not HTTP", "HELLO\r\n\r\n", "HTTP/1.1 400 Bad Request", []string{"malformed or oversized request"}, nil},
		{"headers too big", "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + strings.Repeat("a", maxRequest) + "\r\n\r\n",
			"HTTP/1.1 400 Bad Request", nil, nil},
		{"a POST", "POST /api/say HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 16\r\n\r\n{\"text\":\"hello\"}",
			"HTTP/1.1 202 Accepted", []string{`"input":"web-1"`}, nil},
		{"a POST whose body never comes", "POST /api/say HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{}",
			"HTTP/1.1 400 Bad Request", []string{"reading request body"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out string
			if tc.name == "a POST whose body never comes" {
				out = halfPost(t, addr, tc.request)
			} else {
				out = raw(t, addr, tc.request)
			}
			assert.True(t, strings.HasPrefix(out, tc.status+"\r\n"), "got %.200q", out)
			for _, h := range tc.has {
				assert.Contains(t, out, h)
			}
			for _, h := range tc.hasNot {
				assert.NotContains(t, out, h)
			}
		})
	}
}

// halfPost sends a request whose body is cut short, then half-closes so
// the server sees the end.
func halfPost(t *testing.T, addr, request string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(waitLimit)))
	_, err = io.WriteString(c, request)
	require.NoError(t, err)
	require.NoError(t, c.(*net.TCPConn).CloseWrite())
	out, err := io.ReadAll(c)
	require.NoError(t, err)
	return string(out)
}

// A client that sends its request too slowly is cut off, so it cannot
// hold a connection (slowloris).
func TestSlowRequestCutOff(t *testing.T) {
	_, addr := started(t, func(s *Server) { s.reqTimeout = 50 * time.Millisecond })
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(waitLimit)))
	_, err = io.WriteString(c, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
	require.NoError(t, err)
	out, err := io.ReadAll(c) // until the server closes
	require.NoError(t, err, "closed by the server, not by the test's own deadline")
	assert.Contains(t, string(out), "400 Bad Request")
}

func TestConnectionsBounded(t *testing.T) {
	_, addr := started(t, func(s *Server) { s.maxConns = 2 })
	var held []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		defer c.Close()
		held = append(held, c)
	}
	// The two are open but silent; a request on a third is refused by
	// closing it, once the server has counted the two.
	deadline := time.Now().Add(waitLimit)
	for {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		require.NoError(t, c.SetDeadline(time.Now().Add(waitLimit)))
		_, _ = io.WriteString(c, "GET /api/session HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
		out, _ := io.ReadAll(c)
		c.Close()
		if len(out) == 0 {
			break
		}
		require.True(t, time.Now().Before(deadline), "a third connection was always served")
	}
	// Once one goes, requests are served again.
	held[0].Close()
	deadline = time.Now().Add(waitLimit)
	for {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		require.NoError(t, c.SetDeadline(time.Now().Add(waitLimit)))
		_, _ = io.WriteString(c, "GET /api/session HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
		out, _ := io.ReadAll(c) // a refused one may be reset
		c.Close()
		if strings.HasPrefix(string(out), "HTTP/1.1 200") {
			break
		}
		require.True(t, time.Now().Before(deadline), "never served again")
	}
}

// A live page gets its updates as they come, over a connection left
// open; when the page goes, the server notices and lets it go.
func TestLiveStreamOverItsOwnConnection(t *testing.T) {
	s, addr := started(t, nil)
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	require.NoError(t, c.SetDeadline(time.Now().Add(waitLimit)))
	_, err = io.WriteString(c, "GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	require.NoError(t, err)
	br := bufio.NewReader(c)
	res, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
	assert.Empty(t, res.Header.Get("Content-Length"), "a stream ends when the connection does")
	line, err := br.ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, "retry: 3000\n", line)

	require.NoError(t, s.cfg.Bus.Publish(context.Background(), bus.NewMessage(topicHandle, map[string]any{"utterances": []any{"hi"}})))
	for {
		line, err = br.ReadString('\n')
		require.NoError(t, err)
		if strings.HasPrefix(line, "data: ") {
			break
		}
	}
	assert.Contains(t, line, `"topic":"ovos.utterance.handle"`)

	c.Close()
	deadline := time.Now().Add(waitLimit)
	for {
		s.live.mu.Lock()
		n := len(s.live.clients)
		s.live.mu.Unlock()
		if n == 0 {
			break
		}
		require.True(t, time.Now().Before(deadline), "the server still counts the page that left")
		time.Sleep(5 * time.Millisecond) // polling a condition, not timing anything
	}
}
