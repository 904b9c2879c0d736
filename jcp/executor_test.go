package jcp_test

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/jcp"
)

// fakeVoice records what it is asked to say. Texts in block wait until
// their channel is closed or the context ends; texts in fail return that
// error; every utterance takes speakTime of (bubble) time.
type fakeVoice struct {
	speakTime time.Duration
	block     map[string]chan struct{}
	fail      map[string]error
	entered   chan string // receives each text as Say starts, if set

	mu        sync.Mutex
	said      []string
	active    int
	maxActive int
	ctxErrs   []error
}

func (v *fakeVoice) Say(ctx context.Context, text string) error {
	v.mu.Lock()
	v.active++
	v.maxActive = max(v.maxActive, v.active)
	v.mu.Unlock()
	defer func() {
		v.mu.Lock()
		v.active--
		v.mu.Unlock()
	}()
	if v.entered != nil {
		v.entered <- text
	}
	if err := v.fail[text]; err != nil {
		return err
	}
	if v.speakTime > 0 {
		time.Sleep(v.speakTime)
	}
	if ch := v.block[text]; ch != nil {
		select {
		case <-ch:
		case <-ctx.Done():
			v.mu.Lock()
			v.ctxErrs = append(v.ctxErrs, ctx.Err())
			v.mu.Unlock()
			return ctx.Err()
		}
	}
	v.mu.Lock()
	v.said = append(v.said, text)
	v.mu.Unlock()
	return nil
}

func (v *fakeVoice) Said() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]string(nil), v.said...)
}

// fakeLights is a ring of pixels that records each Set as the colour of its
// first pixel.
type fakeLights struct {
	mu   sync.Mutex
	px   []color.RGBA
	sets []string
	err  error
}

func newFakeLights(n int, c color.RGBA) *fakeLights {
	l := &fakeLights{px: make([]color.RGBA, n)}
	for i := range l.px {
		l.px[i] = c
	}
	return l
}

func (l *fakeLights) Pixels() []color.RGBA {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]color.RGBA(nil), l.px...)
}

func (l *fakeLights) Set(ctx context.Context, px []color.RGBA) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return l.err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	l.px = append(l.px[:0], px...)
	l.sets = append(l.sets, fmt.Sprintf("#%02x%02x%02x", px[0].R, px[0].G, px[0].B))
	return nil
}

func (l *fakeLights) Sets() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.sets...)
}

type fakeState struct {
	mu      sync.Mutex
	calls   []string
	err     error
	waitFor chan struct{} // if set, calls wait for it to close
	entered chan struct{} // if set, closed when the first call starts
	once    sync.Once
}

func (s *fakeState) record(ctx context.Context, call string) error {
	if s.entered != nil {
		s.once.Do(func() { close(s.entered) })
	}
	if s.waitFor != nil {
		select {
		case <-s.waitFor:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, call)
	return s.err
}

func (s *fakeState) SetPresentPerson(ctx context.Context, p jcp.SetPresentPerson) error {
	return s.record(ctx, fmt.Sprintf("present %s %s %g", p.LooperID, p.Source, p.Confidence))
}

func (s *fakeState) ImpactEmotion(ctx context.Context, e jcp.ImpactEmotion) error {
	return s.record(ctx, fmt.Sprintf("emotion %s %s", e.Valence, e.Confidence))
}

type fakeListener struct {
	reqs []jcp.ListenRequest
}

func (l *fakeListener) Listen(_ context.Context, req jcp.ListenRequest) (jcp.ListenResult, error) {
	l.reqs = append(l.reqs, req)
	return jcp.ListenResult{ASR: "yes please"}, nil
}

// events collects behaviour events as "ID kind".
type events struct {
	mu  sync.Mutex
	got []string
}

func (e *events) observe(ev jcp.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.got = append(e.got, ev.BehaviorID+" "+string(ev.Kind))
}

func (e *events) list() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.got...)
}

func mustParse(t *testing.T, behavior string) *jcp.Action {
	t.Helper()
	a, err := jcp.ParseAction([]byte(env(behavior)))
	require.NoError(t, err)
	return a
}

// statuses summarises per-behaviour results as "ID status[ note]".
func statuses(res *jcp.Result) []string {
	out := make([]string, len(res.Behaviors))
	for i, b := range res.Behaviors {
		out[i] = b.ID + " " + string(b.Status)
		if b.Note != "" {
			out[i] += " (" + b.Note + ")"
		}
	}
	return out
}

func newExecutor(t *testing.T, cfg jcp.ExecutorConfig) *jcp.Executor {
	t.Helper()
	ex, err := jcp.NewExecutor(cfg)
	require.NoError(t, err)
	return ex
}

func TestNewExecutorNeedsVoice(t *testing.T) {
	_, err := jcp.NewExecutor(jcp.ExecutorConfig{})
	require.Error(t, err)
	assert.Equal(t, "new JCP executor: no Voice configured", err.Error())
}

// A SLIM speaks its PLAY segment by segment, with the ring lit in the
// speaking colour, then puts the ring back.
func TestRunSLIMSpeaksWithLights(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		voice := &fakeVoice{}
		idle := color.RGBA{R: 0x10, A: 0xff}
		lights := newFakeLights(3, idle)
		var ev events
		ex := newExecutor(t, jcp.ExecutorConfig{Voice: voice, Lights: lights, Observer: ev.observe})

		start := time.Now()
		res, err := ex.Run(context.Background(), mustParse(t, say("s", "<speak>Hello <break size='2'/> world &amp; all</speak>")))
		require.NoError(t, err)

		assert.Equal(t, jcp.StatusSucceeded, res.Status)
		assert.Equal(t, []string{"Hello", "world & all"}, voice.Said())
		assert.Equal(t, 2*time.Second, time.Since(start), "the break pauses between the segments")
		assert.Equal(t, []string{"Hello world & all"}, res.Spoken)
		assert.Equal(t, []string{"#00aaff", "#100000"}, lights.Sets())
		assert.Equal(t, []color.RGBA{idle, idle, idle}, lights.Pixels(), "ring restored")
		assert.Equal(t, []string{"s succeeded", "s-p succeeded"}, statuses(res))
		assert.Equal(t, []string{"s started", "s-p started", "s-p speaking", "s-p cue", "s-p succeeded", "s succeeded"}, ev.list(), "the break is a cue on the timeline")
		assert.Nil(t, res.Listen)
		for _, b := range res.Behaviors {
			assert.False(t, b.End.Before(b.Start))
		}
	})
}

func TestRunCustomSpeakingColorAndFailingLights(t *testing.T) {
	voice := &fakeVoice{}
	lights := newFakeLights(2, color.RGBA{A: 0xff})
	ex := newExecutor(t, jcp.ExecutorConfig{Voice: voice, Lights: lights, SpeakingColor: color.RGBA{R: 0xff, A: 0xff}})
	_, err := ex.Run(context.Background(), jcp.NewAction(jcp.Say("hi")))
	require.NoError(t, err)
	assert.Equal(t, []string{"#ff0000", "#000000"}, lights.Sets())

	// The ring is a cue: when it fails, speech still happens.
	broken := newFakeLights(2, color.RGBA{})
	broken.err = errors.New("spi bus gone")
	ex = newExecutor(t, jcp.ExecutorConfig{Voice: voice, Lights: broken})
	res, err := ex.Run(context.Background(), jcp.NewAction(jcp.Say("still")))
	require.NoError(t, err)
	assert.Equal(t, []string{"still"}, res.Spoken)
}

// SEQUENCE runs children in order and stops at the first failure (§3.1).
func TestRunSequenceStopsAtFailure(t *testing.T) {
	voice := &fakeVoice{fail: map[string]error{"two": errors.New("speaker unplugged")}}
	var ev events
	ex := newExecutor(t, jcp.ExecutorConfig{Voice: voice, Observer: ev.observe})
	a := mustParse(t, `{"id":"seq","type":"SEQUENCE","children":[`+say("a", "one")+`,`+say("b", "two")+`,`+say("c", "three")+`]}`)

	res, err := ex.Run(context.Background(), a)
	require.Error(t, err)
	require.NotNil(t, res)
	assert.Equal(t, jcp.StatusFailed, res.Status)
	assert.Equal(t, "run JCP action: SLIM b: play: say: speaker unplugged", err.Error())
	assert.Equal(t, "SLIM b: play: say: speaker unplugged", res.Error)
	assert.Equal(t, []string{"one"}, voice.Said())
	assert.Equal(t, []string{"one"}, res.Spoken)
	assert.Equal(t, []string{"seq failed", "a succeeded", "a-p succeeded", "b failed", "b-p failed"}, statuses(res))
	assert.Equal(t, "say: speaker unplugged", res.Behaviors[4].Error)
	assert.Equal(t, []string{
		"seq started", "a started", "a-p started", "a-p speaking", "a-p succeeded", "a succeeded",
		"b started", "b-p started", "b-p speaking", "b-p failed", "b failed", "seq failed",
	}, ev.list())
}

// A question anywhere but last is allowed; only the last listen is
// returned for the skill host to act on (§3.2 step 6).
func TestRunQuestionsReturnLastListen(t *testing.T) {
	voice := &fakeVoice{}
	ex := newExecutor(t, jcp.ExecutorConfig{Voice: voice})
	a := mustParse(t, `{"id":"seq","type":"SEQUENCE","children":[
		{"id":"q1","type":"SLIM","config":{"play":{"id":"q1p","esml":"First?"},"listen":{"id":"q1l","contexts":["one"]}}},
		{"id":"q2","type":"SLIM","config":{"play":{"id":"q2p","esml":"Second?"},"listen":{"id":"q2l","contexts":["two/a","two/b"],"intents":[{"type":"CANCEL"}]}}}]}`)
	res, err := ex.Run(context.Background(), a)
	require.NoError(t, err)
	assert.Equal(t, []string{"First?", "Second?"}, voice.Said())
	require.NotNil(t, res.Listen)
	assert.Equal(t, jcp.ListenRequest{SLIMID: "q2", BehaviorID: "q2l", Contexts: []string{"two/a", "two/b"}, Intents: []byte(`[{"type":"CANCEL"}]`)}, *res.Listen)
	assert.Contains(t, statuses(res), "q1l succeeded")
}

func TestRunWithListener(t *testing.T) {
	li := &fakeListener{}
	ex := newExecutor(t, jcp.ExecutorConfig{Voice: &fakeVoice{}, Listener: li})
	res, err := ex.Run(context.Background(), mustParse(t, `{"id":"q","type":"SLIM","config":{"play":{"esml":"Tea?"},"listen":{"id":"l","contexts":["yes_no"]}}}`))
	require.NoError(t, err)
	require.Len(t, li.reqs, 1)
	assert.Equal(t, []string{"yes_no"}, li.reqs[0].Contexts)
	require.NotNil(t, res.Listen)
	require.NotNil(t, res.Listen.Heard)
	assert.Equal(t, "yes please", res.Listen.Heard.ASR)
}

// A SLIM's display is reported as skipped (no display device) and does not
// fail the SLIM; it is shown with the play or, with START_ON_LISTEN, after.
func TestRunDisplaySkipped(t *testing.T) {
	tests := []struct {
		name, options string
		want          []string
	}{
		{"start on play", ``, []string{"s succeeded", "d skipped (no display device)", "p succeeded", "l succeeded"}},
		{"start on listen", `,"options":{"displayMode":"START_ON_LISTEN"}`, []string{"s succeeded", "p succeeded", "d skipped (no display device)", "l succeeded"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex := newExecutor(t, jcp.ExecutorConfig{Voice: &fakeVoice{}})
			res, err := ex.Run(context.Background(), mustParse(t, `{"id":"s","type":"SLIM","config":{
				"play":{"id":"p","esml":"Look."},"listen":{"id":"l","contexts":["c"]},"display":{"id":"d","view":{"type":"EYE"}}}`+tt.options+`}`))
			require.NoError(t, err)
			assert.Equal(t, jcp.StatusSucceeded, res.Status)
			assert.Equal(t, tt.want, statuses(res))
		})
	}
}

// SET_PRESENT_PERSON and IMPACT_EMOTION go to the State when there is one
// and are skipped otherwise.
func TestRunStateBehaviours(t *testing.T) {
	a := mustParse(t, `{"id":"seq","type":"SEQUENCE","children":[
		{"id":"p","type":"SET_PRESENT_PERSON","looperId":"ann","source":"USER_OVERRIDE","confidence":100},
		{"id":"e","type":"IMPACT_EMOTION","valence":"HIGH_POS"}]}`)

	state := &fakeState{}
	res, err := newExecutor(t, jcp.ExecutorConfig{Voice: &fakeVoice{}, State: state}).Run(context.Background(), a)
	require.NoError(t, err)
	assert.Equal(t, []string{"present ann USER_OVERRIDE 100", "emotion HIGH_POS "}, state.calls)
	assert.Equal(t, []string{"seq succeeded", "p succeeded", "e succeeded"}, statuses(res))

	res, err = newExecutor(t, jcp.ExecutorConfig{Voice: &fakeVoice{}}).Run(context.Background(), a)
	require.NoError(t, err)
	assert.Equal(t, []string{"seq succeeded", "p skipped (no state configured)", "e skipped (no state configured)"}, statuses(res))

	// A skipped root still makes a successful run.
	res, err = newExecutor(t, jcp.ExecutorConfig{Voice: &fakeVoice{}}).Run(context.Background(), mustParse(t, `{"id":"e","type":"IMPACT_EMOTION"}`))
	require.NoError(t, err)
	assert.Equal(t, jcp.StatusSucceeded, res.Status)

	state = &fakeState{err: errors.New("no such person")}
	res, err = newExecutor(t, jcp.ExecutorConfig{Voice: &fakeVoice{}, State: state}).Run(context.Background(), a)
	require.Error(t, err)
	assert.Equal(t, []string{"seq failed", "p failed"}, statuses(res))
	assert.Contains(t, err.Error(), "SET_PRESENT_PERSON p: no such person")
}

// PARALLEL children really run at the same time: speech and the state
// change each wait for the other to have started, which only completes if
// both run concurrently (otherwise synctest reports a deadlock).
func TestRunParallelIsConcurrent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stateEntered := make(chan struct{})
		speechStarted := make(chan struct{})
		voice := &fakeVoice{block: map[string]chan struct{}{"hi": stateEntered}, entered: make(chan string, 1)}
		state := &fakeState{entered: stateEntered, waitFor: speechStarted}
		go func() {
			<-voice.entered
			close(speechStarted)
		}()
		ex := newExecutor(t, jcp.ExecutorConfig{Voice: voice, State: state})
		res, err := ex.Run(context.Background(), mustParse(t, `{"id":"par","type":"PARALLEL","children":[`+say("s", "hi")+`,{"id":"e","type":"IMPACT_EMOTION","valence":"LOW_POS"}]}`))
		require.NoError(t, err)
		assert.Equal(t, jcp.StatusSucceeded, res.Status)
		assert.Equal(t, []string{"hi"}, voice.Said())
		assert.Equal(t, []string{"emotion LOW_POS "}, state.calls)
	})
}

// Without succeedOnFirst a failing child fails the PARALLEL at once and the
// others are cancelled.
func TestRunParallelFailsFast(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		voice := &fakeVoice{block: map[string]chan struct{}{"forever": make(chan struct{})}, entered: make(chan string, 1)}
		speaking := make(chan struct{})
		go func() {
			<-voice.entered
			close(speaking)
		}()
		// The state change fails once speech is under way.
		state := &fakeState{err: errors.New("emotion engine down"), waitFor: speaking}
		ex := newExecutor(t, jcp.ExecutorConfig{Voice: voice, State: state})
		res, err := ex.Run(context.Background(), mustParse(t, `{"id":"par","type":"PARALLEL","children":[`+say("s", "forever")+`,{"id":"e","type":"IMPACT_EMOTION"}]}`))
		require.Error(t, err)
		assert.Contains(t, err.Error(), "IMPACT_EMOTION e: emotion engine down")
		assert.Equal(t, jcp.StatusFailed, res.Status)
		assert.ElementsMatch(t, []string{"par failed", "s canceled", "s-p canceled", "e failed"}, statuses(res))
		assert.Equal(t, []error{context.Canceled}, voice.ctxErrs, "the voice saw its context cancelled")
	})
}

// With succeedOnFirst the first child to succeed ends the PARALLEL and the
// others report canceled.
func TestRunParallelSucceedOnFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		voice := &fakeVoice{block: map[string]chan struct{}{"forever": make(chan struct{})}}
		var ev events
		ex := newExecutor(t, jcp.ExecutorConfig{Voice: voice, State: &fakeState{}, Observer: ev.observe})
		res, err := ex.Run(context.Background(), mustParse(t, `{"id":"par","type":"PARALLEL","succeedOnFirst":true,"children":[`+say("s", "forever")+`,{"id":"p","type":"SET_PRESENT_PERSON","looperId":"x","source":"FACE","confidence":1}]}`))
		require.NoError(t, err)
		assert.Equal(t, jcp.StatusSucceeded, res.Status)
		assert.ElementsMatch(t, []string{"par succeeded", "s canceled", "s-p canceled", "p succeeded"}, statuses(res))
		assert.Contains(t, ev.list(), "s-p canceled")
		assert.Empty(t, res.Spoken)
	})
}

func TestRunParallelSucceedOnFirstEdges(t *testing.T) {
	// Every child failing fails the PARALLEL.
	voice := &fakeVoice{fail: map[string]error{"a": errors.New("a broke"), "b": errors.New("b broke")}}
	ex := newExecutor(t, jcp.ExecutorConfig{Voice: voice})
	res, err := ex.Run(context.Background(), mustParse(t, `{"id":"par","type":"PARALLEL","succeedOnFirst":true,"children":[`+say("a", "a")+`,`+say("b", "b")+`]}`))
	require.Error(t, err)
	assert.Equal(t, jcp.StatusFailed, res.Status)
	assert.Contains(t, err.Error(), "broke")

	// A skipped child is not a success: it does not cancel the others.
	voice = &fakeVoice{}
	ex = newExecutor(t, jcp.ExecutorConfig{Voice: voice})
	res, err = ex.Run(context.Background(), mustParse(t, `{"id":"par","type":"PARALLEL","succeedOnFirst":true,"children":[{"id":"e","type":"IMPACT_EMOTION"},`+say("s", "still said")+`]}`))
	require.NoError(t, err)
	assert.Equal(t, []string{"still said"}, voice.Said())
	assert.Contains(t, statuses(res), "s succeeded")
}

// Cancelling the run stops speech and every running behaviour reports
// canceled; the ring is put back.
func TestRunCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		voice := &fakeVoice{block: map[string]chan struct{}{"long": make(chan struct{})}, entered: make(chan string, 1)}
		lights := newFakeLights(1, color.RGBA{G: 0x11, A: 0xff})
		var ev events
		ex := newExecutor(t, jcp.ExecutorConfig{Voice: voice, Lights: lights, Observer: ev.observe})
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			<-voice.entered
			cancel()
		}()
		res, err := ex.Run(ctx, mustParse(t, `{"id":"seq","type":"SEQUENCE","children":[`+say("a", "long")+`,`+say("b", "never")+`]}`))
		require.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, jcp.StatusCanceled, res.Status)
		assert.Equal(t, []string{"seq canceled", "a canceled", "a-p canceled"}, statuses(res))
		assert.Equal(t, []error{context.Canceled}, voice.ctxErrs)
		assert.Empty(t, voice.Said())
		assert.Equal(t, []string{"#00aaff", "#001100"}, lights.Sets(), "ring restored after cancellation")
		assert.Equal(t, []string{"seq started", "a started", "a-p started", "a-p speaking", "a-p canceled", "a canceled", "seq canceled"}, ev.list())
	})
}

// One speech at a time within a PARALLEL: the TTS resource serialises
// speech, and each speaking cue completes before the next begins.
func TestRunParallelSpeechTakesTurns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		voice := &fakeVoice{speakTime: time.Second}
		lights := newFakeLights(1, color.RGBA{A: 0xff})
		ex := newExecutor(t, jcp.ExecutorConfig{Voice: voice, Lights: lights})
		res, err := ex.Run(context.Background(), mustParse(t, `{"id":"par","type":"PARALLEL","children":[`+say("a", "alpha")+`,`+say("b", "bravo")+`,`+say("c", "charlie")+`]}`))
		require.NoError(t, err)
		assert.Equal(t, jcp.StatusSucceeded, res.Status)
		assert.Equal(t, 1, voice.maxActive)
		assert.ElementsMatch(t, []string{"alpha", "bravo", "charlie"}, voice.Said())
		assert.Equal(t, []string{"#00aaff", "#000000", "#00aaff", "#000000", "#00aaff", "#000000"}, lights.Sets())
	})
}

// Speech is arbitrated across concurrent runs too, and a run that gives up
// waiting for the voice returns without deadlocking the holder.
func TestRunArbitrationAcrossRuns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		voice := &fakeVoice{block: map[string]chan struct{}{"holder": release}}
		ex := newExecutor(t, jcp.ExecutorConfig{Voice: voice})

		holder := make(chan *jcp.Result, 1)
		go func() {
			res, _ := ex.Run(context.Background(), jcp.NewAction(jcp.Say("holder")))
			holder <- res
		}()
		synctest.Wait() // the holder is speaking

		ctx, cancel := context.WithCancel(context.Background())
		loser := make(chan error, 1)
		var loserRes *jcp.Result
		go func() {
			var err error
			loserRes, err = ex.Run(ctx, jcp.NewAction(jcp.Say("loser")))
			loser <- err
		}()
		synctest.Wait() // the loser is waiting for the voice
		cancel()
		err := <-loser
		require.ErrorIs(t, err, context.Canceled)
		assert.Contains(t, err.Error(), "wait for TTS")
		assert.Equal(t, jcp.StatusCanceled, loserRes.Status)

		close(release)
		res := <-holder
		assert.Equal(t, jcp.StatusSucceeded, res.Status)
		assert.Equal(t, []string{"holder"}, voice.Said())

		// A third run gets the voice once it is free.
		res2, err := ex.Run(context.Background(), jcp.NewAction(jcp.Say("next")))
		require.NoError(t, err)
		assert.Equal(t, []string{"next"}, res2.Spoken)
	})
}

func TestRunInvalidActionRunsNothing(t *testing.T) {
	voice := &fakeVoice{}
	var ev events
	ex := newExecutor(t, jcp.ExecutorConfig{Voice: voice, Observer: ev.observe})
	res, err := ex.Run(context.Background(), jcp.NewAction(jcp.Sequence(jcp.Say("ok"), jcp.Say("<es>"))))
	require.Error(t, err)
	assert.Nil(t, res)
	assert.Contains(t, err.Error(), "run JCP action: config.jcp.children[1].config.play.esml: offset 0: <es> is never closed")
	assert.Empty(t, voice.Said())
	assert.Empty(t, ev.list())

	_, err = ex.Run(context.Background(), nil)
	require.EqualError(t, err, "run JCP action: action is nil")
}
