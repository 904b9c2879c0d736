package portaudio

// Downmix appends to dst the mono mix (mean of the channels) of
// interleaved frames and returns it. A trailing partial frame is ignored.
func Downmix(dst []float32, frames []int16, channels int) []float32 {
	if channels <= 1 {
		for _, v := range frames {
			dst = append(dst, float32(v))
		}
		return dst
	}
	inv := 1 / float32(channels)
	for i := 0; i+channels <= len(frames); i += channels {
		var s float32
		for _, v := range frames[i : i+channels] {
			s += float32(v)
		}
		dst = append(dst, s*inv)
	}
	return dst
}

// Upmix appends to dst each mono sample repeated on every channel.
func Upmix(dst []int16, mono []int16, channels int) []int16 {
	if channels <= 1 {
		return append(dst, mono...)
	}
	for _, v := range mono {
		for c := 0; c < channels; c++ {
			dst = append(dst, v)
		}
	}
	return dst
}
