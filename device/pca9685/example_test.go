package pca9685_test

import (
	"context"
	"fmt"
	"math"
	"time"

	"periph.io/x/conn/v3/i2c/i2ctest"

	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/device/pca9685"
)

func Example() {
	// On a robot the bus comes from periph.io's i2creg.Open("/dev/i2c-1");
	// here a recorded trace stands in for the chip.
	bus := &i2ctest.Playback{Ops: append(setupTrace(), pwm(0, 305), pwm(0, 440)), DontPanic: true}
	chip, err := pca9685.NewChip(context.Background(), bus, pca9685.DefaultAddress)
	if err != nil {
		fmt.Println(err)
		return
	}
	head, err := chip.NewServo(pca9685.ServoConfig{
		Axis: device.TopSection, Channel: 0,
		Limits:   device.Limits{Min: -math.Pi / 2, Max: math.Pi / 2, MaxVelocity: 10, MaxAcceleration: 30},
		MinPulse: 500 * time.Microsecond, MaxPulse: 2500 * time.Microsecond,
		MinAngle: -math.Pi / 2, MaxAngle: math.Pi / 2,
	}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	fmt.Println(head.Enable(ctx, true), head.SetAngle(ctx, math.Pi/3))
	fmt.Printf("%.1f Hz, 60° = %d counts\n", chip.Frequency(), head.Counts(math.Pi/3))
	fmt.Println(bus.Close())
	// Output:
	// <nil> <nil>
	// 49.6 Hz, 60° = 440 counts
	// <nil>
}
