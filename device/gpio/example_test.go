package gpio_test

import (
	"context"
	"fmt"

	"periph.io/x/conn/v3/gpio/gpiotest"

	"github.com/openjibo/jibod/device/gpio"
)

func Example() {
	// On a robot the pin comes from periph.io's gpioreg.ByName("GPIO17").
	pin := &gpiotest.Pin{N: "GPIO17", Num: 17}
	power, err := gpio.NewOutput(pin, gpio.OutputOptions{Name: "motor-power"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(pin.Read(), power.Set(context.Background(), true), pin.Read())
	// Output:
	// Low <nil> High
}
