package web

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/diag"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/motion"
	"github.com/stretchr/testify/require"
)

// testPIN is the technician PIN of the test robots.
const testPIN = "2468"

// waitLimit bounds every wait in these tests: generous, for a loaded
// machine; reaching it is a failure, never a pass.
const waitLimit = 30 * time.Second

// fakeBody is a body whose pose the test sets.
type fakeBody struct {
	mu   sync.Mutex
	pose motion.Pose
}

func (b *fakeBody) Pose() motion.Pose {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.pose
}

func (b *fakeBody) set(p motion.Pose) {
	b.mu.Lock()
	b.pose = p
	b.mu.Unlock()
}

// fakeLights is an LED ring whose colours the test sets.
type fakeLights struct {
	mu     sync.Mutex
	colors []string
}

func (l *fakeLights) Colors() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.colors...)
}

func (l *fakeLights) set(c ...string) {
	l.mu.Lock()
	l.colors = c
	l.mu.Unlock()
}

type fakeSkills []*registry.Manifest

func (f fakeSkills) Skills() []*registry.Manifest { return f }

// rig is a page server on a real bus and a real diagnostics shell (for
// its PIN check and configuration), served by httptest.
type rig struct {
	srv    *Server
	bus    *bus.Bus
	ts     *httptest.Server
	body   *fakeBody
	lights *fakeLights
	shell  *diag.Server
	volume *int
	client *http.Client
}

func newRig(t *testing.T, addr string, tweak ...func(*Config)) *rig {
	t.Helper()
	b := bus.New(bus.Options{})
	hash, err := diag.HashPIN(testPIN, diag.MinPINIterations)
	require.NoError(t, err)
	vol := 10
	var volMu sync.Mutex
	shell, err := diag.NewServer(diag.Config{PINHash: hash, WrongPINDelay: -1, Env: diag.Env{Board: "sim", Version: "test",
		Settings: []diag.Setting{{Key: "volume", Help: "the master volume, 0 to 10",
			Get: func() string { volMu.Lock(); defer volMu.Unlock(); return strconv.Itoa(vol) },
			Check: func(v string) (any, error) {
				n, err := strconv.Atoi(v)
				if err != nil || n < 0 || n > 10 {
					return nil, errors.New("want a whole number 0..10")
				}
				return n, nil
			},
			Apply: func(v any) error { volMu.Lock(); defer volMu.Unlock(); vol = v.(int); return nil }}}}})
	require.NoError(t, err)
	r := &rig{bus: b, body: &fakeBody{}, lights: &fakeLights{colors: []string{"#000000", "#000000", "#000000"}}, shell: shell, volume: &vol}
	cfg := Config{Addr: addr, Bus: b, Body: r.body, Lights: r.lights, Shell: shell, Version: "test", Board: "sim",
		Skills:      fakeSkills{{ID: "jibo/basics", Name: "Basics", Version: "1.0.0", Description: "Answers greetings."}},
		SampleEvery: 5 * time.Millisecond}
	for _, f := range tweak {
		f(&cfg)
	}
	r.srv, err = New(cfg)
	require.NoError(t, err)
	r.ts = httptest.NewServer(r.srv)
	r.client = r.ts.Client()
	t.Cleanup(func() {
		r.ts.CloseClientConnections()
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		defer cancel()
		require.NoError(t, r.srv.Close(ctx))
		r.ts.Close()
		shell.Close()
		require.NoError(t, b.Close(ctx))
	})
	return r
}

func (r *rig) vol() int { return *r.volume }

// do sends a request as the page's own scripts would, unless headers say
// otherwise, and returns the status and the decoded JSON answer.
func (r *rig) do(t *testing.T, method, path, body string, headers ...string) (int, map[string]any, http.Header) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, r.ts.URL+path, rd)
	require.NoError(t, err)
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", r.ts.URL)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "Host" {
			req.Host = headers[i+1]
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := r.client.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	out := map[string]any{}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		require.NoError(t, json.Unmarshal(raw, &out), string(raw))
	}
	return res.StatusCode, out, res.Header
}

// unlock unlocks technician mode and keeps the cookie for later requests.
func (r *rig) unlock(t *testing.T) {
	t.Helper()
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	r.client = &http.Client{Jar: jar}
	code, body, _ := r.do(t, http.MethodPost, "/api/unlock", `{"pin":"`+testPIN+`"}`)
	require.Equal(t, http.StatusOK, code, body)
}

// event is one server-sent event.
type event struct {
	name string
	data map[string]any
}

// live is a page watching: the events it received, in order.
type liveConn struct {
	events chan event
	cancel context.CancelFunc
	done   chan struct{}
}

// watch opens the live stream as a page does.
func (r *rig) watch(t *testing.T) *liveConn {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.ts.URL+"/api/events", nil)
	require.NoError(t, err)
	res, err := r.client.Do(req)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
	l := &liveConn{events: make(chan event, 4096), cancel: cancel, done: make(chan struct{})}
	go func() { // owned: the cleanup cancels it and waits
		defer close(l.done)
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		var ev event
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				ev.name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				ev.data = map[string]any{}
				_ = json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &ev.data)
			case line == "" && ev.name != "":
				l.events <- ev
				ev = event{}
			}
		}
	}()
	t.Cleanup(l.close)
	return l
}

func (l *liveConn) close() {
	l.cancel()
	<-l.done
}

// next waits for the next event called name that match accepts.
func (l *liveConn) next(t *testing.T, name string, match func(map[string]any) bool) map[string]any {
	t.Helper()
	timeout := time.NewTimer(waitLimit)
	defer timeout.Stop()
	for {
		select {
		case ev, ok := <-l.events:
			if !ok {
				t.Fatalf("the live stream ended before a %s event", name)
			}
			if ev.name == name && (match == nil || match(ev.data)) {
				return ev.data
			}
		case <-l.done:
			select {
			case ev := <-l.events:
				if ev.name == name && (match == nil || match(ev.data)) {
					return ev.data
				}
				continue
			default:
			}
			t.Fatalf("the live stream ended before a %s event", name)
		case <-timeout.C:
			t.Fatalf("no %s event within %s", name, waitLimit)
		}
	}
}

// publish puts a message on the rig's bus.
func (r *rig) publish(t *testing.T, topic string, data, ctx map[string]any) {
	t.Helper()
	m := bus.NewMessage(topic, data)
	for k, v := range ctx {
		m.Context[k] = v
	}
	require.NoError(t, r.bus.Publish(context.Background(), m))
}

// startIntents runs an intent service on the rig's bus holding one
// greeting intent, and waits until it answers.
func (r *rig) startIntents(t *testing.T) {
	t.Helper()
	svc := intent.NewService(r.bus, intent.NewTemplateEngine(intent.EngineOptions{}), nil)
	require.NoError(t, svc.Start())
	t.Cleanup(svc.Close)
	r.publish(t, intent.TopicRegisterTemplate, map[string]any{"skill_id": "jibo.basics", "intent_name": "greet",
		"lang": "en-us", "samples": []any{"(hello|hi) [jibo]", "good morning"}}, map[string]any{"skill_id": "jibo.basics", "source": "jibo.basics"})
	deadline := time.Now().Add(waitLimit)
	for {
		ans, err := r.srv.query(context.Background(), intent.TopicList, map[string]any{})
		require.NoError(t, err)
		if l, _ := ans.Data["intents"].([]any); len(l) > 0 {
			return
		}
		require.True(t, time.Now().Before(deadline), "the intent service never listed the greeting")
		time.Sleep(10 * time.Millisecond) // polling a condition, not timing anything
	}
}
