package apa102_test

import (
	"context"
	"fmt"

	"periph.io/x/conn/v3/conntest"
	"periph.io/x/conn/v3/spi/spitest"

	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/device/apa102"
)

func Example() {
	// On a robot the port comes from periph.io's spireg.Open("SPI0.0");
	// here recorded frames stand in for the LEDs.
	port := &spitest.Playback{Playback: conntest.Playback{DontPanic: true, Ops: []conntest.IO{
		{W: frame(0xff, black(3)...)},
		{W: frame(0xff, [3]byte{0, 0xaa, 0xff}, [3]byte{0, 0xaa, 0xff}, [3]byte{0, 0xaa, 0xff})},
	}}}
	ring, err := apa102.New(port, apa102.Options{Pixels: 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	blue, _ := device.ParseRGB("#00aaff")
	fmt.Println(ring.Set(context.Background(), device.Fill(ring.Len(), blue)))
	fmt.Println(port.Close())
	// Output:
	// <nil>
	// <nil>
}
