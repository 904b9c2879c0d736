package web

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/motion"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewChecksItsConfig(t *testing.T) {
	b := bus.New(bus.Options{})
	defer b.Close(context.Background())
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"no bus", Config{Addr: "127.0.0.1:0"}, "a bus is required"},
		{"no port", Config{Addr: "127.0.0.1", Bus: b}, "want host:port"},
		{"port not a number", Config{Addr: "127.0.0.1:web", Bus: b}, `port "web"`},
		{"no host", Config{Addr: ":5426", Bus: b}, "name the host"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.cfg)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestPageServed(t *testing.T) {
	r := newRig(t, "127.0.0.1:0")
	for path, ct := range map[string]string{"/": "text/html", "/app.js": "text/javascript", "/style.css": "text/css"} {
		res, err := r.client.Get(r.ts.URL + path)
		require.NoError(t, err)
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		assert.Equal(t, http.StatusOK, res.StatusCode, path)
		assert.True(t, strings.HasPrefix(res.Header.Get("Content-Type"), ct), path)
		assert.Contains(t, res.Header.Get("Content-Security-Policy"), "default-src 'self'", path)
		assert.Equal(t, "nosniff", res.Header.Get("X-Content-Type-Options"), path)
		assert.Empty(t, res.Header.Get("Access-Control-Allow-Origin"), "no CORS, ever")
		assert.NotEmpty(t, body, path)
	}
	res, err := r.client.Get(r.ts.URL + "/")
	require.NoError(t, err)
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for _, id := range []string{`id="robot"`, `id="sec-bottom"`, `id="sec-middle"`, `id="sec-top"`, `id="eye"`, `id="leds"`,
		`id="conversation"`, `id="say-text"`, `id="skills"`, `id="status"`, `id="warnings"`} {
		assert.Contains(t, string(page), id, "the page has its parts")
	}
}

// Every request is checked before it does anything: its method, host,
// origin, media type, size and content.
func TestRequestsAreChecked(t *testing.T) {
	r := newRig(t, "127.0.0.1:0")
	// Refused requests spend the rate limit too; this test is not about it.
	for _, b := range []*bucket{r.srv.limits.say, r.srv.limits.unlock, r.srv.limits.other} {
		b.burst, b.tokens = 100, 100
	}
	var seen []bus.Message
	var mu sync.Mutex
	sub, err := r.bus.Subscribe(topicHandle, func(_ context.Context, m bus.Message) { mu.Lock(); seen = append(seen, m); mu.Unlock() })
	require.NoError(t, err)
	defer sub.Close()
	tests := []struct {
		name    string
		method  string
		path    string
		body    string
		headers []string
		code    int
		want    string
	}{
		{"unknown path", http.MethodGet, "/nope", "", nil, http.StatusNotFound, ""},
		{"wrong method", http.MethodPut, "/api/say", `{"text":"hi"}`, nil, http.StatusMethodNotAllowed, ""},
		{"GET of an action", http.MethodGet, "/api/say", "", nil, http.StatusMethodNotAllowed, ""},
		{"another site's name (DNS rebinding)", http.MethodGet, "/", "", []string{"Host", "evil.example.com"}, http.StatusMisdirectedRequest, "robot's address"},
		{"another site's origin", http.MethodPost, "/api/say", `{"text":"hi"}`, []string{"Origin", "http://evil.example.com"}, http.StatusForbidden, "cross-origin"},
		{"a cross-site fetch", http.MethodPost, "/api/say", `{"text":"hi"}`, []string{"Sec-Fetch-Site", "cross-site"}, http.StatusForbidden, "cross-origin"},
		{"a form post", http.MethodPost, "/api/say", `text=hi`, []string{"Content-Type", "application/x-www-form-urlencoded"}, http.StatusUnsupportedMediaType, "send JSON"},
		{"too big", http.MethodPost, "/api/say", `{"text":"` + strings.Repeat("a", maxBody) + `"}`, nil, http.StatusBadRequest, "over 4096 bytes"},
		{"not JSON", http.MethodPost, "/api/say", `hello`, nil, http.StatusBadRequest, "not the JSON object"},
		{"unknown field", http.MethodPost, "/api/say", `{"text":"hi","lang":"fr"}`, nil, http.StatusBadRequest, "unknown field"},
		{"two objects", http.MethodPost, "/api/say", `{"text":"hi"}{"text":"ho"}`, nil, http.StatusBadRequest, "after its JSON object"},
		{"empty text", http.MethodPost, "/api/say", `{"text":"   "}`, nil, http.StatusBadRequest, "type something"},
		{"long text", http.MethodPost, "/api/say", `{"text":"` + strings.Repeat("a", MaxTextLen+1) + `"}`, nil, http.StatusBadRequest, "at most 500"},
		{"control character", http.MethodPost, "/api/say", `{"text":"hi\u0007"}`, nil, http.StatusBadRequest, "control character"},
		{"configuration without the PIN", http.MethodPost, "/api/config", `{"set":{"volume":"3"}}`, nil, http.StatusForbidden, "technician mode"},
		{"a wrong PIN", http.MethodPost, "/api/unlock", `{"pin":"1111"}`, nil, http.StatusForbidden, "wrong PIN"},
		{"a PIN too long to be one", http.MethodPost, "/api/unlock", `{"pin":"` + strings.Repeat("1", 65) + `"}`, nil, http.StatusBadRequest, "at most 12 digits"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, body, _ := r.do(t, tc.method, tc.path, tc.body, tc.headers...)
			assert.Equal(t, tc.code, code, body)
			if tc.want != "" {
				assert.Contains(t, body["error"], tc.want)
			}
		})
	}
	mu.Lock()
	defer mu.Unlock()
	assert.Empty(t, seen, "no refused request reached the robot")
	assert.Equal(t, 10, r.vol(), "no refused request changed the robot")
}

func TestHostNames(t *testing.T) {
	tests := []struct {
		host     string
		loopback bool
		lan      bool
	}{
		{"127.0.0.1:5426", true, true},
		{"localhost:5426", true, true},
		{"[::1]:5426", true, true},
		{"192.168.1.20:5426", false, true},
		{"jibo:5426", false, true},
		{"jibo.local:5426", false, true},
		{"jibo.home.arpa", false, true},
		{"evil.example.com:5426", false, false},
		{"127.0.0.1.nip.io:5426", false, false},
		{"", false, false},
	}
	lo := &Server{loopback: true}
	lan := &Server{}
	for _, tc := range tests {
		assert.Equal(t, tc.loopback, lo.hostAllowed(tc.host), "on loopback: %q", tc.host)
		assert.Equal(t, tc.lan, lan.hostAllowed(tc.host), "on the network: %q", tc.host)
	}
}

// Typing to the robot publishes the utterance as any input does, and the
// page sees the turn as the robot takes it: what was typed, which intent
// matched and why, what the robot said and did.
func TestTypedTurnShownLive(t *testing.T) {
	r := newRig(t, "127.0.0.1:0")
	handled := make(chan bus.Message, 1)
	sub, err := r.bus.Subscribe(topicHandle, func(_ context.Context, m bus.Message) { handled <- m })
	require.NoError(t, err)
	defer sub.Close()
	page := r.watch(t)

	code, body, _ := r.do(t, http.MethodPost, "/api/say", `{"text":"  hello  "}`)
	require.Equal(t, http.StatusAccepted, code, body)
	assert.Equal(t, "web-1", body["input"])
	var m bus.Message
	select {
	case m = <-handled:
	case <-time.After(waitLimit):
		t.Fatal("the utterance never reached the bus")
	}
	assert.Equal(t, []any{"hello"}, m.Data["utterances"])
	assert.Equal(t, "web", m.Source())
	assert.Equal(t, "web-1", m.ContextString(keyInput))

	typed := page.next(t, "update", topicIs(topicHandle))
	assert.Equal(t, map[string]any{"utterances": []any{"hello"}}, typed["data"])
	assert.Equal(t, "web", typed["source"])
	assert.Equal(t, "web-1", typed["input"])

	r.publish(t, pipeline.TopicMatched, map[string]any{"skill_id": "jibo.basics", "intent_name": "greet", "lang": "en-US",
		"utterance": "hello", "slots": map[string]any{}, "pipeline_id": "templates-high"},
		map[string]any{keyInput: "web-1", pipeline.KeyMatchConfidence: 0.9, pipeline.KeyMatchWhy: `sample "hello": exact match`})
	r.publish(t, "jibo.body.led.set", map[string]any{"color": "#00aaff"}, nil)
	r.publish(t, "jibo.body.motion.arrived", map[string]any{"topSection_r": 0.2}, nil)
	r.publish(t, "jibo.body.speaker.say", map[string]any{"text": "Hey!"}, nil)
	r.publish(t, pipeline.TopicSpeak, map[string]any{"utterance": "Hey! Good to hear your voice."}, map[string]any{keyInput: "web-1"})
	matched := page.next(t, "update", nil)
	assert.Equal(t, pipeline.TopicMatched, matched["topic"])
	assert.Equal(t, "jibo.basics", matched["data"].(map[string]any)["skill_id"])
	assert.Equal(t, "templates-high", matched["data"].(map[string]any)["pipeline_id"])
	assert.Equal(t, 0.9, matched["confidence"])
	assert.Equal(t, `sample "hello": exact match`, matched["why"])
	led := page.next(t, "update", nil)
	assert.Equal(t, "jibo.body.led.set", led["topic"])
	assert.Equal(t, map[string]any{"color": "#00aaff"}, led["data"])
	said := page.next(t, "update", nil)
	assert.Equal(t, pipeline.TopicSpeak, said["topic"], "the arrival and the speaker's own say are not shown")
	assert.Equal(t, "Hey! Good to hear your voice.", said["data"].(map[string]any)["utterance"])

	// A page opened later gets the conversation so far.
	late := r.watch(t)
	assert.Equal(t, "web-1", late.next(t, "update", topicIs(topicHandle))["input"])
	late.next(t, "update", topicIs(pipeline.TopicSpeak))
}

func topicIs(topic string) func(map[string]any) bool {
	return func(d map[string]any) bool { return d["topic"] == topic }
}

func TestStopIsSayingStop(t *testing.T) {
	r := newRig(t, "127.0.0.1:0")
	stops := make(chan bus.Message, 1)
	sub, err := r.bus.Subscribe(pipeline.TopicStop, func(_ context.Context, m bus.Message) { stops <- m })
	require.NoError(t, err)
	defer sub.Close()
	code, body, _ := r.do(t, http.MethodPost, "/api/stop", `{}`)
	require.Equal(t, http.StatusAccepted, code, body)
	select {
	case m := <-stops:
		assert.Equal(t, "web", m.Source(), "STOP-1: the stop reaches every skill as ovos.stop")
	case <-time.After(waitLimit):
		t.Fatal("no ovos.stop on the bus")
	}
}

// Technician mode is the shell's: its PIN, its count of wrong tries and
// its lockout; it unlocks configuration, and locks again.
func TestTechnicianMode(t *testing.T) {
	r := newRig(t, "127.0.0.1:0")
	_, s, _ := r.do(t, http.MethodGet, "/api/session", "")
	assert.Equal(t, false, s["technician"])
	assert.Equal(t, true, s["pin_configured"])
	assert.Equal(t, "open", s["talk"], "on a loopback address talking is open")

	r.unlock(t)
	_, s, _ = r.do(t, http.MethodGet, "/api/session", "")
	assert.Equal(t, true, s["technician"])

	code, body, _ := r.do(t, http.MethodPost, "/api/config", `{"set":{"volume":"3"}}`)
	require.Equal(t, http.StatusOK, code, body)
	assert.Equal(t, []any{map[string]any{"key": "volume", "old": "10", "new": "3"}}, body["changes"])
	assert.Equal(t, 3, r.vol())

	code, body, _ = r.do(t, http.MethodPost, "/api/config", `{"set":{"volume":"11"}}`)
	assert.Equal(t, http.StatusBadRequest, code)
	assert.Contains(t, body["error"], "nothing changed: volume=11: want a whole number 0..10")
	code, body, _ = r.do(t, http.MethodPost, "/api/config", `{"set":{"volume":"5","no.such":"1"}}`)
	assert.Equal(t, http.StatusBadRequest, code)
	assert.Contains(t, body["error"], "no.such: no such key")
	assert.Equal(t, 3, r.vol(), "all or nothing")

	_, cfg, _ := r.do(t, http.MethodGet, "/api/config", "")
	assert.Contains(t, fmt.Sprint(cfg["settings"]), "key:volume")

	code, _, _ = r.do(t, http.MethodPost, "/api/lock", `{}`)
	require.Equal(t, http.StatusOK, code)
	code, _, _ = r.do(t, http.MethodPost, "/api/config", `{"set":{"volume":"5"}}`)
	assert.Equal(t, http.StatusForbidden, code, "locked again")
	assert.Equal(t, 3, r.vol())
}

func TestWrongPINsLockOut(t *testing.T) {
	r := newRig(t, "127.0.0.1:0")
	codes := []int{}
	var last map[string]any
	for range 3 {
		code, body, _ := r.do(t, http.MethodPost, "/api/unlock", `{"pin":"0000"}`)
		codes = append(codes, code)
		last = body
	}
	assert.Equal(t, []int{http.StatusForbidden, http.StatusForbidden, http.StatusTooManyRequests}, codes)
	assert.Contains(t, last["error"], "locked out")
	// The limiter of unlock attempts is spent too; a fresh rig's clock is
	// not, so ask the shell directly: the page's tries were its tries.
	err := r.shell.VerifyPIN(context.Background(), testPIN, "test")
	require.Error(t, err, "the right PIN waits out the lockout")
	assert.Contains(t, err.Error(), "locked out")
}

// Off a loopback address the page is reachable from the network: there,
// talking needs technician mode too.
func TestTalkingFromTheNetworkNeedsThePIN(t *testing.T) {
	r := newRig(t, "0.0.0.0:0")
	_, s, _ := r.do(t, http.MethodGet, "/api/session", "")
	assert.Equal(t, "technician", s["talk"])
	assert.Equal(t, false, s["may_talk"])
	code, body, _ := r.do(t, http.MethodPost, "/api/say", `{"text":"hello"}`)
	assert.Equal(t, http.StatusForbidden, code)
	assert.Contains(t, body["error"], "needs technician mode")
	code, _, _ = r.do(t, http.MethodPost, "/api/stop", `{}`)
	assert.Equal(t, http.StatusForbidden, code)

	r.unlock(t)
	code, body, _ = r.do(t, http.MethodPost, "/api/say", `{"text":"hello"}`)
	assert.Equal(t, http.StatusAccepted, code, body)
}

func TestPostsAreRateLimited(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	r := newRig(t, "127.0.0.1:0", func(c *Config) { c.Now = func() time.Time { return now } })
	var codes []int
	var hdr http.Header
	for range 6 {
		code, _, h := r.do(t, http.MethodPost, "/api/say", `{"text":"hello"}`)
		codes = append(codes, code)
		hdr = h
	}
	assert.Equal(t, []int{202, 202, 202, 202, 202, 429}, codes)
	assert.Equal(t, "1", hdr.Get("Retry-After"))
}

func TestBucket(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	b := newBucket(2, time.Second)
	steps := []struct {
		at   time.Duration
		ok   bool
		wait time.Duration
	}{
		{0, true, 0}, {0, true, 0}, {0, false, time.Second},
		{500 * time.Millisecond, false, 500 * time.Millisecond},
		{time.Second, true, 0}, {time.Second, false, time.Second},
		{10 * time.Second, true, 0}, {10 * time.Second, true, 0}, {10 * time.Second, false, time.Second},
		{5 * time.Second, false, time.Second}, // a clock going back refills nothing
	}
	for i, st := range steps {
		wait, ok := b.take(t0.Add(st.at))
		assert.Equal(t, st.ok, ok, "step %d", i)
		assert.Equal(t, st.wait, wait, "step %d", i)
	}
}

func TestLivePagesBounded(t *testing.T) {
	r := newRig(t, "127.0.0.1:0", func(c *Config) { c.MaxClients = 2 })
	r.watch(t)
	r.watch(t)
	code, body, _ := r.do(t, http.MethodGet, "/api/events", "")
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Contains(t, body["error"], "too many pages")
}

// The body is drawn where it is: a page gets the pose and the ring's
// colours at once and again whenever they change.
func TestBodyShownLive(t *testing.T) {
	r := newRig(t, "127.0.0.1:0")
	page := r.watch(t)
	first := page.next(t, "body", nil)
	assert.Equal(t, []any{"bottomSection_r", "middleSection_r", "topSection_r"}, first["axes"])
	assert.Equal(t, []any{0.0, 0.0, 0.0}, first["pose"])
	assert.Equal(t, []any{"#000000", "#000000", "#000000"}, first["leds"])

	r.body.set(motion.Pose{0, 0, 0.5})
	moved := page.next(t, "body", func(d map[string]any) bool { p, _ := d["pose"].([]any); return len(p) == 3 && p[2] != 0.0 })
	assert.Equal(t, []any{0.0, 0.0, 0.5}, moved["pose"])
	r.lights.set("#00aaff", "#00aaff", "#00aaff")
	lit := page.next(t, "body", func(d map[string]any) bool { return fmt.Sprint(d["leds"]) != "[#000000 #000000 #000000]" })
	assert.Equal(t, []any{"#00aaff", "#00aaff", "#00aaff"}, lit["leds"])
}

// The screen's views are kept by layer, so a page opened at any time
// knows what is shown.
func TestScreenKeptForLatePages(t *testing.T) {
	r := newRig(t, "127.0.0.1:0")
	page := r.watch(t)
	r.publish(t, "jibo.body.display.show", map[string]any{"layer": 2, "name": "card", "view": "TEXT", "text": "12:30"}, nil)
	r.publish(t, "jibo.body.display.show", map[string]any{"layer": 1, "name": "eye", "view": "EYE"}, nil)
	r.publish(t, "jibo.body.display.hide", map[string]any{"layer": 2, "name": "other"}, nil)
	page.next(t, "update", func(d map[string]any) bool { return d["topic"] == "jibo.body.display.hide" })
	late := r.watch(t)
	first := late.next(t, "update", nil)
	assert.Equal(t, map[string]any{"layer": 1.0, "name": "eye", "view": "EYE"}, first["data"], "lowest layer first")
	second := late.next(t, "update", nil)
	assert.Equal(t, "12:30", second["data"].(map[string]any)["text"], "hiding another view's name leaves this one")

	r.publish(t, "jibo.body.display.hide", map[string]any{"layer": 2, "name": "card"}, nil)
	page.next(t, "update", func(d map[string]any) bool {
		return d["topic"] == "jibo.body.display.hide" && d["data"].(map[string]any)["name"] == "card"
	})
	later := r.watch(t)
	assert.Equal(t, "eye", later.next(t, "update", nil)["data"].(map[string]any)["name"])
	r.publish(t, pipeline.TopicSpeak, map[string]any{"utterance": "next"}, nil)
	assert.Equal(t, pipeline.TopicSpeak, later.next(t, "update", nil)["topic"], "the hidden card is not shown to it")
}

// A page that cannot keep up loses updates, never holds up the bus: its
// queue is bounded, and it is told how many it lost.
func TestSlowPageLosesUpdatesNotTheRobot(t *testing.T) {
	// No body: only the messages below fill the queue.
	r := newRig(t, "127.0.0.1:0", func(c *Config) { c.Body, c.Lights = nil, nil })
	c, _, err := r.srv.live.join(DefaultMaxClients)
	require.NoError(t, err)
	defer r.srv.live.leave(c)
	for i := range clientQueue + 44 {
		// Called as the bus calls it; a blocking send would hang here.
		r.srv.live.observe(context.Background(), bus.NewMessage(pipeline.TopicSpeak, map[string]any{"utterance": fmt.Sprint("line ", i)}))
	}
	assert.Equal(t, uint64(44), c.dropped.Load())

	w := &syncWriter{header: http.Header{}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.srv.stream(ctx, w, c, nil) }()
	deadline := time.Now().Add(waitLimit)
	for !strings.Contains(w.String(), "updates were dropped") {
		require.True(t, time.Now().Before(deadline), "no note of the dropped updates")
		time.Sleep(5 * time.Millisecond) // polling a condition, not timing anything
	}
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	out := w.String()
	assert.True(t, strings.Contains(out, `"text":"44 updates were dropped: this page fell behind the robot"`), "the note counts what was lost")
	assert.Equal(t, clientQueue, strings.Count(out, `"topic":"ovos.utterance.speak"`), "what was queued is delivered")
}

// syncWriter is a ResponseWriter whose body a test reads while it is
// written.
type syncWriter struct {
	mu     sync.Mutex
	header http.Header
	b      strings.Builder
}

func (w *syncWriter) Header() http.Header { return w.header }
func (w *syncWriter) WriteHeader(int)     {}
func (w *syncWriter) Flush()              {}
func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}
func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

func TestStatusAndSkills(t *testing.T) {
	r := newRig(t, "127.0.0.1:0")
	r.startIntents(t)
	code, st, _ := r.do(t, http.MethodGet, "/api/status", "")
	require.Equal(t, http.StatusOK, code, st)
	assert.Equal(t, "sim", st["board"], "the shell's own status report")
	assert.Contains(t, st, "last_errors")

	code, sk, _ := r.do(t, http.MethodGet, "/api/skills", "")
	require.Equal(t, http.StatusOK, code, sk)
	assert.Equal(t, []any{map[string]any{"id": "jibo/basics", "bus_id": "jibo.basics", "name": "Basics", "version": "1.0.0",
		"description": "Answers greetings."}}, sk["skills"])
	intents, _ := sk["intents"].([]any)
	require.Len(t, intents, 1)
	assert.Equal(t, "greet", intents[0].(map[string]any)["intent_name"])
	defs, _ := sk["definitions"].(map[string]any)["jibo.basics"].([]any)
	require.Len(t, defs, 1)
	assert.Equal(t, []any{"(hello|hi) [jibo]", "good morning"}, defs[0].(map[string]any)["definition"].(map[string]any)["samples"])
}

// Close ends the live pages and stops serving; nothing it started runs on.
func TestCloseEndsEverything(t *testing.T) {
	b := bus.New(bus.Options{})
	defer b.Close(context.Background())
	body := &fakeBody{}
	s, err := New(Config{Addr: "127.0.0.1:0", Bus: b, Body: body})
	require.NoError(t, err)
	addr, err := s.Start()
	require.NoError(t, err)
	_, err = s.Start()
	assert.ErrorContains(t, err, "already started")
	res, err := http.Get("http://" + addr.String() + "/api/events")
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)

	ended := make(chan error, 1)
	go func() { _, err := io.Copy(io.Discard, res.Body); ended <- err }()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	require.NoError(t, s.Close(ctx))
	select {
	case <-ended:
	case <-time.After(waitLimit):
		t.Fatal("the live page was not ended by Close")
	}
	_, err = http.Get("http://" + addr.String() + "/")
	assert.Error(t, err, "no longer serving")
	_, err = s.Start()
	assert.ErrorContains(t, err, "closed")
	require.NoError(t, s.Close(ctx), "closing twice is harmless")
	assert.Equal(t, 0, b.Stats().Subscribers, "the bus is no longer watched")
}
