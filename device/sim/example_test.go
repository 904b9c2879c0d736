package sim_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/device/sim"
)

func printEvent(e device.Event) {
	fmt.Println(e.Device, e.Kind, e.Values)
}

func ExampleSpeaker() {
	s, err := sim.NewSpeaker(sim.SpeakerOptions{Observer: printEvent}) // WPM 0: instant
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := s.Say(context.Background(), "Hello, I am Jibo."); err != nil {
		fmt.Println(err)
	}
	fmt.Println(s.Said())
	// Output:
	// speaker say map[text:Hello, I am Jibo.]
	// speaker done map[text:Hello, I am Jibo.]
	// [Hello, I am Jibo.]
}

func ExampleLEDRing() {
	r, err := sim.NewLEDRing(sim.LEDRingOptions{Pixels: 4, Observer: printEvent})
	if err != nil {
		fmt.Println(err)
		return
	}
	blue, _ := device.ParseRGB("#00aaff")
	if err := r.Set(context.Background(), device.Fill(r.Len(), blue)); err != nil {
		fmt.Println(err)
	}
	fmt.Println(r.Set(context.Background(), device.Fill(3, blue)))
	// Output:
	// led set map[color:#00aaff]
	// sim led ring: set: got 3 colours, the ring has 4 pixels
}

func ExampleMotor() {
	m, err := sim.NewMotor(sim.MotorOptions{Axis: device.TopSection, Observer: printEvent})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := m.SetAngle(context.Background(), 0.5); err != nil {
		fmt.Println(err)
	}
	err = m.SetAngle(context.Background(), 3.5)
	var le *device.LimitError
	fmt.Println(errors.As(err, &le), err)
	// Output:
	// motor.topSection_r move map[from:0 seconds:0.05 to:0.5]
	// true motor topSection_r: target 3.5 rad outside limits [-3.0543, 3.0543]
}
