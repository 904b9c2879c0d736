package board

import (
	"fmt"
	"sync"

	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpioreg"
	"periph.io/x/conn/v3/i2c"
	"periph.io/x/conn/v3/i2c/i2creg"
	"periph.io/x/conn/v3/spi"
	"periph.io/x/conn/v3/spi/spireg"
	"periph.io/x/host/v3"
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

// PeriphBuses are the machine's buses, through periph.io's host drivers,
// loaded on first use. The zero value is ready.
type PeriphBuses struct {
	once sync.Once
	err  error
}

var _ Buses = (*PeriphBuses)(nil)

func (b *PeriphBuses) init() error {
	b.once.Do(func() {
		if _, err := host.Init(); err != nil {
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
