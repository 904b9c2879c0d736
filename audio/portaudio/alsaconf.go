package portaudio

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// checkALSAConfig reports a missing ALSA configuration as an error. ALSA
// reads $ALSA_CONFIG_PATH (a colon-separated list of files) if set, else
// alsa.conf in $ALSA_CONFIG_DIR (if absolute) or /usr/share/alsa.
func checkALSAConfig() error {
	if runtime.GOOS != "linux" {
		return nil
	}
	var file string
	if p := os.Getenv("ALSA_CONFIG_PATH"); p != "" {
		file, _, _ = strings.Cut(p, ":")
	} else {
		dir := os.Getenv("ALSA_CONFIG_DIR")
		if !filepath.IsAbs(dir) {
			dir = "/usr/share/alsa"
		}
		file = filepath.Join(dir, "alsa.conf")
	}
	if _, err := os.Stat(file); err != nil {
		return fmt.Errorf("ALSA configuration %s not readable (%w): install Debian's libasound2-data on the robot, or point ALSA_CONFIG_DIR at a folder holding alsa.conf", file, err)
	}
	return nil
}
