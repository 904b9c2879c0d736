package runtime

import (
	"context"

	"github.com/openjibo/jibod/core/selftest"
)

// Selftest starts a robot from cfg with its state in memory and the sim
// speaker instant, for the self-test (core/selftest); jibod selftest and
// the shell's selftest command share it.
func Selftest(cfg Config) selftest.Starter {
	cfg.StateDir, cfg.SpeakWPM = "", 0
	return func(ctx context.Context) (*selftest.Robot, func(context.Context) error, error) {
		r, err := New(ctx, cfg)
		if err != nil {
			return nil, nil, err
		}
		b := r.body.Board
		st := &selftest.Robot{Bus: r.bus, Exec: r.body.Exec, Motors: map[string]selftest.Motor{},
			Devices: func(ctx context.Context) []selftest.Device {
				var out []selftest.Device
				for _, c := range b.Check(ctx) {
					out = append(out, selftest.Device{Device: c.Device, Driver: c.Driver, OK: c.OK, Error: c.Error})
				}
				return out
			}}
		for axis, m := range b.Motors {
			st.Motors[axis] = m
		}
		return st, r.Close, nil
	}
}
