// Package audio holds the robot's audio plumbing. This file reads and writes
// WAV (RIFF, integer PCM) and converts any clip to the 16 kHz mono 16-bit
// frames that recognition works on.
package audio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// RecognitionRate is the sample rate recognition works at.
const RecognitionRate = 16000

// Limits on WAV input.
const (
	// MaxWAVBytes bounds the data a WAV file may claim (about 35 min of
	// 16 kHz mono 16-bit audio).
	MaxWAVBytes = 64 << 20
	// MaxChunks bounds the chunks read before the data chunk.
	MaxChunks = 64
	// MaxChannels bounds the channel count.
	MaxChannels = 8
	// MinRate and MaxRate bound the sample rate.
	MinRate, MaxRate = 8000, 192000
)

// ErrBadWAV marks a file that is not a WAV this package can read.
var ErrBadWAV = errors.New("bad WAV")

// Format describes interleaved integer PCM.
type Format struct {
	SampleRate    int
	Channels      int
	BitsPerSample int // 8, 16, 24 or 32 in a file; clips hold 16
}

// Clip is decoded audio: interleaved 16-bit samples.
type Clip struct {
	Format  Format // of the file it came from
	Samples []int16
}

// Duration is how long the clip plays.
func (c *Clip) Duration() float64 {
	if c.Format.SampleRate == 0 || c.Format.Channels == 0 {
		return 0
	}
	return float64(len(c.Samples)/c.Format.Channels) / float64(c.Format.SampleRate)
}

func badf(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrBadWAV, fmt.Sprintf(format, a...))
}

// DecodeWAV reads a RIFF/WAVE file of integer PCM (format 1, or
// WAVE_FORMAT_EXTENSIBLE with the PCM sub-format) and returns its samples
// as 16-bit. A header that lies — a data chunk longer than the file, a block
// size that does not match the channels and bits, sizes over the limits —
// is an error saying what is wrong; nothing is guessed.
func DecodeWAV(r io.Reader) (*Clip, error) { return decodeWAV(r, false) }

// StreamingDataSize is the smallest data-chunk size DecodeWAVStream takes to
// mean "until the end of the stream": programs writing WAV to a pipe cannot
// know the length and put a huge stand-in value there (espeak-ng --stdout
// writes 0x7ffff000 and more; others 0xffffffff).
const StreamingDataSize = 0x7ffff000

// DecodeWAVStream is DecodeWAV for WAV written to a pipe: a data chunk
// claiming StreamingDataSize bytes or more is read to the end of the
// stream, which must still hold whole frames and stay within MaxWAVBytes.
// Everything else is checked as strictly as DecodeWAV does.
func DecodeWAVStream(r io.Reader) (*Clip, error) { return decodeWAV(r, true) }

func decodeWAV(r io.Reader, streaming bool) (*Clip, error) {
	var hdr [12]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, badf("reading the RIFF header: %v", err)
	}
	if string(hdr[0:4]) != "RIFF" || string(hdr[8:12]) != "WAVE" {
		return nil, badf("not a RIFF/WAVE file (starts %q)", hdr[0:4])
	}
	var f *Format
	for i := 0; i < MaxChunks; i++ {
		var ch [8]byte
		if _, err := io.ReadFull(r, ch[:]); err != nil {
			if f == nil {
				return nil, badf("no fmt chunk before the end of the file")
			}
			return nil, badf("no data chunk before the end of the file")
		}
		id, size := string(ch[0:4]), binary.LittleEndian.Uint32(ch[4:8])
		switch id {
		case "fmt ":
			if f != nil {
				return nil, badf("two fmt chunks")
			}
			var err error
			if f, err = readFmt(r, size); err != nil {
				return nil, err
			}
		case "data":
			if f == nil {
				return nil, badf("data chunk before the fmt chunk")
			}
			if streaming && size >= StreamingDataSize {
				return readToEnd(r, *f)
			}
			return readData(r, *f, size)
		default:
			if size > MaxWAVBytes {
				return nil, badf("chunk %q claims %d bytes", id, size)
			}
			if _, err := io.CopyN(io.Discard, r, int64(size)+int64(size&1)); err != nil {
				return nil, badf("chunk %q claims %d bytes but the file ends first", id, size)
			}
		}
	}
	return nil, badf("more than %d chunks before the data", MaxChunks)
}

func readFmt(r io.Reader, size uint32) (*Format, error) {
	if size < 16 || size > 64 {
		return nil, badf("fmt chunk of %d bytes (want 16 to 64)", size)
	}
	b := make([]byte, size+size&1)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, badf("fmt chunk claims %d bytes but the file ends first", size)
	}
	tag := binary.LittleEndian.Uint16(b[0:2])
	f := &Format{
		Channels:      int(binary.LittleEndian.Uint16(b[2:4])),
		SampleRate:    int(binary.LittleEndian.Uint32(b[4:8])),
		BitsPerSample: int(binary.LittleEndian.Uint16(b[14:16])),
	}
	byteRate := binary.LittleEndian.Uint32(b[8:12])
	blockAlign := int(binary.LittleEndian.Uint16(b[12:14]))
	switch tag {
	case 1:
	case 0xFFFE:
		// WAVE_FORMAT_EXTENSIBLE: the sub-format GUID starts with the tag.
		if size < 40 || binary.LittleEndian.Uint16(b[24:26]) != 1 {
			return nil, badf("extensible format that is not integer PCM")
		}
	default:
		return nil, badf("format tag %#x: only integer PCM (1) is supported", tag)
	}
	switch {
	case f.Channels < 1 || f.Channels > MaxChannels:
		return nil, badf("%d channels (want 1 to %d)", f.Channels, MaxChannels)
	case f.SampleRate < MinRate || f.SampleRate > MaxRate:
		return nil, badf("sample rate %d Hz (want %d to %d)", f.SampleRate, MinRate, MaxRate)
	case f.BitsPerSample != 8 && f.BitsPerSample != 16 && f.BitsPerSample != 24 && f.BitsPerSample != 32:
		return nil, badf("%d bits per sample (want 8, 16, 24 or 32)", f.BitsPerSample)
	case blockAlign != f.Channels*f.BitsPerSample/8:
		return nil, badf("block align %d does not match %d channels of %d bits", blockAlign, f.Channels, f.BitsPerSample)
	case int(byteRate) != f.SampleRate*blockAlign:
		return nil, badf("byte rate %d does not match %d Hz × %d bytes", byteRate, f.SampleRate, blockAlign)
	}
	return f, nil
}

// readToEnd reads a streamed data chunk: everything up to the end.
func readToEnd(r io.Reader, f Format) (*Clip, error) {
	raw, err := io.ReadAll(io.LimitReader(r, MaxWAVBytes+1))
	if err != nil {
		return nil, badf("reading streamed data: %v", err)
	}
	if len(raw) > MaxWAVBytes {
		return nil, badf("streamed data exceeds the %d-byte limit", MaxWAVBytes)
	}
	return convertData(raw, f)
}

func readData(r io.Reader, f Format, size uint32) (*Clip, error) {
	block := f.Channels * f.BitsPerSample / 8
	if size > MaxWAVBytes {
		return nil, badf("data chunk of %d bytes exceeds the %d-byte limit", size, MaxWAVBytes)
	}
	if int(size)%block != 0 {
		return nil, badf("data chunk of %d bytes is not a whole number of %d-byte frames", size, block)
	}
	raw := make([]byte, size)
	n, err := io.ReadFull(r, raw)
	if err != nil {
		return nil, badf("data chunk claims %d bytes but the file has %d", size, n)
	}
	return convertData(raw, f)
}

// convertData turns whole frames of raw PCM into 16-bit samples.
func convertData(raw []byte, f Format) (*Clip, error) {
	block := f.Channels * f.BitsPerSample / 8
	if len(raw)%block != 0 {
		return nil, badf("data of %d bytes is not a whole number of %d-byte frames", len(raw), block)
	}
	size := len(raw)
	bps := f.BitsPerSample / 8
	out := make([]int16, int(size)/bps)
	for i := range out {
		p := raw[i*bps:]
		switch bps {
		case 1: // unsigned 8-bit
			out[i] = int16(int(p[0])-128) << 8
		case 2:
			out[i] = int16(binary.LittleEndian.Uint16(p))
		case 3: // keep the top 16 of 24 bits
			out[i] = int16(uint16(p[1]) | uint16(p[2])<<8)
		case 4:
			out[i] = int16(binary.LittleEndian.Uint32(p) >> 16)
		}
	}
	return &Clip{Format: f, Samples: out}, nil
}

// EncodeWAV writes interleaved 16-bit samples as a PCM WAV file.
func EncodeWAV(w io.Writer, rate, channels int, samples []int16) error {
	if rate < MinRate || rate > MaxRate || channels < 1 || channels > MaxChannels {
		return fmt.Errorf("encoding WAV: %d Hz, %d channels is out of range", rate, channels)
	}
	if len(samples)%channels != 0 {
		return fmt.Errorf("encoding WAV: %d samples is not a whole number of %d-channel frames", len(samples), channels)
	}
	data := len(samples) * 2
	if data > MaxWAVBytes {
		return fmt.Errorf("encoding WAV: %d bytes exceeds the %d-byte limit", data, MaxWAVBytes)
	}
	buf := make([]byte, 44+data)
	copy(buf[0:], "RIFF")
	binary.LittleEndian.PutUint32(buf[4:], uint32(36+data))
	copy(buf[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(buf[16:], 16)
	binary.LittleEndian.PutUint16(buf[20:], 1)
	binary.LittleEndian.PutUint16(buf[22:], uint16(channels))
	binary.LittleEndian.PutUint32(buf[24:], uint32(rate))
	binary.LittleEndian.PutUint32(buf[28:], uint32(rate*channels*2))
	binary.LittleEndian.PutUint16(buf[32:], uint16(channels*2))
	binary.LittleEndian.PutUint16(buf[34:], 16)
	copy(buf[36:], "data")
	binary.LittleEndian.PutUint32(buf[40:], uint32(data))
	for i, s := range samples {
		binary.LittleEndian.PutUint16(buf[44+2*i:], uint16(s))
	}
	if _, err := w.Write(buf); err != nil {
		return fmt.Errorf("encoding WAV: %w", err)
	}
	return nil
}

// ToRecognition converts a clip to 16 kHz mono: channels are averaged and
// the rate is changed by Resample, whose low-pass filter keeps what lies
// above 8 kHz in a 22.05, 44.1 or 48 kHz file from folding back into the
// band the recogniser hears.
func ToRecognition(c *Clip) []int16 {
	ch := c.Format.Channels
	if ch < 1 {
		return nil
	}
	frames := len(c.Samples) / ch
	mono := make([]int16, frames)
	for i := range mono {
		sum := 0
		for j := 0; j < ch; j++ {
			sum += int(c.Samples[i*ch+j])
		}
		mono[i] = int16(sum / ch)
	}
	if frames == 0 {
		return nil
	}
	return Resample(mono, c.Format.SampleRate, RecognitionRate)
}

// LevelDBFS is the RMS level of samples in dB relative to full scale
// (0 dBFS is a full-scale square wave); silence is -Inf.
func LevelDBFS(samples []int16) float64 {
	if len(samples) == 0 {
		return math.Inf(-1)
	}
	var sum float64
	for _, s := range samples {
		v := float64(s) / 32768
		sum += v * v
	}
	rms := math.Sqrt(sum / float64(len(samples)))
	if rms == 0 {
		return math.Inf(-1)
	}
	return 20 * math.Log10(rms)
}

// PeakDBFS is the loudest sample's level in dB relative to full scale;
// silence is -Inf.
func PeakDBFS(samples []int16) float64 {
	peak := 0
	for _, s := range samples {
		peak = max(peak, int(s), -int(s))
	}
	if peak == 0 {
		return math.Inf(-1)
	}
	return 20 * math.Log10(float64(peak)/32768)
}
