//go:build portaudio && !linux

package portaudio

func routeALSAErrors() {}
