package sphinx

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// maxFeatParams bounds the feature parameter file read: the models'
// are a few hundred bytes.
const maxFeatParams = 64 << 10

// featParamsFlag names the decoder's feature parameter file.
const featParamsFlag = "-featparams"

// withFeatParams returns the decoder arguments extra with every flag
// that the acoustic model's feature parameter file (hmm/feat.params, or
// the one extra names with -featparams) also sets moved into a copy of
// that file, which the arguments then name; tmp is the copy's path, for
// the caller to remove once the decoder has read it ("" when nothing
// moved and extra is returned as it is).
//
// Why: pocketsphinx reads the model's feat.params after the command
// line and lets it win, so "-cmn live" or "-lowerf 200" given as
// arguments would be silently ignored, and a setting measured with them
// would be the model's own.
func withFeatParams(hmm string, extra []string) (args []string, tmp string, err error) {
	if len(extra)%2 != 0 {
		return nil, "", fmt.Errorf("arguments %q are not flag/value pairs", extra)
	}
	path := filepath.Join(hmm, "feat.params")
	for i := 0; i < len(extra); i += 2 {
		if extra[i] == featParamsFlag {
			path = extra[i+1]
		}
	}
	lines, err := readFeatParams(path)
	if errors.Is(err, os.ErrNotExist) {
		// No file: pocketsphinx takes the arguments as they are.
		return extra, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	set := map[string]int{} // flag → its line
	for i, l := range lines {
		if f := strings.Fields(l); len(f) > 0 && strings.HasPrefix(f[0], "-") {
			set[f[0]] = i
		}
	}
	moved := false
	for i := 0; i < len(extra); i += 2 {
		flag, value := extra[i], extra[i+1]
		at, ok := set[flag]
		if !ok || flag == featParamsFlag {
			args = append(args, flag, value)
			continue
		}
		if value == "" || strings.ContainsAny(value, "\n\r") || len(strings.Fields(value)) != 1 {
			return nil, "", fmt.Errorf("argument %s %q: want one word", flag, value)
		}
		lines[at] = flag + " " + value
		moved = true
	}
	if !moved {
		return extra, "", nil
	}
	f, err := os.CreateTemp("", "jibod-feat-*.params")
	if err != nil {
		return nil, "", fmt.Errorf("writing the feature parameters: %w", err)
	}
	_, werr := io.WriteString(f, strings.Join(lines, "\n")+"\n")
	if cerr := f.Close(); werr != nil || cerr != nil {
		os.Remove(f.Name())
		return nil, "", fmt.Errorf("writing the feature parameters: %w", errors.Join(werr, cerr))
	}
	out := []string{featParamsFlag, f.Name()}
	for i := 0; i < len(args); i += 2 {
		if args[i] != featParamsFlag {
			out = append(out, args[i], args[i+1])
		}
	}
	return out, f.Name(), nil
}

// readFeatParams reads a feature parameter file's lines.
func readFeatParams(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading the feature parameters: %w", err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(io.LimitReader(f, maxFeatParams+1))
	n := 0
	for sc.Scan() {
		n += len(sc.Bytes()) + 1
		if n > maxFeatParams {
			return nil, fmt.Errorf("reading the feature parameters: %s is over %d bytes", path, maxFeatParams)
		}
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the feature parameters %s: %w", path, err)
	}
	return lines, nil
}
