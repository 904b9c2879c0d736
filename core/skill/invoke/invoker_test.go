package invoke

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/jcp"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func manifest(perms ...registry.Permission) *registry.Manifest {
	m := &registry.Manifest{ID: "jibo/timer", Version: "1.0.0", Name: "Timer", Description: "Sets timers.",
		Permissions: perms, Timeout: 5 * time.Second, IdempotentIntents: []string{"time_left"}}
	m.SafetyLevel = m.ImpliedSafetyLevel()
	return m.Normalized()
}

func launch(intent string) *protocol.Request {
	c := protocol.Context{General: protocol.GeneralData{AccountID: "a", RobotID: "r", Lang: "en-US"},
		Skill: protocol.Skill("jibo.timer")}
	return protocol.NewListenLaunch(c, protocol.NLUFromSlots(intent, nil, nil),
		protocol.ASRResult{Text: "how long is left", Confidence: 1}, nil,
		protocol.WithMsgID("mid-1"), protocol.WithTransID("tid-1"))
}

func sayResponse(t testing.TB, req *protocol.Request, b jcp.Behavior) *protocol.Response {
	raw, err := jcp.NewAction(b).MarshalJSON()
	require.NoError(t, err)
	return protocol.NewSkillAction(req, protocol.Skill("jibo.timer"), raw, true)
}

type rig struct {
	iv  *Invoker
	log *Log
}

func newRig(t testing.TB, cfg Config) rig {
	t.Helper()
	l := NewLog(0)
	if cfg.Recorder == nil {
		cfg.Recorder = l
	}
	cfg.Logger = quiet
	iv, err := New(cfg)
	require.NoError(t, err)
	return rig{iv: iv, log: l}
}

func TestCallOK(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Config{})
		req := launch("time_left")
		reply, err := r.iv.Call(t.Context(), manifest(registry.PermSpeech), func(ctx context.Context, req *protocol.Request) (*protocol.Response, error) {
			time.Sleep(30 * time.Millisecond)
			return sayResponse(t, req, jcp.Say("Four minutes left.")), nil
		}, req)
		require.NoError(t, err)
		require.NotNil(t, reply.Action)
		assert.Equal(t, "Four minutes left.", reply.Action.Behavior.(*jcp.SLIM).Play.ESML)
		assert.Equal(t, protocol.TypeSkillAction, reply.Response.Type)
		want := Record{Time: time.Now().Add(-30 * time.Millisecond), Skill: "jibo/timer", Intent: "time_left",
			RequestID: "mid-1", TransID: "tid-1", RequestType: protocol.TypeListenLaunch,
			ResponseType: protocol.TypeSkillAction, Outcome: OutcomeOK, Attempts: 1, Duration: 30 * time.Millisecond}
		assert.Equal(t, want, reply.Record)
		assert.Equal(t, []Record{want}, r.log.List(Filter{}), "the record went to the recorder")
	})
}

func TestCallNullActionEndsTheSkill(t *testing.T) {
	r := newRig(t, Config{})
	reply, err := r.iv.Call(t.Context(), manifest(), func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
		return protocol.NewSkillEnd(req, protocol.Skill("jibo.timer")), nil
	}, launch("set"))
	require.NoError(t, err)
	assert.Nil(t, reply.Action)
	assert.Equal(t, OutcomeOK, reply.Record.Outcome)
}

// Each way a call can end: the outcome, the error the host sees, the
// record. (The "done when" list of issue 5: a skill that panics, returns an
// invalid action, exceeds its timeout or asks for an action it may not
// gets a clear error and a record.)
func TestCallOutcomes(t *testing.T) {
	forbidden := jcp.Sequence(jcp.Say("Watch!"), &jcp.LookAt{Base: jcp.Base{ID: "look"},
		Target: jcp.LookTarget{Angle: &jcp.Vector2{X: 1}}})
	tests := []struct {
		name     string
		perms    []registry.Permission
		req      *protocol.Request
		handle   Handler
		outcome  Outcome
		is       error  // errors.Is target; nil for no error
		errText  string // in the error and the record
		attempts int
		elapsed  time.Duration // fake time the call takes
	}{
		{"error response", nil, launch("set"), func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
			return protocol.NewError(req, "no timers to cancel"), nil
		}, OutcomeErrorResponse, nil, "no timers to cancel", 1, 0},
		{"handler error", nil, launch("set"), func(context.Context, *protocol.Request) (*protocol.Response, error) {
			return nil, errors.New("disk full")
		}, OutcomeFailed, nil, "skill jibo/timer: disk full", 1, 0},
		{"timeout", nil, launch("set"), func(ctx context.Context, _ *protocol.Request) (*protocol.Response, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}, OutcomeTimeout, ErrTimeout, "skill jibo/timer: timed out: no answer within 5s", 1, 5 * time.Second},
		{"timeout ignoring the context", nil, launch("set"), func(context.Context, *protocol.Request) (*protocol.Response, error) {
			time.Sleep(time.Hour)
			return nil, nil
		}, OutcomeTimeout, ErrTimeout, "no answer within 5s", 1, 5 * time.Second},
		{"panic", nil, launch("set"), func(context.Context, *protocol.Request) (*protocol.Response, error) {
			panic("boom")
		}, OutcomePanic, ErrPanic, "skill jibo/timer: panicked: boom", 1, 0},
		{"no response", nil, launch("set"), func(context.Context, *protocol.Request) (*protocol.Response, error) {
			return nil, nil
		}, OutcomeInvalid, ErrInvalidResponse, "no response and no error", 1, 0},
		{"invalid response", nil, launch("set"), func(context.Context, *protocol.Request) (*protocol.Response, error) {
			return &protocol.Response{Header: protocol.Header{Type: "SKILL_DANCE", MsgID: "mid-2", TS: 1}}, nil
		}, OutcomeInvalid, ErrInvalidResponse, "skill jibo/timer: invalid response: ", 1, 0},
		{"invalid action", []registry.Permission{registry.PermSpeech}, launch("set"), func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
			return protocol.NewSkillAction(req, protocol.Skill("jibo.timer"),
				[]byte(`{"type":"JCP","config":{"jcp":{"id":"x","type":"DANCE"}}}`), true), nil
		}, OutcomeInvalid, ErrInvalidResponse, `data.action: parse JCP action: config.jcp.type: unknown behaviour type "DANCE"`, 1, 0},
		{"forbidden action", []registry.Permission{registry.PermSpeech}, launch("set"), func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
			return sayResponse(t, req, forbidden), nil
		}, OutcomeDenied, registry.ErrDenied, `skill jibo/timer: no "motion" permission: config.jcp.children[1]: LOOKAT turns the body`, 1, 0},
		{"handler reports a refusal", nil, launch("set"), func(context.Context, *protocol.Request) (*protocol.Response, error) {
			return nil, fmt.Errorf("host call kv_set: %w", &registry.DeniedError{Skill: "jibo/timer", Permission: registry.PermStorage})
		}, OutcomeDenied, registry.ErrDenied, `skill jibo/timer: no "storage" permission`, 1, 0},
		{"handler reports an invalid answer", nil, launch("set"), func(context.Context, *protocol.Request) (*protocol.Response, error) {
			return nil, fmt.Errorf("%w: the module's answer is not JSON", ErrInvalidResponse)
		}, OutcomeInvalid, ErrInvalidResponse, "skill jibo/timer: invalid response: the module's answer is not JSON", 1, 0},
		{"proactive launch without permission", []registry.Permission{registry.PermSpeech},
			protocol.NewProactiveLaunch(protocol.Context{Skill: protocol.Skill("jibo.timer")}, nil),
			func(context.Context, *protocol.Request) (*protocol.Response, error) {
				panic("must not be called")
			}, OutcomeDenied, registry.ErrDenied, `no "proactive" permission`, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t, Config{})
				start := time.Now()
				reply, err := r.iv.Call(t.Context(), manifest(tt.perms...), tt.handle, tt.req)
				assert.Equal(t, tt.elapsed, time.Since(start), "fake time")
				rec := reply.Record
				assert.Equal(t, tt.outcome, rec.Outcome)
				assert.Equal(t, tt.attempts, rec.Attempts)
				assert.Contains(t, rec.Error, tt.errText)
				assert.Equal(t, []Record{rec}, r.log.List(Filter{}))
				if tt.outcome == OutcomeErrorResponse {
					require.NoError(t, err, "the host reports an ERROR itself")
					assert.Equal(t, protocol.TypeError, reply.Response.Type)
					assert.Equal(t, protocol.TypeError, rec.ResponseType)
					return
				}
				require.Error(t, err)
				assert.Nil(t, reply.Response, "nothing of a failed call is returned")
				assert.Nil(t, reply.Action)
				assert.Equal(t, tt.outcome, OutcomeOf(err))
				assert.Contains(t, err.Error(), tt.errText)
				assert.NotContains(t, err.Error(), "goroutine", "no stack in the error")
				if tt.is != nil {
					assert.ErrorIs(t, err, tt.is)
				}
				require.NoError(t, r.iv.Close(t.Context()))
			})
		})
	}
}

func TestCallCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Config{})
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(time.Second, cancel)
		_, err := r.iv.Call(ctx, manifest(), func(ctx context.Context, _ *protocol.Request) (*protocol.Response, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}, launch("set"))
		assert.Equal(t, OutcomeCancelled, OutcomeOf(err))
		assert.ErrorIs(t, err, context.Canceled)

		_, err = r.iv.Call(ctx, manifest(), func(context.Context, *protocol.Request) (*protocol.Response, error) {
			panic("must not be called")
		}, launch("set"))
		assert.Equal(t, OutcomeCancelled, OutcomeOf(err))
		recs := r.log.List(Filter{})
		require.Len(t, recs, 2)
		assert.Equal(t, 0, recs[0].Attempts, "an already cancelled call is not made")
	})
}

// Retries happen only for intents the manifest declares idempotent, only
// after transient failures (timeout, handler error), with doubling backoff.
func TestRetry(t *testing.T) {
	flaky := func(failures int, fail func(ctx context.Context) error) (Handler, *atomic.Int32) {
		var calls atomic.Int32
		return func(ctx context.Context, req *protocol.Request) (*protocol.Response, error) {
			if int(calls.Add(1)) <= failures {
				return nil, fail(ctx)
			}
			return sayResponse(t, req, jcp.Say("Two minutes left.")), nil
		}, &calls
	}
	errFail := func(context.Context) error { return errors.New("busy") }
	timeout := func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }
	tests := []struct {
		name     string
		intent   string
		failures int
		fail     func(context.Context) error
		outcome  Outcome
		calls    int32
		elapsed  time.Duration
	}{
		{"idempotent, fails twice", "time_left", 2, errFail, OutcomeOK, 3, 200*time.Millisecond + 400*time.Millisecond},
		{"idempotent, times out once", "time_left", 1, timeout, OutcomeOK, 2, 5*time.Second + 200*time.Millisecond},
		{"idempotent, always fails", "time_left", 99, errFail, OutcomeFailed, 3, 600 * time.Millisecond},
		{"idempotent, always times out", "time_left", 99, timeout, OutcomeTimeout, 3, 15*time.Second + 600*time.Millisecond},
		{"not idempotent", "set", 1, errFail, OutcomeFailed, 1, 0},
		{"no intent", "", 1, errFail, OutcomeFailed, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t, Config{})
				h, calls := flaky(tt.failures, tt.fail)
				start := time.Now()
				reply, err := r.iv.Call(t.Context(), manifest(registry.PermSpeech), h, launch(tt.intent))
				assert.Equal(t, tt.outcome, OutcomeOf(err))
				assert.Equal(t, tt.calls, calls.Load())
				assert.Equal(t, int(tt.calls), reply.Record.Attempts)
				assert.Equal(t, tt.elapsed, time.Since(start), "fake time: timeouts and backoff")
				if tt.outcome != OutcomeOK && tt.calls > 1 {
					assert.Contains(t, err.Error(), fmt.Sprintf("(after %d attempts)", tt.calls))
				}
			})
		})
	}
}

func TestNoRetryOfNonTransientFailures(t *testing.T) {
	tests := []struct {
		name    string
		handle  func(*protocol.Request) (*protocol.Response, error)
		outcome Outcome
	}{
		{"error response", func(req *protocol.Request) (*protocol.Response, error) {
			return protocol.NewError(req, "nope"), nil
		}, OutcomeErrorResponse},
		{"invalid response", func(*protocol.Request) (*protocol.Response, error) { return nil, nil }, OutcomeInvalid},
		{"panic", func(*protocol.Request) (*protocol.Response, error) { panic("boom") }, OutcomePanic},
		{"denied", func(req *protocol.Request) (*protocol.Response, error) {
			return sayResponse(t, req, &jcp.ImpactEmotion{Base: jcp.Base{ID: "e"}, Valence: jcp.ImpactLowPos}), nil
		}, OutcomeDenied},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int32
			r := newRig(t, Config{})
			reply, _ := r.iv.Call(t.Context(), manifest(), func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
				calls.Add(1)
				return tt.handle(req)
			}, launch("time_left"))
			assert.Equal(t, tt.outcome, reply.Record.Outcome)
			assert.Equal(t, int32(1), calls.Load(), "an idempotent intent is still not retried")
		})
	}
}

func TestRetryHonoursContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Config{Backoff: time.Second})
		ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
		defer cancel()
		reply, err := r.iv.Call(ctx, manifest(), func(context.Context, *protocol.Request) (*protocol.Response, error) {
			return nil, errors.New("busy")
		}, launch("time_left"))
		assert.Equal(t, OutcomeCancelled, OutcomeOf(err))
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Contains(t, err.Error(), "while waiting to retry (skill jibo/timer: busy)")
		assert.Equal(t, 1, reply.Record.Attempts)
		assert.Equal(t, 500*time.Millisecond, reply.Record.Duration)
	})
}

// A handler that ignores its context is abandoned at its deadline; at most
// MaxAbandoned such calls may be running, and Close waits for them.
func TestAbandonedCalls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Config{MaxAbandoned: 1})
		stuck := func(context.Context, *protocol.Request) (*protocol.Response, error) {
			time.Sleep(time.Hour)
			return protocol.NewError(launch("x"), "late"), nil
		}
		_, err := r.iv.Call(t.Context(), manifest(), stuck, launch("set"))
		assert.Equal(t, OutcomeTimeout, OutcomeOf(err))

		_, err = r.iv.Call(t.Context(), manifest(), func(context.Context, *protocol.Request) (*protocol.Response, error) {
			panic("must not be called")
		}, launch("time_left"))
		assert.ErrorIs(t, err, ErrOverloaded)
		assert.Equal(t, OutcomeFailed, OutcomeOf(err))

		time.Sleep(time.Hour) // the stuck handler returns; its answer is dropped
		synctest.Wait()
		_, err = r.iv.Call(t.Context(), manifest(), func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
			return protocol.NewSkillEnd(req, protocol.Skill("jibo.timer")), nil
		}, launch("set"))
		require.NoError(t, err)

		_, err = r.iv.Call(t.Context(), manifest(), stuck, launch("set"))
		assert.Equal(t, OutcomeTimeout, OutcomeOf(err))
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		assert.ErrorIs(t, r.iv.Close(ctx), context.DeadlineExceeded, "Close is bounded by its context")
		require.NoError(t, r.iv.Close(t.Context()), "and waits for the handler")
		_, err = r.iv.Call(t.Context(), manifest(), stuck, launch("set"))
		assert.ErrorIs(t, err, ErrClosed)
	})
}

func TestCallsPerMinute(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Config{})
		m := manifest()
		m.Limits.CallsPerMinute = 2
		end := func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
			return protocol.NewSkillEnd(req, protocol.Skill("jibo.timer")), nil
		}
		for range 2 {
			_, err := r.iv.Call(t.Context(), m, end, launch("set"))
			require.NoError(t, err)
			time.Sleep(10 * time.Second)
		}
		_, err := r.iv.Call(t.Context(), m, end, launch("set"))
		var d *registry.DeniedError
		require.ErrorAs(t, err, &d)
		assert.Equal(t, "calls_per_minute", d.Limit)
		assert.Equal(t, OutcomeDenied, OutcomeOf(err))
		assert.EqualError(t, err, "skill jibo/timer: over its calls_per_minute limit: 2 calls in the last minute, limit 2")
		assert.Equal(t, 40*time.Second, d.RetryAfter, "the first call leaves the window in 40 s")

		time.Sleep(40 * time.Second) // the first call is a minute old
		_, err = r.iv.Call(t.Context(), m, end, launch("set"))
		require.NoError(t, err)
		_, err = r.iv.Call(t.Context(), m, end, launch("set"))
		require.Error(t, err)

		other := manifest()
		other.ID = "jibo/clock"
		_, err = r.iv.Call(t.Context(), other, end, launch("set"))
		require.NoError(t, err, "limits are per skill")
	})
}

func TestNewConfig(t *testing.T) {
	_, err := New(Config{})
	assert.ErrorContains(t, err, "no recorder")
	for _, cfg := range []Config{
		{Recorder: NewLog(1), MaxAttempts: 6},
		{Recorder: NewLog(1), MaxAttempts: -1},
		{Recorder: NewLog(1), Backoff: time.Second, MaxBackoff: time.Millisecond},
		{Recorder: NewLog(1), Backoff: -time.Second},
		{Recorder: NewLog(1), Backoff: time.Second, MaxBackoff: time.Hour},
		{Recorder: NewLog(1), MaxAbandoned: -1},
	} {
		_, err := New(cfg)
		assert.Error(t, err, "%+v", cfg)
	}
	iv, err := New(Config{Recorder: NewLog(1)})
	require.NoError(t, err)
	_, err = iv.Call(t.Context(), nil, nil, nil)
	assert.Error(t, err)
}

// Many calls at once, with both recorders, under -race.
func TestConcurrentCalls(t *testing.T) {
	l := NewLog(50)
	f, err := OpenFile(filepath.Join(t.TempDir(), "runs.jsonl"), FileOptions{Keep: 20, Logger: quiet})
	require.NoError(t, err)
	c := &counter{n: map[Outcome]int{}}
	r := newRig(t, Config{Recorder: Tee(l, f, c), Backoff: time.Millisecond})
	m := manifest(registry.PermSpeech)
	m.Limits.CallsPerMinute = registry.MaxCallsPerMinute
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 25 {
				_, _ = r.iv.Call(t.Context(), m, func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
					switch (g + i) % 4 {
					case 0:
						return nil, errors.New("busy")
					case 1:
						panic("boom")
					case 2:
						return protocol.NewError(req, "nope"), nil
					}
					return sayResponse(t, req, jcp.Say("ok")), nil
				}, launch("set"))
			}
		})
	}
	wg.Wait()
	require.NoError(t, r.iv.Close(t.Context()))
	require.NoError(t, f.Close())
	assert.Equal(t, uint64(200), l.Total())
	assert.Len(t, l.List(Filter{}), 50)
	assert.Equal(t, map[Outcome]int{OutcomeFailed: 50, OutcomePanic: 50, OutcomeErrorResponse: 50, OutcomeOK: 50}, c.n)
	recs, err := ReadFile(f.path, Filter{})
	require.NoError(t, err)
	assert.GreaterOrEqual(t, len(recs), 20)
	assert.LessOrEqual(t, len(recs), 40)
}

// counter counts records by outcome.
type counter struct {
	mu sync.Mutex
	n  map[Outcome]int
}

func (c *counter) Record(r Record) {
	c.mu.Lock()
	c.n[r.Outcome]++
	c.mu.Unlock()
}
