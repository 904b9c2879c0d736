package skill

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/openjibo/jibod/core/skill/store"
)

// cancelSched is a scheduler holding timers; Cancel fails with err, and
// drops the timer first when rang is set (it rang in between).
type cancelSched struct {
	timers []store.Timer
	err    error
	rang   bool
}

func (s *cancelSched) Schedule(context.Context, store.Timer) (string, error) { return "", nil }
func (s *cancelSched) List() []store.Timer                                   { return s.timers }
func (s *cancelSched) Cancel(context.Context, string) error {
	if s.rang || s.err == nil {
		s.timers = nil
	}
	return s.err
}

// TestTimersCancelGone: Cancel says a timer that is gone (never there,
// another skill's, or rung while being cancelled) with ErrNoSuchTimer,
// and any other failure as itself, so a skill can tell them apart.
func TestTimersCancelGone(t *testing.T) {
	disk := errors.New("the state folder is read-only")
	tests := []struct {
		name   string
		timers []store.Timer
		err    error
		rang   bool
		gone   bool
		failed bool
	}{
		{"cancelled", []store.Timer{{ID: "t-1", SkillID: "s"}}, nil, false, false, false},
		{"never there", nil, nil, false, true, true},
		{"another skill's", []store.Timer{{ID: "t-1", SkillID: "other"}}, nil, false, true, true},
		{"rang while being cancelled", []store.Timer{{ID: "t-1", SkillID: "s"}}, disk, true, true, true},
		{"the disk fails", []store.Timer{{ID: "t-1", SkillID: "s"}}, disk, false, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := NewTimers(&cancelSched{timers: tt.timers, err: tt.err, rang: tt.rang}, "s", nil).Cancel(context.Background(), "t-1")
			assert.Equal(t, tt.failed, err != nil, "%v", err)
			assert.Equal(t, tt.gone, errors.Is(err, ErrNoSuchTimer), "%v", err)
		})
	}
}
