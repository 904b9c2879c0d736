package diag

import (
	"context"
	"errors"
	"time"
)

// What the shell lends to the robot's other front ends (the web page,
// core/web): its technician PIN check, its status report and its
// configuration keys, so that every door into the robot guards and
// reports the same way.

// ConfigValue is one configuration key with its value now.
type ConfigValue struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	Help  string `json:"help"`
}

// ConfigChange is one key a SetConfig changed.
type ConfigChange struct {
	Key string `json:"key"`
	Old string `json:"old"`
	New string `json:"new"`
}

// VerifyPIN checks a technician PIN given outside a shell session. It is
// the shell's own check: the same hash, the same count of wrong PINs and
// lockout (a wrong PIN here is a try less for the shell too), and the
// same pause before a wrong PIN is answered. from names the caller in the
// log. The error wraps ErrNoPIN, ErrLockedOut or ErrWrongPIN, or is ctx's.
func (s *Server) VerifyPIN(ctx context.Context, pin, from string) error {
	err := s.gate.try(pin)
	log := s.log.With("from", from)
	if err == nil {
		log.Warn("shell: technician unlocked from outside the shell")
		return nil
	}
	log.Warn("shell: technician unlock failed", "why", err.Error())
	if errors.Is(err, ErrWrongPIN) && s.pinDelay > 0 {
		t := time.NewTimer(s.pinDelay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
	return err
}

// HasPIN reports whether a technician PIN is configured.
func (s *Server) HasPIN() bool { return s.gate.hash != nil }

// IdleLock is how long technician mode stays unlocked without a command
// (the shell.idle_lock key).
func (s *Server) IdleLock() time.Duration { return s.idleLimit() }

// Status is the robot's status report, as `status --json` prints it. It
// measures the microphone briefly when the robot has one, and the CPU
// share it reports is since the previous report, whoever asked for it.
func (s *Server) Status(ctx context.Context) any { return s.status(ctx) }

// Config lists the configuration keys of `config get`, sorted by key.
func (s *Server) Config() []ConfigValue {
	out := make([]ConfigValue, 0, len(s.settings))
	for _, st := range s.settings {
		out = append(out, ConfigValue{Key: st.Key, Value: st.Get(), Help: st.Help})
	}
	return out
}

// SetConfig sets each key to its value as `config set` does: all or
// none, checked before anything is applied, every change logged with
// from.
func (s *Server) SetConfig(pairs [][2]string, from string) ([]ConfigChange, error) {
	return s.setConfig(pairs, from)
}
