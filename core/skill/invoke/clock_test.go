package invoke

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/protocol"
)

// A handler's getting ready (Prepare) is bounded by its own limit, and the
// skill's timeout (5 s here) counts from when it is ready: a sandbox whose
// fresh instance starts slowly on a loaded machine still answers within
// the skill's timeout of its own work.
func TestPrepareStartsTheSkillsClockWhenReady(t *testing.T) {
	answer := func(ctx context.Context, req *protocol.Request, work time.Duration) (*protocol.Response, error) {
		select {
		case <-time.After(work):
			return protocol.NewSkillEnd(req, protocol.Skill("jibo.timer")), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	handler := func(getReady, limit, work time.Duration) Handler {
		return func(ctx context.Context, req *protocol.Request) (*protocol.Response, error) {
			ctx, err := Prepare(ctx, limit, func(ctx context.Context) error {
				select {
				case <-time.After(getReady):
					return nil
				case <-ctx.Done():
					return fmt.Errorf("starting: %w", ctx.Err())
				}
			})
			if err != nil {
				return nil, err
			}
			return answer(ctx, req, work)
		}
	}
	tests := []struct {
		name     string
		h        Handler
		outcome  Outcome
		errText  string
		duration time.Duration
	}{
		{"ready slowly, answers in time", handler(8*time.Second, 30*time.Second, 4*time.Second), OutcomeOK, "", 12 * time.Second},
		{"ready slowly, answers late", handler(8*time.Second, 30*time.Second, 6*time.Second), OutcomeTimeout,
			"skill jibo/timer: timed out: no answer within 5s", 13 * time.Second},
		{"not ready within its limit", handler(time.Hour, 30*time.Second, 0), OutcomeTimeout,
			"skill jibo/timer: timed out: not ready to answer within 30s", 30 * time.Second},
		{"not preparing: timed from the call", func(ctx context.Context, req *protocol.Request) (*protocol.Response, error) {
			time.Sleep(3 * time.Second)
			return answer(ctx, req, 4*time.Second)
		}, OutcomeTimeout, "no answer within 5s", 5 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t, Config{})
				start := time.Now()
				_, err := r.iv.Call(t.Context(), manifest(), tt.h, launch("set"))
				assert.Equal(t, tt.outcome, OutcomeOf(err), "%v", err)
				if tt.errText != "" {
					assert.ErrorIs(t, err, ErrTimeout)
					assert.ErrorContains(t, err, tt.errText)
				}
				assert.Equal(t, tt.duration, time.Since(start), "fake time the call took")
				require.NoError(t, r.iv.Close(t.Context()))
			})
		})
	}
}

// Outside an invoker's call, and a second time within one, Prepare runs
// its function in the context it is given and returns that context.
func TestPrepareOutsideACall(t *testing.T) {
	ctx := context.WithValue(t.Context(), clockKey{}, "not a clock")
	var seen context.Context
	got, err := Prepare(ctx, time.Second, func(c context.Context) error { seen = c; return nil })
	require.NoError(t, err)
	assert.Equal(t, ctx, got)
	assert.Equal(t, ctx, seen)
	boom := errors.New("boom")
	_, err = Prepare(t.Context(), time.Second, func(context.Context) error { return boom })
	assert.ErrorIs(t, err, boom)

	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Config{})
		_, err := r.iv.Call(t.Context(), manifest(), func(ctx context.Context, req *protocol.Request) (*protocol.Response, error) {
			first, err := Prepare(ctx, time.Minute, func(context.Context) error { return nil })
			require.NoError(t, err)
			again, err := Prepare(first, time.Minute, func(c context.Context) error {
				dl, _ := c.Deadline()
				assert.Equal(t, 5*time.Second, time.Until(dl), "the answer's deadline, not a new limit")
				return nil
			})
			require.NoError(t, err)
			assert.Equal(t, first, again)
			return protocol.NewSkillEnd(req, protocol.Skill("jibo.timer")), nil
		}, launch("set"))
		require.NoError(t, err)
	})
}

// A call given up while its handler gets ready ends there: the context the
// handler then answers in is done already, so the abandoned handler stops
// at once and Close does not wait for a skill's timeout more.
func TestPrepareAfterTheCallWasGivenUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Config{})
		start := time.Now()
		answerCtxDone := make(chan error, 1)
		_, err := r.iv.Call(t.Context(), manifest(), func(ctx context.Context, req *protocol.Request) (*protocol.Response, error) {
			ctx, err := Prepare(ctx, 2*time.Second, func(context.Context) error {
				time.Sleep(3 * time.Second) // ignores its context
				return nil
			})
			if err != nil {
				return nil, err
			}
			answerCtxDone <- ctx.Err()
			<-ctx.Done()
			return nil, ctx.Err()
		}, launch("set"))
		assert.Equal(t, OutcomeTimeout, OutcomeOf(err), "%v", err)
		assert.ErrorContains(t, err, "not ready to answer within 2s")
		require.NoError(t, r.iv.Close(t.Context()))
		assert.ErrorIs(t, <-answerCtxDone, context.Canceled, "the answer's context is done when Prepare returns")
		assert.Equal(t, 3*time.Second, time.Since(start), "fake time until the abandoned handler ended")
	})
}

// Prepare's limit is bounded: a handler asking for hours gets
// MaxPrepareLimit.
func TestPrepareLimitIsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Config{})
		start := time.Now()
		_, err := r.iv.Call(t.Context(), manifest(), func(ctx context.Context, req *protocol.Request) (*protocol.Response, error) {
			_, err := Prepare(ctx, 10*time.Hour, func(ctx context.Context) error {
				<-ctx.Done()
				return ctx.Err()
			})
			return nil, err
		}, launch("set"))
		assert.Equal(t, OutcomeTimeout, OutcomeOf(err), "%v", err)
		assert.ErrorContains(t, err, "not ready to answer within 2m0s")
		assert.Equal(t, MaxPrepareLimit, time.Since(start))
		require.NoError(t, r.iv.Close(t.Context()))
	})
}

type testKey struct{}

// A handler that wraps its context before Prepare is still prepared, and
// both the getting-ready and the answer contexts keep its values.
func TestPrepareInAWrappedContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Config{})
		_, err := r.iv.Call(t.Context(), manifest(), func(ctx context.Context, req *protocol.Request) (*protocol.Response, error) {
			ctx = context.WithValue(ctx, testKey{}, "mine")
			ctx, err := Prepare(ctx, time.Minute, func(ctx context.Context) error {
				dl, _ := ctx.Deadline()
				assert.Equal(t, time.Minute, time.Until(dl), "getting ready has Prepare's limit")
				assert.Equal(t, "mine", ctx.Value(testKey{}))
				time.Sleep(30 * time.Second)
				return nil
			})
			require.NoError(t, err)
			dl, _ := ctx.Deadline()
			assert.Equal(t, 5*time.Second, time.Until(dl), "the skill's timeout counts from when ready")
			assert.Equal(t, "mine", ctx.Value(testKey{}))
			return protocol.NewSkillEnd(req, protocol.Skill("jibo.timer")), nil
		}, launch("set"))
		require.NoError(t, err)
		require.NoError(t, r.iv.Close(t.Context()))
	})
}
