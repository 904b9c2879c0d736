package main

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"io/fs"
	"math/big"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/cmd/jibohub/skills/trivia"
	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/invoke"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/core/skill/skillhttp"
	"github.com/openjibo/jibod/jcp"
)

// The robot ↔ jibohub end-to-end tests drive both real binaries on
// loopback: jibohub serving its shipped skills with a fixed seed, and
// jibod talking to it with a token jibohub issued.

const hubSeed = "7"

var (
	hubBinOnce sync.Once
	hubBin     string
	hubBinErr  error
)

// jibohubBin builds jibohub once for the package's tests.
func jibohubBin(t *testing.T) string {
	t.Helper()
	hubBinOnce.Do(func() {
		hubBin = filepath.Join(filepath.Dir(jibodBin), "jibohub")
		build := exec.Command("go", "build", "-o", hubBin, "../jibohub")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			hubBinErr = err
			hubBin = string(out)
		}
	})
	require.NoError(t, hubBinErr, "building jibohub: %s", hubBin)
	return hubBin
}

// lineProc is a running binary whose output lines are collected.
type lineProc struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   chan string // standard output
	errs  chan string // standard error
	seen  []string
	seenE []string
}

func startProc(t *testing.T, env []string, bin string, args ...string) *lineProc {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	p := &lineProc{cmd: cmd, in: in, out: make(chan string, 1024), errs: make(chan string, 4096)}
	pump := func(r io.Reader, ch chan string) { // ends when the process's pipe closes
		defer close(ch)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		for sc.Scan() {
			select {
			case ch <- sc.Text():
			default: // a test not reading this stream must not block the process
			}
		}
	}
	go pump(stdout, p.out)
	go pump(stderr, p.errs)
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return p
}

// wait reads ch until a line contains want. The bound only keeps a broken
// build from hanging the run.
func wait(t *testing.T, ch chan string, seen *[]string, want string, within time.Duration) string {
	t.Helper()
	return waitMatch(t, ch, seen, want, func(l string) bool { return strings.Contains(l, want) }, within)
}

func waitMatch(t *testing.T, ch chan string, seen *[]string, want string, match func(string) bool, within time.Duration) string {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case l, ok := <-ch:
			if !ok {
				t.Fatalf("process ended before %q; it wrote %q", want, *seen)
			}
			*seen = append(*seen, l)
			if match(l) {
				return l
			}
		case <-deadline:
			t.Fatalf("no %q within %s; got %q", want, within, *seen)
		}
	}
}

func (p *lineProc) hear(t *testing.T, want string) string {
	t.Helper()
	return wait(t, p.out, &p.seen, want, 30*time.Second)
}

// hearTime waits for the clock skill's answer.
func (p *lineProc) hearTime(t *testing.T) string {
	t.Helper()
	return waitMatch(t, p.out, &p.seen, "the time", clockAnswer.MatchString, 30*time.Second)
}

// hearFact waits for the robot to say one of the fact skill's facts.
func (p *lineProc) hearFact(t *testing.T) {
	t.Helper()
	b, err := os.ReadFile("../jibohub/skills/fact/locale/en-us/fact.dialog")
	require.NoError(t, err)
	l := p.hear(t, "jibo: ")
	for _, f := range strings.Split(string(b), "\n") {
		if f = strings.TrimSpace(f); f != "" && !strings.HasPrefix(f, "#") && strings.Contains(l, f) {
			return
		}
	}
	t.Fatalf("the robot said %q, which is no fact of the fact skill", l)
}

func (p *lineProc) log(t *testing.T, want string) string {
	t.Helper()
	return wait(t, p.errs, &p.seenE, want, 30*time.Second)
}

func (p *lineProc) say(t *testing.T, line string) {
	t.Helper()
	_, err := io.WriteString(p.in, line+"\n")
	require.NoError(t, err)
}

// testHub is jibohub with its key and a robot token.
type testHub struct {
	dir, key, token string
	proc            *lineProc
	url             string
	// extra are more serve flags (--tls-cert and --tls-key for wss://,
	// --skills-config), given again on each start.
	extra []string
}

func newTestHub(t *testing.T, extraArgs ...string) *testHub {
	t.Helper()
	bin := jibohubBin(t)
	h := &testHub{dir: t.TempDir(), extra: extraArgs}
	h.key = filepath.Join(h.dir, "hub.key")
	out, err := exec.Command(bin, "keygen", "--out", h.key).CombinedOutput()
	require.NoError(t, err, "%s", out)
	tok, err := exec.Command(bin, "token", "--key", h.key, "--robot", "Test-Robot-E2E-One").Output()
	require.NoError(t, err)
	h.token = filepath.Join(h.dir, "robot.token")
	require.NoError(t, os.WriteFile(h.token, tok, 0o600))
	h.start(t, "127.0.0.1:0")
	return h
}

// start runs jibohub on addr and reads the URL it serves.
func (h *testHub) start(t *testing.T, addr string) {
	t.Helper()
	args := append([]string{"serve", "--addr", addr, "--key", h.key, "--seed", hubSeed, "--log-level", "info"}, h.extra...)
	h.proc = startProc(t, nil, jibohubBin(t), args...)
	h.url = strings.TrimSpace(h.proc.hear(t, "://"))
}

// kill ends jibohub at once, as a crash would.
func (h *testHub) kill(t *testing.T) {
	t.Helper()
	require.NoError(t, h.proc.cmd.Process.Signal(syscall.SIGKILL))
	_ = h.proc.cmd.Wait()
}

// startRobot runs jibod on the hub and waits until it knows the hub's
// skills.
func startRobot(t *testing.T, h *testHub, encoding string, extra ...string) *lineProc {
	t.Helper()
	args := append([]string{"run", "--input", "stdin", "--speak-wpm", "0", "--log-level", "info",
		"--hub", h.url, "--hub-token", h.token, "--hub-encoding", encoding}, extra...)
	j := startProc(t, []string{"JIBOD_STATE_DIR=" + t.TempDir()}, jibodBin, args...)
	up := j.log(t, "hub link up")
	require.Contains(t, up, "encoding="+encoding, "the hub took the encoding offered")
	j.log(t, "hub catalog applied")
	return j
}

// firstTrivia is the first question jibohub asks with hubSeed, and an
// answer it counts right.
func firstTrivia(t *testing.T) (question, answer string) {
	t.Helper()
	order := trivia.Order(7, trivia.DefaultQuestion)
	q := trivia.Bank[order[0]]
	return q.Text, q.Accepts[0]
}

func TestHubEndToEnd(t *testing.T) {
	for _, enc := range []string{"json", "cbor"} {
		t.Run(enc, func(t *testing.T) {
			h := newTestHub(t)
			j := startRobot(t, h, enc)

			// Single turn: a local intent match of a cloud skill goes as
			// CLIENT_NLU and the fact is spoken.
			j.say(t, "tell me a fun fact")
			j.hearFact(t)

			// Nothing understands it, the hub included: the remote
			// fallback asked (CLIENT_ASR), then the robot's own fallback
			// says it did not understand, offering the next step on the
			// first miss.
			j.say(t, "flibbertigibbet wobbleshnook")
			j.hear(t, "what I can do")
			h.proc.log(t, "CLIENT_ASR")

			// Multi-turn: the question's answer goes back as a new
			// transaction carrying the stored session. The robot got
			// trivia's answer rule ("openjibo.trivia/answer") in the
			// catalog, so it understood the answer itself: CLIENT_NLU.
			question, answer := firstTrivia(t)
			j.say(t, "let's play trivia")
			j.hear(t, question)
			j.say(t, answer)
			j.hear(t, "Question 2")
			turn := h.proc.log(t, "intent="+trivia.IntentSaidPrefix)
			require.Contains(t, turn, "mode=CLIENT_NLU", "the answer was understood on the robot")
			require.Contains(t, turn, "skill=openjibo/trivia")
			for _, l := range j.seen {
				require.NotContains(t, l, "Not quite", "the right answer counted as right")
			}

			// The hub dies while a question waits: the answer cannot reach
			// it, the robot says so, and local skills carry on.
			port := h.url[strings.LastIndex(h.url, ":")+1:]
			h.kill(t)
			j.log(t, "hub link down")
			j.say(t, "seven")
			j.hear(t, "can't reach the cloud")
			j.say(t, "what time is it")
			j.hearTime(t)

			// Back on the same port: the robot reconnects and the cloud
			// skill works again.
			h.start(t, "127.0.0.1:"+port)
			j.log(t, "hub link up")
			j.say(t, "tell me a fun fact")
			j.hearFact(t)
			require.NoError(t, j.in.Close())
			require.NoError(t, j.cmd.Wait(), "jibod exits cleanly at the end of its input")
		})
	}
}

// TestHubProactiveRedirect: the robot sends a TRIGGER when the link first
// comes up; the greeter asks, "yes" makes it redirect to trivia, whose
// first question follows on the same transaction.
func TestHubProactiveRedirect(t *testing.T) {
	h := newTestHub(t)
	j := startRobot(t, h, "cbor", "--hub-link", "per-turn", "--hub-trigger-on-up", "NEW_ARRIVAL")
	j.hear(t, "want to play trivia")
	// Answered at once: the greeter was put in response mode before its
	// question was spoken.
	question, _ := firstTrivia(t)
	j.say(t, "yes")
	j.hear(t, question)
	require.NoError(t, j.in.Close())
	require.NoError(t, j.cmd.Wait())
}

// writeTLSPair writes a self-signed certificate for 127.0.0.1 and its key
// (PEM) into dir.
func writeTLSPair(t *testing.T, dir string) (cert, key string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "jibohub test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	require.NoError(t, err)
	kb, err := x509.MarshalECPrivateKey(k)
	require.NoError(t, err)
	cert, key = filepath.Join(dir, "hub.crt"), filepath.Join(dir, "hub.pem")
	require.NoError(t, os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	require.NoError(t, os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600))
	return cert, key
}

// TestHubEndToEndTLS: jibohub serves wss:// with its own certificate,
// which the robot trusts through --hub-ca only.
func TestHubEndToEndTLS(t *testing.T) {
	cert, key := writeTLSPair(t, t.TempDir())
	h := newTestHub(t, "--tls-cert", cert, "--tls-key", key)
	require.True(t, strings.HasPrefix(h.url, "wss://127.0.0.1:"), h.url)
	j := startRobot(t, h, "cbor", "--hub-ca", cert)
	j.say(t, "tell me a fun fact")
	j.hearFact(t)
	require.NoError(t, j.in.Close())
	require.NoError(t, j.cmd.Wait())
}

// Intents of the slow skill (testdata/hubslow/locale).
const (
	slowIntentWait = "take_it_slow"
	slowIntentQuiz = "slow_quiz"
)

// slowCall is one call the slow skill took: the hub called it, so the
// robot's transaction is in flight.
type slowCall struct {
	typ, intent string
	text        string // the answer heard, for LISTEN_UPDATE
	session     string // id of the session the request carried
}

// slowSkill is a cloud skill (a core/skill Skill) that the test serves
// over HTTP and jibohub calls through --skills-config. It holds its calls
// until the test lets them go, so jibohub can be killed while a
// transaction is in flight: "take it slow" waits on wait, then thanks the
// user; "ask me a slow question" asks at once, in a new session, and its
// answer waits on answer, then is repeated with the id of the session it
// came back with.
type slowSkill struct {
	manifest     *skill.Manifest
	locale       fs.FS
	calls        chan slowCall
	wait, answer chan struct{} // closed: calls of that kind answer
	// letWait and letAnswer close wait and answer, once.
	letWait, letAnswer func()
	quizzes            atomic.Int32
}

var _ skill.Skill = (*slowSkill)(nil)

func newSlowSkill(t *testing.T) *slowSkill {
	t.Helper()
	b, err := os.ReadFile("testdata/hubslow/manifest.json")
	require.NoError(t, err)
	m, err := registry.ParseManifest(b)
	require.NoError(t, err)
	s := &slowSkill{manifest: m, locale: os.DirFS("testdata/hubslow/locale"),
		calls: make(chan slowCall, 16), wait: make(chan struct{}), answer: make(chan struct{})}
	s.letWait = sync.OnceFunc(func() { close(s.wait) })
	s.letAnswer = sync.OnceFunc(func() { close(s.answer) })
	return s
}

func (s *slowSkill) Manifest() *skill.Manifest { return s.manifest }
func (s *slowSkill) Locale() fs.FS             { return s.locale }

func (s *slowSkill) Handle(ctx context.Context, req *protocol.Request) (*protocol.Response, error) {
	c := slowCall{typ: req.Type, intent: req.Data.Result.NLU.IntentName()}
	if a := req.Data.Result.ASR; a != nil {
		c.text = a.Text
	}
	if sess := req.Data.Skill.Session; sess != nil {
		c.session = sess.ID
	}
	select {
	case s.calls <- c:
	default: // the test takes every call; a full channel is its failure to see
	}
	sd := req.Data.Skill
	var gate chan struct{}
	var say string
	switch {
	case req.Type == protocol.TypeListenLaunch && c.intent == slowIntentQuiz:
		sd.Session = &protocol.Session{ID: fmt.Sprintf("quiz-%d", s.quizzes.Add(1)), Data: json.RawMessage(`{"asked":"colour"}`)}
		act, err := skill.ActionJSON(jcp.NewAction(jcp.Question("What is your favourite colour?", "test/slow/answer")))
		if err != nil {
			return nil, err
		}
		return protocol.NewSkillAction(req, sd, act, false), nil
	case req.Type == protocol.TypeListenLaunch && c.intent == slowIntentWait:
		gate, say = s.wait, "Thanks for waiting."
	case req.Type == protocol.TypeListenUpdate:
		gate, say = s.answer, fmt.Sprintf("You said %s, answering %s.", c.text, c.session)
	default:
		return nil, fmt.Errorf("slow skill: unexpected %s with intent %q", req.Type, c.intent)
	}
	select {
	case <-gate:
	case <-ctx.Done(): // the hub went away (or gave up) meanwhile
		return nil, ctx.Err()
	}
	act, err := skill.ActionJSON(jcp.NewAction(jcp.Say(say)))
	if err != nil {
		return nil, err
	}
	return protocol.NewSkillAction(req, sd, act, true), nil
}

// took waits until the hub has called the skill and returns the call.
func (s *slowSkill) took(t *testing.T) slowCall {
	t.Helper()
	select {
	case c := <-s.calls:
		return c
	case <-time.After(30 * time.Second): // only keeps a broken build from hanging
		t.Fatal("the hub never called the slow skill")
		return slowCall{}
	}
}

// serveSlowSkill serves s over HTTP and writes a --skills-config listing
// it, with its manifest and locale, into a temporary directory.
func serveSlowSkill(t *testing.T, s *slowSkill) (config string) {
	t.Helper()
	srv := httptest.NewServer(skillhttp.NewHandler(s, skillhttp.ServerOptions{}))
	t.Cleanup(srv.Close)
	// Registered after srv.Close, so it runs first: no call is left
	// holding.
	t.Cleanup(func() { s.letWait(); s.letAnswer() })
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, os.DirFS("testdata/hubslow")))
	man, err := os.ReadFile("testdata/hubslow/manifest.json")
	require.NoError(t, err)
	cfg, err := json.Marshal(map[string]any{"skills": []any{map[string]any{
		"url": srv.URL + skillhttp.Path, "manifest": json.RawMessage(man), "locale": "locale"}}})
	require.NoError(t, err)
	config = filepath.Join(dir, "skills.json")
	require.NoError(t, os.WriteFile(config, cfg, 0o600))
	return config
}

// TestHubKilledMidTurn: jibohub dies while a transaction is in flight —
// its HTTP skill has been called and not yet answered. The robot says it
// cannot reach the cloud (the link dropped: neither silence nor a
// timeout), local skills carry on, and once jibohub is back on the same
// port the robot reconnects and the cloud skill answers again. Then the
// same with the answer to a cloud skill's question in flight: no state is
// lost, the answer said again after the restart reaches the skill with
// its session.
func TestHubKilledMidTurn(t *testing.T) {
	for _, tc := range []struct{ encoding, link string }{
		{"json", "persistent"}, {"cbor", "persistent"}, {"cbor", "per-turn"},
	} {
		t.Run(tc.encoding+"/"+tc.link, func(t *testing.T) {
			sk := newSlowSkill(t)
			h := newTestHub(t, "--skills-config", serveSlowSkill(t, sk))
			state := t.TempDir()
			j := startRobot(t, h, tc.encoding, "--hub-link", tc.link, "--state", state)
			port := h.url[strings.LastIndex(h.url, ":")+1:]
			killInFlight := func(t *testing.T) (said string) {
				t.Helper()
				h.kill(t)
				l := j.log(t, "cloud skill unreachable")
				require.Contains(t, l, "dropped mid-turn", "the robot saw the link drop, not a timeout")
				return j.hear(t, "can't reach the cloud")
			}
			restart := func(t *testing.T) {
				t.Helper()
				h.start(t, "127.0.0.1:"+port)
				// A per-turn link went down with the dropped turn too, and
				// its probe finds the new hub.
				j.log(t, "hub link up")
			}

			// A launch in flight.
			j.say(t, "take it slow")
			c := sk.took(t)
			require.Equal(t, slowCall{typ: protocol.TypeListenLaunch, intent: slowIntentWait}, c)
			killInFlight(t)
			j.say(t, "what time is it")
			j.hearTime(t)

			sk.letWait()
			restart(t)
			j.say(t, "take it slow")
			require.Equal(t, protocol.TypeListenLaunch, sk.took(t).typ)
			j.hear(t, "Thanks for waiting")

			// An answer in flight: the question's session went with it.
			j.say(t, "ask me a slow question")
			require.Equal(t, slowIntentQuiz, sk.took(t).intent)
			j.hear(t, "favourite colour")
			j.say(t, "blue")
			c = sk.took(t)
			require.Equal(t, slowCall{typ: protocol.TypeListenUpdate, text: "blue", session: "quiz-1"}, c)
			said := killInFlight(t)
			require.Contains(t, said, "your answer", "the offline answer asks for the answer again (OfflineAnswerMIM)")
			require.Contains(t, said, "again")

			// Once the hub is back, the answer said again reaches the quiz
			// with its session: the robot kept it (the offline reply was
			// not final), the remote fallback names the quiz and its
			// session in CONTEXT with hotphrase false (jibo.md §1.3), and
			// the hub, matching no launch intent, routes the turn to the
			// running skill as LISTEN_UPDATE (§1.5).
			sk.letAnswer()
			restart(t)
			j.say(t, "blue")
			require.Equal(t, slowCall{typ: protocol.TypeListenUpdate, text: "blue", session: "quiz-1"}, sk.took(t),
				"the re-said answer went to the quiz it answers")
			j.hear(t, "You said blue, answering quiz-1.")

			// The quiz ended with that answer: asking again starts a new
			// one, which works end to end.
			j.say(t, "ask me a slow question")
			require.Equal(t, slowCall{typ: protocol.TypeListenLaunch, intent: slowIntentQuiz}, sk.took(t),
				"a new quiz: the launch carries no session")
			j.hear(t, "favourite colour")
			j.say(t, "blue")
			require.Equal(t, slowCall{typ: protocol.TypeListenUpdate, text: "blue", session: "quiz-2"}, sk.took(t))
			j.hear(t, "You said blue, answering quiz-2.")
			require.NoError(t, j.in.Close())
			require.NoError(t, j.cmd.Wait(), "jibod exits cleanly at the end of its input")

			// The run records: the answer said again went on with the
			// quiz's conversation, so it is recorded as an update, like
			// the answers the robot sent itself, never as a launch.
			stdout, stderr, code := runJibod(t, "", "skills", "runs", "--state", state, "--skill", "test/slow", "--json")
			require.Equal(t, 0, code, stderr)
			var types []string
			for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
				var r invoke.Record
				require.NoError(t, json.Unmarshal([]byte(l), &r))
				types = append([]string{r.RequestType}, types...) // newest first
			}
			L, U := protocol.TypeListenLaunch, protocol.TypeListenUpdate
			require.Equal(t, []string{L, L, L, U, U, L, U}, types,
				"slow, slow again, quiz, its answer (offline), the answer said again, a new quiz, its answer")
			stdout, stderr, code = runJibod(t, "", "skills", "runs", "--state", state, "--skill", "test/slow")
			require.Equal(t, 0, code, stderr)
			require.Equal(t, 3, strings.Count(stdout, " LISTEN_UPDATE "), "the table shows each turn's type:\n%s", stdout)
		})
	}
}
