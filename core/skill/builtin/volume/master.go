package volume

import (
	"context"
	"log/slog"
	"math"

	"github.com/openjibo/jibod/core/settings"
)

// Default is the volume of a new robot: level 6 of 10, comfortable in a
// room (full volume was too loud to start with).
const Default = 0.6

// SettingKey is the volume's key in the settings file.
const SettingKey = "volume"

// RangeDB is the span of the volume: level 1 of 10 is about 36 dB below
// full, level 5 20 dB below. Loudness is heard on a logarithmic scale, so
// equal steps of the volume sound like equal steps.
const RangeDB = 40

// Gain is the linear gain of volume v (0..1): 10^((v-1)·RangeDB/20), and
// 0 is silence.
func Gain(v float64) float64 {
	if v <= 0 {
		return 0
	}
	return math.Pow(10, (min(v, 1)-1)*RangeDB/20)
}

// Level is the volume (0..1) of a linear gain, Gain's inverse.
func Level(gain float64) float64 {
	if gain <= 0 {
		return 0
	}
	return min(max(1+20*math.Log10(gain)/RangeDB, 0), 1)
}

// Gainer is a linear gain stage in 0..1; *device.Volume is one.
type Gainer interface {
	Gain() float64
	SetGain(g float64) error
}

// Master is the volume of a gain stage on RangeDB's scale.
func Master(g Gainer) Control { return master{g} }

type master struct{ g Gainer }

func (m master) Volume() float64 { return Level(m.g.Gain()) }

func (m master) SetVolume(_ context.Context, v float64) error { return m.g.SetGain(Gain(v)) }

// Saved is the volume to start at: the one kept in file (nil: none),
// else Default.
func Saved(file *settings.File) float64 {
	if file != nil {
		if v, ok := file.Number(SettingKey); ok && v >= 0 && v <= 1 {
			return v
		}
	}
	return Default
}

// Kept is c with its changes kept in file under SettingKey, so the
// owner's volume survives a restart; c itself when file is nil. Failing
// to keep a change is logged (log nil: slog.Default()), not the change's
// failure: the volume did change.
func Kept(c Control, file *settings.File, log *slog.Logger) Control {
	if file == nil {
		return c
	}
	if log == nil {
		log = slog.Default()
	}
	return kept{Control: c, file: file, log: log}
}

type kept struct {
	Control
	file *settings.File
	log  *slog.Logger
}

func (k kept) SetVolume(ctx context.Context, v float64) error {
	if err := k.Control.SetVolume(ctx, v); err != nil {
		return err
	}
	if err := k.file.SetNumber(SettingKey, v); err != nil {
		k.log.Warn("keeping the volume for the next start", "err", err)
	}
	return nil
}
