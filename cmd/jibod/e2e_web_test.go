package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openjibo/jibod/core/diag"
	"github.com/openjibo/jibod/core/web/browsertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The page's own elements the test reads, as JavaScript.
const (
	jsConversation = `[...document.querySelectorAll('#conversation li')].map(li => li.dataset.kind + ': ' + li.textContent)`
	jsPose         = `document.getElementById('robot').dataset.pose`
)

// TestWebPageInBrowser loads the real binary's page in headless Chromium:
// the robot drawn at rest, a person typing "hello" and pressing Enter, the
// turn shown as it happens (what was typed, the intent matched and why,
// the answer, the ring lighting up), the body drawn where it moves (a
// technician turns the head through the shell on the same robot), and a
// technician unlocking the page with the PIN to set the volume. Every wait
// is for a condition, bounded generously for a loaded machine.
func TestWebPageInBrowser(t *testing.T) {
	exe := browsertest.Need(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()

	const pin = "2468"
	hash, err := diag.HashPIN(pin, diag.MinPINIterations)
	require.NoError(t, err)
	cmd := exec.Command(jibodBin, "run", "--board", "sim", "--input", "shell", "--shell-socket", "off",
		"--state", t.TempDir(), "--web", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), pinHashEnv+"="+hash)
	shell, err := cmd.StdinPipe()
	require.NoError(t, err)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	cmd.Stdout = io.Discard
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	ended := false
	defer func() {
		if !ended {
			_ = cmd.Process.Kill()
			<-exited
		}
	}()

	// The page's address is printed at start.
	urls := make(chan string, 1)
	errText := &syncBuf{}
	go func() {
		sc := bufio.NewScanner(stderr)
		re := regexp.MustCompile(`web page on (http://\S+)`)
		for sc.Scan() {
			errText.add(sc.Text() + "\n")
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1]
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	var url string
	select {
	case url = <-urls:
	case err := <-exited:
		ended = true
		t.Fatalf("jibod exited before serving its page: %v\n%s", err, errText.String())
	case <-ctx.Done():
		t.Fatal("jibod printed no web page address")
	}

	b, err := browsertest.Launch(ctx, exe, t.TempDir())
	require.NoError(t, err)
	defer b.Close()
	page, err := b.Page(ctx)
	require.NoError(t, err, b.Output())
	defer page.Close()
	require.NoError(t, page.Navigate(ctx, url))

	wait := func(what, expr, describe string) {
		t.Helper()
		require.NoError(t, page.WaitFor(ctx, what, expr, describe))
	}
	wait("the live link", `document.getElementById('link').textContent === 'live'`, `document.getElementById('link').textContent`)
	wait("the robot drawn", jsPose+` !== undefined && `+jsPose+`.split(' ').length === 3`, jsPose)
	wait("the LED ring drawn", `document.querySelectorAll('#leds circle').length === 12`, `document.getElementById('leds').dataset.colours`)
	wait("the skills listed", `document.getElementById('skills').textContent.includes('greet (template)')`, `document.getElementById('skills').textContent`)
	wait("the status shown", `document.getElementById('status').textContent.includes('control loop') && document.querySelectorAll('#warnings li').length > 0`,
		`document.getElementById('status').textContent`)

	// A person types to the robot, which answers with its body too.
	before := evalString(ctx, t, page, jsPose)
	require.NoError(t, page.Eval(ctx, `document.getElementById('say-text').focus()`, nil))
	require.NoError(t, page.Type(ctx, "hello"))
	require.NoError(t, page.PressEnter(ctx))
	wait("the typed line", `[...document.querySelectorAll('#conversation li.typed')].some(li => li.textContent.includes('hello'))`, jsConversation)
	wait("the intent matched and why", `[...document.querySelectorAll('#conversation li.matched')].some(li =>
		li.textContent.includes('jibo.basics:greet') && li.textContent.includes('intents-high') && li.textContent.includes('every word literal'))`, jsConversation)
	wait("the answer", `document.querySelectorAll('#conversation li.said').length > 0`, jsConversation)
	wait("the ring lit for the greeting", `[...document.querySelectorAll('#conversation li.did')].some(li => li.textContent.includes('#00aaff'))`, jsConversation)
	assert.Equal(t, "", evalString(ctx, t, page, `document.getElementById('say-text').value`), "the box is cleared once the robot took the line")

	// The body moved with the answer; the page draws it where it is.
	wait("the body drawn moving", jsPose+` !== '`+before+`'`, jsPose)
	wait("the head's angle shown as drawn", `Math.abs(parseFloat(document.getElementById('deg-top').textContent.replace('head ', '')) -
		parseFloat(`+jsPose+`.split(' ')[2]) * 180 / Math.PI) <= 1`,
		`document.getElementById('deg-top').textContent + ' / ' + `+jsPose)

	// A technician unlocks the page and turns the volume down.
	wait("the unlock form", `!document.getElementById('unlock').hidden`, `document.getElementById('tech-state').textContent`)
	require.NoError(t, page.Eval(ctx, `document.getElementById('pin').focus()`, nil))
	require.NoError(t, page.Type(ctx, pin))
	require.NoError(t, page.PressEnter(ctx))
	wait("technician mode", `document.getElementById('tech-state').textContent === 'technician' && !document.getElementById('volume-row').hidden`,
		`document.getElementById('tech-state').textContent + ' / ' + document.getElementById('say-note').textContent`)
	require.NoError(t, page.Eval(ctx, `(() => { const v = document.getElementById('volume'); v.value = '3'; v.dispatchEvent(new Event('change')); })()`, nil))
	wait("the volume set", `document.getElementById('tech-note').textContent.includes(' → 3')`, `document.getElementById('tech-note').textContent`)
	wait("the volume change shown", `[...document.querySelectorAll('#conversation li.did')].some(li => li.textContent.includes('sound gain'))`, jsConversation)

	assert.Empty(t, page.Exceptions(), "the page's scripts threw")

	// Closing the shell's input ends the run cleanly.
	require.NoError(t, shell.Close())
	select {
	case err := <-exited:
		ended = true
		require.NoError(t, err, "jibod's exit; stderr:\n%s", errText.String())
	case <-ctx.Done():
		t.Fatal("jibod did not exit after its input ended")
	}
}

func evalString(ctx context.Context, t *testing.T, p *browsertest.Page, expr string) string {
	t.Helper()
	var s string
	require.NoError(t, p.Eval(ctx, expr, &s))
	return s
}

// syncBuf collects text written by one goroutine for another to read.
type syncBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuf) add(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.WriteString(text)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestWebFlagChecked(t *testing.T) {
	for _, bad := range []string{"5426", "localhost", "127.0.0.1:http", ":5426"} {
		_, stderr, code := runJibod(t, "", "run", "--board", "sim", "--input", "stdin", "--web", bad)
		assert.Equal(t, 2, code, bad)
		assert.Contains(t, stderr, "web (--web): web address", bad)
	}
}

// The browser driver is for tests only: it must not reach the robot's
// binary.
func TestBrowserDriverNotInTheBinary(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Contains(t, string(out), "github.com/openjibo/jibod/core/web\n", "the page is in")
	assert.NotContains(t, string(out), "browsertest")
}
