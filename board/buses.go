package board

import (
	"fmt"
	"sync"

	"periph.io/x/conn/v3/driver/driverreg"
	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpioreg"
	"periph.io/x/conn/v3/i2c"
	"periph.io/x/conn/v3/i2c/i2creg"
	"periph.io/x/conn/v3/spi"
	"periph.io/x/conn/v3/spi/spireg"

	// The host drivers periph.io registers when imported: the kernel's
	// generic interfaces, which reach the buses of any Linux board
	// (/dev/i2c-*, /dev/spidev*, /dev/gpiochip* lines by their kernel
	// names, sysfs GPIO), and the Raspberry Pi's GPIO (BCM283x: pins by
	// their names, GPIO17, and functions, SPI0_MOSI). periph.io's host
	// package would also bring the drivers of boards without a profile
	// here (Allwinner, Pine64, and on 32-bit ARM BeagleBone, C.H.I.P.,
	// ODROID-C1) and its rpi package, which only describes the Pi's header
	// layout (pinreg), which nothing here reads.
	_ "periph.io/x/host/v3/bcm283x"
	_ "periph.io/x/host/v3/gpioioctl"
	_ "periph.io/x/host/v3/sysfs"
)

// Buses opens the buses and pins hardware drivers sit on. The default,
// PeriphBuses, reaches the machine's through periph.io; tests pass
// recorded ones.
type Buses interface {
	// OpenI2C opens an I²C bus by name, e.g. "/dev/i2c-1" or "1".
	OpenI2C(name string) (i2c.BusCloser, error)
	// OpenSPI opens an SPI port by name, e.g. "SPI0.0" or "/dev/spidev0.0".
	OpenSPI(name string) (spi.PortCloser, error)
	// Pin finds a GPIO pin by name, e.g. "GPIO17".
	Pin(name string) (gpio.PinIO, error)
}

// PeriphBuses are the machine's buses, through periph.io's host drivers
// (the kernel's generic ones and the Raspberry Pi's GPIO), loaded on first
// use.
// The zero value is ready.
type PeriphBuses struct {
	once sync.Once
	err  error
}

var _ Buses = (*PeriphBuses)(nil)

func (b *PeriphBuses) init() error {
	b.once.Do(func() {
		if _, err := driverreg.Init(); err != nil {
			b.err = fmt.Errorf("load periph.io host drivers: %w", err)
		}
	})
	return b.err
}

// OpenI2C opens an I²C bus.
func (b *PeriphBuses) OpenI2C(name string) (i2c.BusCloser, error) {
	if err := b.init(); err != nil {
		return nil, err
	}
	bus, err := i2creg.Open(name)
	if err != nil {
		return nil, fmt.Errorf("open I²C bus %q: %w", name, err)
	}
	return bus, nil
}

// OpenSPI opens an SPI port.
func (b *PeriphBuses) OpenSPI(name string) (spi.PortCloser, error) {
	if err := b.init(); err != nil {
		return nil, err
	}
	port, err := spireg.Open(name)
	if err != nil {
		return nil, fmt.Errorf("open SPI port %q: %w", name, err)
	}
	return port, nil
}

// Pin finds a GPIO pin.
func (b *PeriphBuses) Pin(name string) (gpio.PinIO, error) {
	if err := b.init(); err != nil {
		return nil, err
	}
	p := gpioreg.ByName(name)
	if p == nil {
		return nil, fmt.Errorf("no GPIO pin called %q on this machine", name)
	}
	return p, nil
}
