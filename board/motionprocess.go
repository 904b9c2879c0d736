package board

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/motion"
)

var _ motion.OpenMotors = OpenMotors

// MotionSetup is what the motion control loop's own process needs to open
// p's motors and their power switch (motion.Process.Setup, read by
// OpenMotors): the profile.
func MotionSetup(p *Profile) ([]byte, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("motion setup of profile %s: %w", p.Name, err)
	}
	return b, nil
}

// OpenMotors opens the motors, in axis order, and the motor power switch
// of the profile in setup (MotionSetup): the part of the body the motion
// control loop's own process drives. closeAll closes them.
func OpenMotors(ctx context.Context, setup []byte, obs device.Observer, log *slog.Logger) (motors []device.Motor, power device.Switch, closeAll func() error, err error) {
	if len(setup) > MaxProfileBytes {
		return nil, nil, nil, fmt.Errorf("motion setup is more than %d bytes", MaxProfileBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(setup))
	dec.DisallowUnknownFields()
	var p Profile
	if err := dec.Decode(&p); err != nil {
		return nil, nil, nil, fmt.Errorf("motion setup: %w", err)
	}
	if dec.More() {
		return nil, nil, nil, errors.New("motion setup: trailing data after the profile")
	}
	if err := p.Validate(); err != nil {
		return nil, nil, nil, fmt.Errorf("motion setup: %w", err)
	}
	o := Options{Logger: log, Observer: obs, motorsOnly: true}
	b := newBody(&p, o)
	if err := b.open(ctx, o, false); err != nil {
		return nil, nil, nil, errors.Join(fmt.Errorf("open motors of %q: %w", p.Name, err), b.Close())
	}
	for _, axis := range device.Axes() {
		motors = append(motors, b.Motors[axis])
	}
	return motors, b.Power, b.Close, nil
}
