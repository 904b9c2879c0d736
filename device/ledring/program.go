package ledring

import (
	"errors"
	"fmt"
	"time"

	"github.com/openjibo/jibod/device"
)

// Limits on programs.
const (
	// MaxKeys bounds the keys of one program.
	MaxKeys = 1024
	// MaxDuration bounds a program's length.
	MaxDuration = 10 * time.Minute
	// MaxNameBytes bounds a program's name.
	MaxNameBytes = 128
)

// Key is one step of a Program. From At on, the ring shows Pattern when it
// is set, and otherwise Color; with Fade the colour is reached gradually
// from the previous colour key.
type Key struct {
	// At is when the key takes effect, from the program's start.
	At time.Duration
	// Color is shown when Pattern is "".
	Color device.RGB
	// Pattern names a ring pattern (see Patterns), run from At.
	Pattern string
	// Fade mixes from the previous key's colour to Color over the time
	// between the two keys, instead of switching at At.
	Fade bool
}

// Program is a light show: keys in time order.
type Program struct {
	// Name describes the program in events, e.g. "thinking" or "dance".
	Name string
	// Keys are in strictly increasing At order; the first is at 0.
	Keys []Key
	// Duration is how long the program runs; 0 runs it until its context
	// ends.
	Duration time.Duration
	// Period, when set, repeats the keys: time is taken modulo Period, so
	// keys at or after Period never show.
	Period time.Duration
}

// PatternProgram returns a program that runs pattern name for d (0: until
// cancelled).
func PatternProgram(name string, d time.Duration) Program {
	return Program{Name: name, Keys: []Key{{Pattern: name}}, Duration: d}
}

// Validate reports the first problem with p.
func (p Program) Validate() error {
	if len(p.Name) > MaxNameBytes {
		return fmt.Errorf("led program name is %d bytes, limit %d", len(p.Name), MaxNameBytes)
	}
	if len(p.Keys) == 0 {
		return errors.New("led program has no keys")
	}
	if len(p.Keys) > MaxKeys {
		return fmt.Errorf("led program has %d keys, limit %d", len(p.Keys), MaxKeys)
	}
	if p.Duration < 0 || p.Duration > MaxDuration {
		return fmt.Errorf("led program duration %v outside 0..%v", p.Duration, MaxDuration)
	}
	if p.Period < 0 || p.Period > MaxDuration {
		return fmt.Errorf("led program period %v outside 0..%v", p.Period, MaxDuration)
	}
	if p.Keys[0].At != 0 {
		return fmt.Errorf("led program key 0 is at %v, want 0", p.Keys[0].At)
	}
	for i, k := range p.Keys {
		if i > 0 && k.At <= p.Keys[i-1].At {
			return fmt.Errorf("led program key %d at %v is not after key %d at %v", i, k.At, i-1, p.Keys[i-1].At)
		}
		if k.Pattern != "" && !IsPattern(k.Pattern) {
			return fmt.Errorf("led program key %d: unknown pattern %q (have %v)", i, k.Pattern, Patterns())
		}
	}
	return nil
}

// Draw renders p at time t since it started into px. It does not allocate.
func (p Program) Draw(t time.Duration, px []device.RGB) {
	if p.Period > 0 {
		t %= p.Period
	}
	i := 0
	for i+1 < len(p.Keys) && p.Keys[i+1].At <= t {
		i++
	}
	k := p.Keys[i]
	if k.Pattern != "" {
		Render(k.Pattern, t-k.At, px)
		return
	}
	c := k.Color
	// A following fading key mixes towards its colour from this one.
	if i+1 < len(p.Keys) {
		if next := p.Keys[i+1]; next.Fade && next.Pattern == "" {
			c = lerp(k.Color, next.Color, float64(t-k.At)/float64(next.At-k.At))
		}
	}
	c.A = 0xff
	fill(px, c)
}
