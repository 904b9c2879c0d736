package runtime

import (
	"bytes"
	"context"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/graph"
	"github.com/openjibo/jibod/core/skill/mim/factory"
	"github.com/openjibo/jibod/core/skill/people"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/jcp"
	"github.com/openjibo/jibod/jcp/character"
)

// addPerson adds someone to the people file of the state folder dir, as
// `jibod people add` does from another process, and returns their id.
func addPerson(t *testing.T, dir, first, last string) string {
	t.Helper()
	s, err := people.Open(filepath.Join(dir, people.FileName), people.Options{})
	require.NoError(t, err)
	m, err := s.Add(people.Member{FirstName: first, LastName: last}, false)
	require.NoError(t, err)
	return m.ID
}

var loopTestNow = time.Date(2026, 5, 1, 9, 30, 0, 0, time.UTC)

func TestRuntimeContextCarriesTheLoop(t *testing.T) {
	dir := t.TempDir()
	s, err := people.Open(filepath.Join(dir, people.FileName), people.Options{Location: time.UTC})
	require.NoError(t, err)
	ann, err := s.Add(people.Member{FirstName: "Ann", LastName: "Lee", Gender: "female", Birthdate: "2001-02-03"}, false)
	require.NoError(t, err)
	st := character.New(character.Options{})
	rc := RuntimeContext(st, func() time.Time { return loopTestNow }, s.Loop)

	l := rc().Loop
	require.Len(t, l.Users, 1)
	assert.Equal(t, protocol.LooperInfo{FirstName: "Ann", LastName: "Lee", Gender: "female",
		Birthdate: time.Date(2001, 2, 3, 12, 0, 0, 0, time.UTC).UnixMilli(), ID: ann.ID}, l.Users[0])
	assert.Equal(t, ann.ID, l.Owner)
	assert.Regexp(t, `^jibo-`, l.Jibo.ID)
	assert.Regexp(t, `^loop-`, l.LoopID)

	// A change made by another process (`jibod people`) reaches the next
	// request.
	addPerson(t, dir, "Cleo", "")
	l = rc().Loop
	require.Len(t, l.Users, 2)
	assert.Equal(t, "Cleo", l.Users[1].FirstName)

	// On the wire as jibo.md §2.2 has it.
	b, err := rc().Loop.MarshalJSON()
	require.NoError(t, err)
	assert.Contains(t, string(b), `"users":[{"firstName":"Ann","lastName":"Lee","phoneticName":"","gender":"female","birthdate":981201600000,"id":"`+ann.ID+`","accountId":""}`)
	assert.Contains(t, string(b), `"owner":"`+ann.ID+`","loopId":"loop-`)

	assert.Empty(t, RuntimeContext(st, time.Now, nil)().Loop.Users, "no loop: nobody")
}

// A loop file that cannot be used does not keep the robot from starting:
// it runs with nobody in its loop, says why in the log and the shell, and
// leaves the file alone.
func TestRobotStartsWithABadLoopFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, people.FileName)
	bad := []byte(`{"version": 1, "loopId": "loop-1", "jibo": {"id": "jibo-1"}, "owner": "u-ann", "members": [{"id": "u-ann", "firstName": "Ann", "birthdate": "yesterday"}]}`)
	require.NoError(t, os.WriteFile(path, bad, 0o600))
	var logs bytes.Buffer
	r := startRobot(t, Config{StateDir: dir, Log: slog.New(slog.NewTextHandler(&logs, nil))})

	assert.Empty(t, r.People().Loop().Users)
	assert.Contains(t, logs.String(), `level=ERROR msg="the loop file is unusable: nobody is in the loop until it is fixed"`)
	assert.Contains(t, logs.String(), `birthdate \"yesterday\": want a date as YYYY-MM-DD`)
	members, problem := peopleView{r.People()}.Members()
	assert.Empty(t, members)
	assert.ErrorContains(t, problem, "loop file "+path)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, bad, b, "never written over")

	// Fixed by hand, it is taken at the next request.
	require.NoError(t, os.WriteFile(path, bytes.Replace(bad, []byte("yesterday"), []byte("2001-02-03"), 1), 0o600))
	members, problem = peopleView{r.People()}.Members()
	require.NoError(t, problem)
	assert.Equal(t, []string{"Ann"}, []string{members[0].FirstName})
	assert.True(t, members[0].Owner)
}

// offerSkill is a graph skill offering something through the real OptIn
// factory (jibo.md §5.3 OptInFactory): accepted, it greets by first name
// whoever the robot now takes to be speaking; not in the loop, it says it
// does not know them.
type offerSkill struct {
	manifest *skill.Manifest
	g        *graph.Skill
}

var _ skill.Skill = (*offerSkill)(nil)

const (
	offerUtterance = "do you have something for me"
	notInLoopLine  = "I don't know you yet."
)

func newOfferSkill(t *testing.T) *offerSkill {
	t.Helper()
	m, err := registry.ParseManifest([]byte(`{"id": "test/offer", "version": "1.0.0", "name": "Offer",
		"description": "Offers something, asking who it is talking to when told it has the wrong person.",
		"permissions": ["speech", "listen", "person"], "safety_level": "low"}`))
	require.NoError(t, err)
	optIn, err := factory.OptIn("gift", factory.OptInOptions{})
	require.NoError(t, err)
	say := func(name string, text func(d *graph.Data) string) *graph.JCPNode {
		return graph.JCP(name, func(_ context.Context, d *graph.Data) (*jcp.Action, error) {
			return jcp.NewAction(jcp.Say(text(d))), nil
		}, nil, graph.TransitionDone).Final()
	}
	hello := say("hello", func(d *graph.Data) string {
		for _, u := range d.Runtime.Loop.Users {
			if s := d.Runtime.Perception.Speaker; s != nil && *s == u.ID {
				return "Hello, " + u.FirstName + "."
			}
		}
		return "Hello, whoever you are."
	})
	stranger := say("stranger", func(*graph.Data) string { return notInLoopLine })
	g := graph.New("offer", "Done")
	require.NoError(t, g.AddSubGraph(optIn, graph.To(factory.Accepted, hello), graph.To(factory.NotInLoop, stranger),
		graph.ToExit(factory.Declined, "Done")))
	for _, n := range []*graph.JCPNode{hello, stranger} {
		require.NoError(t, g.AddNode(n, graph.ToExit(graph.TransitionDone, "Done")))
	}
	gs, err := graph.NewSkill("test.offer", g, graph.Options{Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	return &offerSkill{manifest: m, g: gs}
}

func (s *offerSkill) Manifest() *skill.Manifest { return s.manifest }

func (s *offerSkill) Locale() fs.FS {
	return fstest.MapFS{"en-us/offer.intent": {Data: []byte(offerUtterance + "\n")}}
}

func (s *offerSkill) Handle(ctx context.Context, req *protocol.Request) (*protocol.Response, error) {
	return s.g.Handle(ctx, req)
}

// TestWhoAmITalkingToEndToEnd: the loop made with `jibod people add`, read
// by the running robot from its state folder, names the person who says
// who they are when a skill's opt-in asks (jibo.md §5.3 OptInFactory,
// wrongID branch; §4 SetLooperIDNode; SET_PRESENT_PERSON), through the
// whole wiring: pipeline, host, answer rules, graph, body. Someone added
// while the robot runs is known at the next question, and announced on
// the bus for the speech grammar.
func TestWhoAmITalkingToEndToEnd(t *testing.T) {
	dir := t.TempDir()
	ann := addPerson(t, dir, "Ann", "Lee")
	addPerson(t, dir, "Cleo", "")

	rec := &recorder{}
	r := startRobot(t, Config{StateDir: dir, Tap: rec.tap,
		Skills: []skill.Skill{newOfferSkill(t)}, LoopWatch: 20 * time.Millisecond})
	u := utter(t, r)

	// "That's not me" to the offer asks who it is talking to.
	askWho := func(t *testing.T, members string) {
		t.Helper()
		require.NotEmpty(t, said(t, u, offerUtterance), "the offer")
		q := said(t, u, "wrong person")
		require.Len(t, q, 1)
		assert.Regexp(t, `^(Oops, my mistake\. Who am I talking to\?|Sorry about that\. Which one of `+regexp.QuoteMeta(members)+` are you\?)$`, q[0],
			"with more than one person in the loop, the question may name them (loop.count, loop.list)")
	}

	askWho(t, "Ann and Cleo")
	assert.Equal(t, []string{"Hello, Ann."}, said(t, u, "this is Ann"))
	snap := r.Body().State.Snapshot()
	require.NotNil(t, snap.Person, "SET_PRESENT_PERSON ran on the body")
	assert.Equal(t, ann, snap.Person.LooperID)
	assert.Equal(t, string(jcp.SourceUserOverride), snap.Person.Source)
	rc := RuntimeContext(r.Body().State, time.Now, r.People().Loop)()
	require.NotNil(t, rc.Perception.Speaker)
	assert.Equal(t, ann, *rc.Perception.Speaker, "the next request says Ann is speaking")

	askWho(t, "Ann and Cleo")
	assert.Equal(t, []string{notInLoopLine}, said(t, u, "this is Dana"), "nobody called Dana yet")

	// Dana is added while the robot runs.
	dana := addPerson(t, dir, "Dana", "")
	require.Eventually(t, func() bool {
		for _, m := range rec.of(people.TopicChanged) {
			if m.Data["count"] == int64(3) { // the bus keeps integers as int64
				return true
			}
		}
		return false
	}, 10*time.Second, 10*time.Millisecond, "the change is announced on the bus")
	askWho(t, "Ann, Cleo and Dana")
	assert.Equal(t, []string{"Hello, Dana."}, said(t, u, "it's Dana"))
	assert.Equal(t, dana, r.Body().State.Snapshot().Person.LooperID)
	assert.Len(t, r.People().Loop().Users, 3)
}
