package jcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/jcp"
	"github.com/openjibo/jibod/motion"
)

// wordVoice speaks each word in 100 ms and logs when each chunk started.
type wordVoice struct {
	start time.Time
	mu    sync.Mutex
	log   []string
	end   time.Duration
}

func (v *wordVoice) Say(ctx context.Context, text string) error {
	v.mu.Lock()
	v.log = append(v.log, time.Since(v.start).Round(10*time.Millisecond).String()+" "+text)
	v.mu.Unlock()
	err := sleep(ctx, time.Duration(len(strings.Fields(text)))*100*time.Millisecond)
	v.mu.Lock()
	v.end = time.Since(v.start)
	v.mu.Unlock()
	return err
}

func (v *wordVoice) said() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]string(nil), v.log...)
}

// listenerAt is an Attention with a listener straight ahead and a little to
// the left.
type listenerAt struct{}

func (listenerAt) Listener() (motion.Target, bool) {
	return motion.Target{Position: &[3]float64{1.5, 0.4, 0.35}}, true
}

func TestAutoRulesOf(t *testing.T) {
	tests := []struct {
		name          string
		config, speak string
		want          jcp.AutoRules
	}{
		{"nothing said: all on", "", "", jcp.AllAutoRules},
		{"true", "true", "", jcp.AllAutoRules},
		{"false", "false", "", jcp.AutoRules{}},
		{"one class off", `{"beat":false}`, "", jcp.AutoRules{HotWords: true, Punctuation: true, Voice: true}},
		{"classes off", `{"hotWords":false,"punctuation":false,"voice":false}`, "", jcp.AutoRules{Beat: true}},
		{"disabled by speakOptions", `{"beat":true}`, `{"disableAutoRules":true}`, jcp.AutoRules{}},
		{"speakOptions without the flag", "", `{"followedByListen":true}`, jcp.AllAutoRules},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &jcp.Play{ESML: "hi"}
			if tt.config != "" {
				p.AutoRuleConfig = json.RawMessage(tt.config)
			}
			if tt.speak != "" {
				p.SpeakOptions = json.RawMessage(tt.speak)
			}
			assert.Equal(t, tt.want, jcp.AutoRulesOf(p))
		})
	}
}

// A plain-text answer moves the body while it is said (spec/jibo.md §3.5
// auto-rules): the body turns toward the listener before the first word,
// wiggles on the greeting and tilts on the question, each gesture starting
// as its clause is spoken, and every setpoint stays within the limits.
func TestAutoRulesMoveTheBodyWithTheWords(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBody(t)
		voice := &wordVoice{start: time.Now()}
		var ev events
		ex := newExecutor(t, jcp.ExecutorConfig{Voice: voice, Motion: b.ctrl, AutoRules: true, Attention: listenerAt{}, Observer: ev.observe})
		res, err := ex.Run(context.Background(), mustParse(t, `{"id":"q","type":"SEQUENCE","children":[`+
			say("s", "Hi there! I missed you.")+`,`+say("t", "Shall we play a game?")+`]}`))
		require.NoError(t, err)
		assert.Equal(t, jcp.StatusSucceeded, res.Status)
		assert.Equal(t, []string{"Hi there! I missed you.", "Shall we play a game?"}, res.Spoken)
		said := voice.said()
		// The body turns toward the listener first (200 ms), then each
		// clause is said in one breath, straight after the one before.
		assert.Equal(t, []string{"200ms Hi there!", "400ms I missed you.", "700ms Shall we play a game?"}, said)
		moves := b.motionEvents()
		assert.Contains(t, moves, "lookat")
		assert.Contains(t, moves, "animation happy-wiggle")
		assert.Contains(t, moves, "animation tilt")
		assert.Less(t, strings.Index(strings.Join(moves, "|"), "lookat"), strings.Index(strings.Join(moves, "|"), "animation happy-wiggle"))
		assert.Contains(t, ev.list(), "s-p cue")
		time.Sleep(3 * time.Second) // the gestures end on their own
		assert.False(t, b.ctrl.Moving())
		b.checkLimits(t)
	})
}

// A PLAY can turn the rules off (speakOptions.disableAutoRules), and an
// executor without AutoRules never moves for words alone.
func TestAutoRulesOff(t *testing.T) {
	for _, tt := range []struct {
		name  string
		auto  bool
		play  string
		moves bool
	}{
		{"disabled by the PLAY", true, `{"id":"p","type":"PLAY","esml":"Hi there! How are you?","speakOptions":{"disableAutoRules":true}}`, false},
		{"false config", true, `{"id":"p","type":"PLAY","esml":"Hi there! How are you?","autoRuleConfig":false}`, false},
		{"executor without rules", false, `{"id":"p","type":"PLAY","esml":"Hi there! How are you?"}`, false},
		{"on", true, `{"id":"p","type":"PLAY","esml":"Hi there! How are you?"}`, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := newBody(t)
				voice := &wordVoice{start: time.Now()}
				ex := newExecutor(t, jcp.ExecutorConfig{Voice: voice, Motion: b.ctrl, AutoRules: tt.auto})
				res, err := ex.Run(context.Background(), mustParse(t, slim("s", `{"play":`+tt.play+`}`)))
				require.NoError(t, err)
				assert.Empty(t, notes(res), "the rules' gestures never leave notes")
				var moved bool
				for _, e := range b.motionEvents() {
					moved = moved || strings.HasPrefix(e, "animation") || strings.HasPrefix(e, "lookat")
				}
				assert.Equal(t, tt.moves, moved, "%v", b.motionEvents())
				if !tt.moves {
					assert.Len(t, voice.said(), 1, "one breath when nothing cuts the text")
				}
			})
		})
	}
}

// Stopping the speech stops the gestures the rules started, at once.
func TestAutoRulesStopWithTheSpeech(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBody(t)
		voice := &wordVoice{start: time.Now()}
		ex := newExecutor(t, jcp.ExecutorConfig{Voice: voice, Motion: b.ctrl, AutoRules: true})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan *jcp.Result, 1)
		go func() {
			res, _ := ex.Run(ctx, mustParse(t, say("s", "Wow, that is a lovely thing to say to a robot like me, thank you so very much.")))
			done <- res
		}()
		time.Sleep(250 * time.Millisecond)
		require.True(t, b.ctrl.Moving(), "bouncing on the wow")
		cancel()
		res := <-done
		assert.Equal(t, jcp.StatusCanceled, res.Status)
		assert.False(t, ex.Busy())
		synctest.Wait()
		assert.Contains(t, b.motionEvents(), "halt")
		b.checkLimits(t)
	})
}

func notes(r *jcp.Result) []string {
	var out []string
	for _, b := range r.Behaviors {
		if b.Note != "" {
			out = append(out, b.ID+": "+b.Note)
		}
	}
	return out
}
