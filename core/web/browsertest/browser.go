// Package browsertest drives a real headless Chromium for tests of the
// robot's web page, through a small client of the Chrome DevTools
// protocol over a websocket: load a page, evaluate JavaScript in it, wait
// for a condition, type and press keys as a person would.
//
// Only tests import it; it is not part of any binary.
package browsertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// RequireEnv, when set, makes a missing browser a test failure rather than
// a skip: CI sets it (make test), so the browser tests cannot silently
// vanish.
const RequireEnv = "JIBOD_REQUIRE_BROWSER"

// Names the browser is looked for under, in order.
var executables = []string{"chromium", "chromium-browser", "google-chrome"}

// Flags that make Chromium run headless as root in a container without
// reaching out to the network on its own.
var flags = []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--disable-dev-shm-usage", "--remote-debugging-port=0"}

// Find returns the browser's path, or "" when none is installed.
func Find() string {
	for _, n := range executables {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

// Need returns the browser's path for t, skipping t when there is none,
// or failing it when RequireEnv is set.
func Need(t testing.TB) string {
	t.Helper()
	p := Find()
	if p != "" {
		return p
	}
	msg := "no headless browser: install Debian's chromium (scripts/deps.sh)"
	if os.Getenv(RequireEnv) != "" {
		t.Fatalf("%s; %s is set, so the browser tests must run", msg, RequireEnv)
	}
	t.Skipf("%s; set %s to make this a failure", msg, RequireEnv)
	return ""
}

// Browser is a running headless Chromium.
type Browser struct {
	cmd     *exec.Cmd
	port    int
	dataDir string
	log     *logTail
	done    chan struct{}
}

// Launch starts the browser at exe with a new empty profile in dataDir
// and waits for its DevTools endpoint. Close stops it.
func Launch(ctx context.Context, exe, dataDir string) (*Browser, error) {
	args := append(append([]string(nil), flags...), "--user-data-dir="+dataDir, "about:blank")
	cmd := exec.Command(exe, args...)
	setGroup(cmd)
	b := &Browser{cmd: cmd, dataDir: dataDir, log: &logTail{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = b.log, b.log
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", exe, err)
	}
	go func() { // owned: ends when the browser does; Close kills it
		_ = cmd.Wait()
		close(b.done)
	}()
	port, err := b.devToolsPort(ctx)
	if err != nil {
		b.Close()
		return nil, err
	}
	b.port = port
	return b, nil
}

// devToolsPort waits for the browser to write the port it listens on.
func (b *Browser) devToolsPort(ctx context.Context) (int, error) {
	file := filepath.Join(b.dataDir, "DevToolsActivePort")
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if raw, err := os.ReadFile(file); err == nil {
			line, _, _ := strings.Cut(string(raw), "\n")
			if p, err := strconv.Atoi(strings.TrimSpace(line)); err == nil && p > 0 {
				return p, nil
			}
		}
		select {
		case <-tick.C:
		case <-b.done:
			return 0, fmt.Errorf("the browser exited before listening: %s", b.log.String())
		case <-ctx.Done():
			return 0, fmt.Errorf("waiting for the browser's DevTools port: %w; its output: %s", ctx.Err(), b.log.String())
		}
	}
}

// Output is the end of what the browser printed.
func (b *Browser) Output() string { return b.log.String() }

// Close kills the browser and everything it started, and waits for it.
func (b *Browser) Close() {
	killGroup(b.cmd)
	select {
	case <-b.done:
	case <-time.After(30 * time.Second):
	}
}

// Page connects to the browser's first tab.
func (b *Browser) Page(ctx context.Context) (*Page, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/json/list", b.port), nil)
	if err != nil {
		return nil, err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("listing the browser's tabs: %w", err)
	}
	defer res.Body.Close()
	var targets []struct {
		Type string `json:"type"`
		WS   string `json:"webSocketDebuggerUrl"`
	}
	if err := json.NewDecoder(io.LimitReader(res.Body, 1<<20)).Decode(&targets); err != nil {
		return nil, fmt.Errorf("listing the browser's tabs: %w", err)
	}
	for _, t := range targets {
		if t.Type == "page" && t.WS != "" {
			return dialPage(ctx, t.WS)
		}
	}
	return nil, errors.New("the browser has no tab")
}

// logTail keeps the last few kilobytes a process printed.
type logTail struct {
	mu  sync.Mutex
	buf []byte
}

const maxTail = 8 << 10

func (l *logTail) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	if len(l.buf) > maxTail {
		l.buf = append([]byte(nil), l.buf[len(l.buf)-maxTail:]...)
	}
	return len(p), nil
}

func (l *logTail) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return string(l.buf)
}

// Page is one tab, driven over the DevTools protocol.
type Page struct {
	conn *websocket.Conn
	// cancel ends the reader; done is closed when it has.
	cancel context.CancelFunc
	done   chan struct{}

	mu         sync.Mutex
	next       int64
	waiting    map[int64]chan reply
	exceptions []string
	readErr    error
}

type reply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func dialPage(ctx context.Context, url string) (*Page, error) {
	conn, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		return nil, fmt.Errorf("connecting to the tab: %w", err)
	}
	conn.SetReadLimit(64 << 20)
	rctx, cancel := context.WithCancel(context.Background())
	p := &Page{conn: conn, cancel: cancel, done: make(chan struct{}), waiting: map[int64]chan reply{}}
	go p.read(rctx) // owned: Close cancels it and waits
	if _, err := p.call(ctx, "Runtime.enable", nil); err != nil {
		p.Close()
		return nil, err
	}
	if _, err := p.call(ctx, "Page.enable", nil); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// read hands each answer to its caller and keeps the page's uncaught
// exceptions.
func (p *Page) read(ctx context.Context) {
	defer close(p.done)
	for {
		_, data, err := p.conn.Read(ctx)
		if err != nil {
			p.mu.Lock()
			p.readErr = err
			for id, ch := range p.waiting {
				close(ch)
				delete(p.waiting, id)
			}
			p.mu.Unlock()
			return
		}
		var msg struct {
			ID     int64           `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			reply
		}
		if json.Unmarshal(data, &msg) != nil {
			continue
		}
		if msg.ID == 0 {
			if msg.Method == "Runtime.exceptionThrown" {
				p.mu.Lock()
				p.exceptions = append(p.exceptions, string(msg.Params))
				p.mu.Unlock()
			}
			continue
		}
		p.mu.Lock()
		ch := p.waiting[msg.ID]
		delete(p.waiting, msg.ID)
		p.mu.Unlock()
		if ch != nil {
			ch <- msg.reply
		}
	}
}

// call sends one command and waits for its answer.
func (p *Page) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	ch := make(chan reply, 1)
	p.mu.Lock()
	if p.readErr != nil {
		err := p.readErr
		p.mu.Unlock()
		return nil, fmt.Errorf("%s: the tab's connection is gone: %w", method, err)
	}
	p.next++
	id := p.next
	p.waiting[id] = ch
	p.mu.Unlock()
	body, err := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	// A write cut short by ctx would close the connection; bound it on
	// its own instead.
	wctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	err = p.conn.Write(wctx, websocket.MessageText, body)
	cancel()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	select {
	case r, ok := <-ch:
		if !ok {
			return nil, fmt.Errorf("%s: the tab's connection closed", method)
		}
		if r.Error != nil {
			return nil, fmt.Errorf("%s: %s (%d)", method, r.Error.Message, r.Error.Code)
		}
		return r.Result, nil
	case <-ctx.Done():
		p.mu.Lock()
		delete(p.waiting, id)
		p.mu.Unlock()
		return nil, fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// Navigate loads url in the tab; the page's scripts run after it returns.
func (p *Page) Navigate(ctx context.Context, url string) error {
	res, err := p.call(ctx, "Page.navigate", map[string]any{"url": url})
	if err != nil {
		return err
	}
	var r struct {
		ErrorText string `json:"errorText"`
	}
	if err := json.Unmarshal(res, &r); err == nil && r.ErrorText != "" {
		return fmt.Errorf("loading %s: %s", url, r.ErrorText)
	}
	return nil
}

// Eval evaluates a JavaScript expression in the page and decodes its
// value (JSON-able) into out, unless out is nil.
func (p *Page) Eval(ctx context.Context, expr string, out any) error {
	res, err := p.call(ctx, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true})
	if err != nil {
		return err
	}
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return fmt.Errorf("evaluating %q: %w", expr, err)
	}
	if r.Exception != nil {
		return fmt.Errorf("evaluating %q: %s %s", expr, r.Exception.Text, r.Exception.Exception.Description)
	}
	if out == nil || len(r.Result.Value) == 0 {
		return nil
	}
	return json.Unmarshal(r.Result.Value, out)
}

// WaitFor evaluates expr every poll until it is true, and fails with the
// last value of describe (an expression saying what the page shows) when
// ctx ends first.
func (p *Page) WaitFor(ctx context.Context, what, expr, describe string) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		var ok bool
		err := p.Eval(ctx, "!!("+expr+")", &ok)
		if err == nil && ok {
			return nil
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			var shown any
			_ = p.Eval(context.Background(), describe, &shown)
			return fmt.Errorf("waiting for %s: %w (last error %v); the page shows: %v", what, ctx.Err(), err, shown)
		}
	}
}

// Type types text into the focused element as a person would (the
// browser's own text input, firing the page's input events).
func (p *Page) Type(ctx context.Context, text string) error {
	_, err := p.call(ctx, "Input.insertText", map[string]any{"text": text})
	return err
}

// PressEnter presses and releases the Enter key.
func (p *Page) PressEnter(ctx context.Context) error {
	key := map[string]any{"key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13, "nativeVirtualKeyCode": 13}
	down := map[string]any{"type": "keyDown", "text": "\r"}
	for k, v := range key {
		down[k] = v
	}
	if _, err := p.call(ctx, "Input.dispatchKeyEvent", down); err != nil {
		return err
	}
	up := map[string]any{"type": "keyUp"}
	for k, v := range key {
		up[k] = v
	}
	_, err := p.call(ctx, "Input.dispatchKeyEvent", up)
	return err
}

// Exceptions are the page's uncaught JavaScript exceptions so far.
func (p *Page) Exceptions() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.exceptions...)
}

// Close disconnects from the tab.
func (p *Page) Close() {
	_ = p.conn.Close(websocket.StatusNormalClosure, "")
	p.cancel()
	<-p.done
}
